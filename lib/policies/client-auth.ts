/**
 * Client authentication methods: `none` for public clients and `client_secret_post` for
 * confidential ones (spec §2.2, lib/constants.ts). oidc-provider accepts HTTP Basic wherever
 * `client_secret_post` is registered (the same secret either way), so an HTTP Basic attempt at
 * a client-authenticated endpoint is refused before the provider sees it: 401
 * `invalid_client` with a challenge of the scheme the client tried (RFC 6749 §5.2).
 *
 * @module
 */
import type { Context } from 'koa';

import { ENDPOINTS } from '../endpoints.ts';
import { InvalidClientError } from '../errors.ts';
import { formatChallenge, writeError } from '../http/error-response.ts';

/** The endpoints where a client authenticates. */
export const CLIENT_AUTHENTICATED_PATHS: ReadonlySet<string> = new Set([
  ENDPOINTS.token.path, ENDPOINTS.revocation.path, ENDPOINTS.introspection.path,
]);

const BASIC_REFUSAL = new InvalidClientError('client_secret_basic is not supported: send client_id and client_secret in the form body (client_secret_post)');
const BASIC_CHALLENGE = formatChallenge('Basic', [['realm', 'client authentication'], ['error', 'invalid_client']]);

/** Whether the request uses HTTP Basic client authentication at one of those endpoints. */
export function usesBasicClientAuth(ctx: Context): boolean {
  return CLIENT_AUTHENTICATED_PATHS.has(ctx.path) && /^basic /i.test(ctx.get('authorization'));
}

/** Answers the refusal of HTTP Basic client authentication. */
export function refuseBasicClientAuth(ctx: Context): void {
  writeError(ctx, BASIC_REFUSAL, { challenge: BASIC_CHALLENGE });
}
