/**
 * The Koa adapter of the bearer core: sets `ctx.state.auth` or answers the challenge.
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
import type { BearerAuth, BearerVerifier, VerifyOptions } from './bearer.ts';
import { writeBearerError } from './challenge.ts';

export interface RequireBearerOptions extends VerifyOptions {
  /** no token → anonymous (`ctx.state.auth` undefined); a bad token is still 401 */
  readonly optional?: boolean;
}

export interface BearerState {
  auth?: BearerAuth;
}

export function createRequireBearer(verifier: BearerVerifier, resourceMetadata: string) {
  return function requireBearerFactory(options: RequireBearerOptions = {}): Middleware<BearerState> {
    return async function requireBearer(ctx: Context, next: Next) {
      try {
        ctx.state.auth = await verifier.verifyHeader(ctx.get('authorization') || undefined, options);
      } catch (err) {
        if (err instanceof PlatformAuthError) {
          writeBearerError(ctx, err, resourceMetadata);
          return;
        }
        throw err;
      }
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
