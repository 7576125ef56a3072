/**
 * The `WWW-Authenticate: Bearer` challenge of RFC 6750 §3 with RFC 9728's
 * `resource_metadata`, and the answer of a protected endpoint that carries it.
 *
 * @module
 */
import type { Context } from 'koa';

import { AuthenticationRequiredError, isBearerRefusal } from '../errors.ts';
import type { PlatformAuthError } from '../errors.ts';
import { reportAccessRefused } from '../events/refusals.ts';
import { formatChallenge, writeError } from '../http/error-response.ts';
import { noteOutageReason } from '../storage/outage.ts';

/**
 * `error`, `error_description`, `scope` when the error names one, and `resource_metadata`;
 * no error code for a request that sent no credentials (RFC 6750 §3.1).
 */
export function buildChallenge(error: PlatformAuthError, resourceMetadata: string): string {
  const credentialsSent = !(error instanceof AuthenticationRequiredError);
  return formatChallenge('Bearer', [
    ['error', credentialsSent ? error.code : undefined],
    ['error_description', credentialsSent ? error.description : undefined],
    // a refusal no scope can lift (a guard of audiences alone) names none: `scope=""` is no
    // scope list (RFC 6749 §3.3), and a client stepping up to it would ask for nothing
    ['scope', error.scope || undefined],
    ['resource_metadata', resourceMetadata],
  ]);
}

/** Writes an error answer of a protected endpoint: RFC 6750's refusals with their challenge, reported (`access.refused`). */
export function writeBearerError(ctx: Context, error: PlatformAuthError, resourceMetadata: string): void {
  // a storage failure's reason, for the outage guard that counts this 503 (lib/storage/outage.ts)
  if (error.status === 503) noteOutageReason(ctx, error);
  const challenge = isBearerRefusal(error) ? buildChallenge(error, resourceMetadata) : undefined;
  writeError(ctx, error, challenge === undefined ? {} : { challenge });
  if (challenge !== undefined) reportAccessRefused(ctx, error);
}
