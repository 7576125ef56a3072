/**
 * The one way this library writes an error answer of its own routers: an RFC 6749 §5.2 JSON
 * body from a `PlatformAuthError`, `Cache-Control: no-store`, and optionally a
 * `WWW-Authenticate` challenge built by {@link formatChallenge}, the one challenge builder
 * (RFC 9110 §11.6.1). oidc-provider's endpoints answer through its own error handler.
 *
 * @module
 */
import type { Context } from 'koa';

import type { PlatformAuthError } from '../errors.ts';

/** Characters a quoted-string cannot carry: controls other than tab, DEL and anything non-ASCII. */
function isUnsendable(code: number): boolean {
  return (code < 0x20 && code !== 0x09) || code >= 0x7f;
}

/** RFC 9110 §5.6.4 quoted-string: backslash-escape `"` and `\`, drop what cannot be sent. */
export function quoteParam(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (isUnsendable(code)) continue;
    out += char === '"' || char === '\\' ? `\\${char}` : char;
  }
  return `${out}"`;
}

/** `Scheme k1="v1", k2="v2"`, each value quoted; `undefined` values are left out. */
export function formatChallenge(scheme: string, params: readonly (readonly [string, string | undefined])[]): string {
  const sent = params.filter((p): p is readonly [string, string] => p[1] !== undefined);
  return `${scheme} ${sent.map(([k, v]) => `${k}=${quoteParam(v)}`).join(', ')}`;
}

export interface ErrorAnswerOptions {
  /** the `WWW-Authenticate` header value */
  readonly challenge?: string;
  /** further headers, e.g. `Allow` on a 405 */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Answers `error` as RFC 6749 §5.2 JSON, never cached. */
export function writeError(ctx: Context, error: PlatformAuthError, options: ErrorAnswerOptions = {}): void {
  ctx.status = error.status;
  if (options.challenge !== undefined) ctx.set('WWW-Authenticate', options.challenge);
  for (const [name, value] of Object.entries(options.headers ?? {})) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = error.toResponseObject();
}
