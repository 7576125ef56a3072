/**
 * The `WWW-Authenticate: Bearer` challenge of RFC 6750 §3 with RFC 9728's
 * `resource_metadata`, and the answer of a protected endpoint that carries it.
 *
 * @module
 */
import type { Context } from 'koa';

import type { PlatformAuthError } from '../errors.ts';
import { formatChallenge, writeError } from '../http/error-response.ts';

/** `error`, `error_description`, `scope` when the error names one, and `resource_metadata`. */
export function buildChallenge(error: PlatformAuthError, resourceMetadata: string): string {
  return formatChallenge('Bearer', [
    ['error', error.code],
    ['error_description', error.description],
    ['scope', error.scope],
    ['resource_metadata', resourceMetadata],
  ]);
}

/** Writes a 401/403 (or other) error answer of a protected endpoint. */
export function writeBearerError(ctx: Context, error: PlatformAuthError, resourceMetadata: string): void {
  const challenge = error.status === 401 || error.status === 403 ? buildChallenge(error, resourceMetadata) : undefined;
  writeError(ctx, error, challenge === undefined ? {} : { challenge });
}
