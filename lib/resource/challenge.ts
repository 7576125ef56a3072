/**
 * The `WWW-Authenticate: Bearer` challenge of RFC 6750 §3 with RFC 9728's
 * `resource_metadata`, and the matching JSON body.
 *
 * @module
 */
import type { Context } from 'koa';

import type { PlatformAuthError } from '../errors.ts';
import { InsufficientScopeError } from '../errors.ts';

/** RFC 9110 §5.6.4 quoted-string: backslash-escape `"` and `\`, drop what cannot be sent. */
export function quoteParam(value: string): string {
  // eslint-disable-next-line no-control-regex
  const safe = value.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\uffff]/g, '');
  return `"${safe.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function buildChallenge(error: PlatformAuthError, resourceMetadata: string): string {
  const params: [string, string][] = [
    ['error', error.code],
    ['error_description', error.description],
  ];
  if (error instanceof InsufficientScopeError) params.push(['scope', error.scope]);
  params.push(['resource_metadata', resourceMetadata]);
  return `Bearer ${params.map(([k, v]) => `${k}=${quoteParam(v)}`).join(', ')}`;
}

/** Writes a 401/403 (or other) error answer of a protected endpoint. */
export function writeBearerError(ctx: Context, error: PlatformAuthError, resourceMetadata: string): void {
  ctx.status = error.status;
  if (error.status === 401 || error.status === 403) {
    ctx.set('WWW-Authenticate', buildChallenge(error, resourceMetadata));
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.body = error.toResponseObject();
}
