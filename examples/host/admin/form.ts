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
  // another charset would be read as UTF-8 and its names stored garbled (Caf%E9 as "Caf\uFFFD")
  if (!ctx.is('application/x-www-form-urlencoded') || !isUtf8Charset(ctx.get('content-type'))) {
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
  return decodeForm(Buffer.concat(chunks));
}

/** Whether the Content-Type names no charset, or UTF-8. */
function isUtf8Charset(contentType: string): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1];
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

const fatal = new TextDecoder('utf-8', { fatal: true });
const NOT_UTF8 = () => new PageError(400, 'Unreadable form', 'The form was not sent as UTF-8. Send it from the page.');

/**
 * The form's fields, decoded strictly: URLSearchParams turns bytes or percent-escapes that are
 * no UTF-8 into U+FFFD without a word, and a name would be stored damaged.
 */
function decodeForm(body: Buffer): URLSearchParams {
  let text: string;
  try {
    text = fatal.decode(body);
  } catch {
    throw NOT_UTF8();
  }
  const fields = new URLSearchParams();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    try {
      fields.append(decodeURIComponent(name.replaceAll('+', ' ')), decodeURIComponent(value.replaceAll('+', ' ')));
    } catch {
      throw NOT_UTF8();
    }
  }
  return fields;
}

/** One trimmed text field; a repeated or missing field reads as empty. */
export function field(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  return values.length === 1 ? values[0]!.trim() : '';
}
