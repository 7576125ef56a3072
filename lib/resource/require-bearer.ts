/**
 * The Koa adapter of the bearer core, the one every protected route uses: the Account API,
 * `/mcp` (optional mode: no token is anonymous), UserInfo and the host's routes through
 * `auth.requireBearer()`. It verifies the `Authorization` header and either hands on the
 * caller or answers the refusal (401/403 with the challenge, 503 when storage is down).
 *
 * @example
 * ```ts
 * router.get('/admin/courses', auth.requireBearer({ scopes: ['courses:read'], audiences: ['operator'] }), list);
 * ```
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';

import { AuthenticationRequiredError, InvalidRequestError, InvalidTokenError, PlatformAuthError } from '../errors.ts';
import { noteRefusal, refusalOf } from '../events/refusals.ts';
import type { BearerAuth, BearerVerifier } from './bearer.ts';
import { writeBearerError } from './challenge.ts';
import { checkBearerGuard } from './guard-options.ts';
import type { RequireBearerOptions } from './guard-options.ts';

export type { RequireBearerOptions } from './guard-options.ts';

export interface BearerState {
  auth?: BearerAuth;
}

declare module 'koa' {
  /** `ctx.state.auth`: the caller, set by `auth.requireBearer()` (undefined for an anonymous caller of an optional guard). */
  interface DefaultState {
    auth?: BearerAuth;
  }
}

/** The request's caller (`undefined`: anonymous, in optional mode), or `undefined` overall when the refusal was answered. */
export type BearerAuthenticator = (ctx: Context, options?: RequireBearerOptions) => Promise<{ readonly caller: BearerAuth | undefined } | undefined>;

/**
 * RFC 6750 §2: a request sends its token one way only. Two `Authorization` headers (Node keeps
 * only the first in `headers`; `rawHeaders` has them all), or the header together with an
 * `access_token` in the query or in a body a parser already read, are `invalid_request`.
 */
function assertOneCredential(ctx: Context): void {
  const raw = ctx.req.rawHeaders;
  let headers = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') headers += 1;
  if (headers > 1) throw new InvalidRequestError('the request carries more than one Authorization header');
  if (headers === 0) return;
  const body = (ctx.request as { body?: unknown }).body;
  const inBody = typeof body === 'object' && body !== null && 'access_token' in body;
  if (inBody || ctx.query.access_token !== undefined) {
    throw new InvalidRequestError('the access token is sent more than one way; send it in the Authorization header only');
  }
}

export interface BearerAuthenticatorSettings {
  /**
   * How a request without credentials (no `Authorization`, or another scheme) is challenged:
   * `'challenge'`, with no error code as RFC 6750 §3.1 asks (UserInfo, host routes), or
   * `'invalid_token'`, as the interface asks of the Account API (spec §5, §7). `/mcp` takes
   * `'invalid_token'` too: without a header it is anonymous (optional mode), so this only
   * names why a header of another scheme is refused.
   * @default 'challenge'
   */
  readonly missingToken?: 'challenge' | 'invalid_token';
}

export function createBearerAuthenticator(verifier: BearerVerifier, resourceMetadata: string, settings: BearerAuthenticatorSettings = {}): BearerAuthenticator {
  const missingTokenIsInvalid = settings.missingToken === 'invalid_token';
  return async function authenticateBearer(ctx, options = {}) {
    try {
      assertOneCredential(ctx);
      return { caller: await verifier.verifyHeader(ctx.get('authorization') || undefined, options) };
    } catch (err) {
      if (err instanceof PlatformAuthError) {
        const refusal = missingTokenIsInvalid && err instanceof AuthenticationRequiredError
          ? noteRefusal(new InvalidTokenError(err.description), refusalOf(err))
          : err;
        writeBearerError(ctx, refusal, resourceMetadata);
        return undefined;
      }
      throw err;
    }
  };
}

/** `auth.requireBearer(options)`: sets `ctx.state.auth` or answers the refusal. */
export function createRequireBearer(authenticate: BearerAuthenticator) {
  return function requireBearerFactory(options: RequireBearerOptions = {}): Middleware<BearerState> {
    checkBearerGuard('auth.requireBearer()', options);
    return async function requireBearer(ctx: Context, next: Next) {
      const identity = await authenticate(ctx, options);
      if (!identity) return;
      ctx.state.auth = identity.caller;
      await next();
    };
  };
}

/** Answers a `PlatformAuthError` thrown further down as a protected-resource error. */
export function catchBearerErrors(resourceMetadata: string): Middleware {
  return async function bearerErrors(ctx: Context, next: Next) {
    try {
      await next();
    } catch (err) {
      if (err instanceof PlatformAuthError) {
        writeBearerError(ctx, err, resourceMetadata);
        return;
      }
      throw err;
    }
  };
}
