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

import { PlatformAuthError } from '../errors.ts';
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

export function createBearerAuthenticator(verifier: BearerVerifier, resourceMetadata: string): BearerAuthenticator {
  return async function authenticateBearer(ctx, options = {}) {
    try {
      return { caller: await verifier.verifyHeader(ctx.get('authorization') || undefined, options) };
    } catch (err) {
      if (err instanceof PlatformAuthError) {
        writeBearerError(ctx, err, resourceMetadata);
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
