/**
 * The library reads request bodies itself (oidc-provider, the sign-in forms, the Account API,
 * `/mcp`), so `auth.routes()` must be mounted before any body parser of the host. A parser
 * mounted first consumes the body, and the token endpoint would then answer a misleading
 * `invalid_request "no client authentication mechanism provided"`. This guard notices it on
 * the library's own paths and answers a clear configuration error instead, logged once.
 *
 * @module
 */
import type { Context } from 'koa';

import type { Logger } from '../contracts.ts';
import { ConfigurationError, PlatformAuthError } from '../errors.ts';
import { writeError } from './error-response.ts';

export const MOUNT_ORDER_MESSAGE = 'platform-auth: a body parser ran before auth.routes(), so the library cannot read request bodies (the token, revocation and introspection endpoints, the sign-in forms, the Account API and /mcp would fail). Mount app.use(auth.routes()) before any body parser; the library never needs the host\'s parser.';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** Whether something before the library has already read or parsed this request's body. */
export function bodyAlreadyRead(ctx: Context): boolean {
  if (!WITH_BODY.has(ctx.method)) return false;
  return ctx.req.readableEnded || (ctx.request as { body?: unknown }).body !== undefined;
}

/** Answers the mis-mount: 500 `server_error` to the caller (no detail), the fix to the log. */
export function createMountOrderGuard(logger: Logger): (ctx: Context) => void {
  let logged = false;
  const error = new PlatformAuthError('server_error', 500, 'the authorization server is misconfigured', { cause: new ConfigurationError(MOUNT_ORDER_MESSAGE), expose: true });
  return function refuseMisMounted(ctx) {
    if (!logged) {
      logged = true;
      logger.error(MOUNT_ORDER_MESSAGE);
    }
    writeError(ctx, error);
  };
}
