/**
 * Reads a urlencoded form body. URLSearchParams rather than a body parser because the
 * create form sends `scope` once per checked box, and `getAll` keeps that unambiguous.
 *
 * @module
 */
import type { Context } from 'koa';

import { PageError } from './page-error.ts';

/** the largest form is ten redirect URIs and a name: far below this */
const LIMIT = 16 * 1024;

export async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new PageError(415, 'Unsupported form', 'Send the form from the page.');
  }
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > LIMIT) throw new PageError(413, 'Form too large', 'The form is larger than this page accepts.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT) throw new PageError(413, 'Form too large', 'The form is larger than this page accepts.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** One trimmed text field; a repeated or missing field reads as empty. */
export function field(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  return values.length === 1 ? values[0]!.trim() : '';
}
