/**
 * The methods a path of the library answers, from the endpoint table, and the answer to any
 * other: 405 with `Allow` (RFC 9110 §15.5.6) and an RFC 6749 §5.2 body, as the token endpoint
 * and the docs always answered. Without it, a method the provider or a router has no route
 * for fell through to Koa's plain-text 404, as if the endpoint did not exist.
 *
 * - `GET` brings `HEAD` (Koa and the provider answer it as `GET` without a body).
 * - `OPTIONS` is listed where the endpoint answers cross-origin preflights (`preflight` in the
 *   table); a plain `OPTIONS` there (no `Access-Control-Request-Method`) is answered 204 with
 *   `Allow`, a preflight is left to the endpoint's CORS. Elsewhere `OPTIONS` is refused like
 *   any other method.
 * - `/account/graphql` and `/mcp` answer their own 405s, in their protocols' error shapes.
 *
 * Each piece of `auth.middleware` checks its own paths, so a piece mounted alone answers the
 * same.
 *
 * @module
 */
import type { Context, Middleware } from 'koa';

import type { EndpointDefinition } from '../endpoints.ts';
import { InvalidRequestError } from '../errors.ts';
import { writeError } from './error-response.ts';

/** What a path answers. */
export interface AllowedMethods {
  /** every method answered, in the order `Allow` lists them */
  readonly allow: ReadonlySet<string>;
  /** `Allow`'s value */
  readonly header: string;
  /** what the 405 tells the client to use */
  readonly use: string;
}

/** The methods `endpoint` answers. */
export function allowedMethods(endpoint: Pick<EndpointDefinition, 'methods' | 'preflight'>): AllowedMethods {
  const allow: string[] = [];
  for (const method of endpoint.methods) {
    allow.push(method);
    if (method === 'GET') allow.push('HEAD');
  }
  if (endpoint.preflight) allow.push('OPTIONS');
  return Object.freeze({ allow: new Set(allow), header: allow.join(', '), use: endpoint.methods.join(' or ') });
}

/** The methods of each of `endpoints`, by path. */
export function methodsByPath(endpoints: readonly Pick<EndpointDefinition, 'path' | 'methods' | 'preflight'>[]): ReadonlyMap<string, AllowedMethods> {
  return new Map(endpoints.map((e) => [e.path, allowedMethods(e)]));
}

/**
 * Answers `ctx` when its method is not one `methods` allows (405), or is a plain `OPTIONS` of a
 * path that lists it (204). Returns whether it answered; the caller goes on when it did not.
 */
export function refuseUnservedMethod(ctx: Context, methods: AllowedMethods): boolean {
  const { method } = ctx;
  if (method === 'OPTIONS' && methods.allow.has(method)) {
    if (ctx.get('access-control-request-method')) return false;
    ctx.status = 204;
    ctx.set('Allow', methods.header);
    return true;
  }
  if (methods.allow.has(method)) return false;
  writeError(ctx, new InvalidRequestError(`use ${methods.use} ${ctx.path}`, { status: 405 }), { headers: { Allow: methods.header } });
  return true;
}

/**
 * `inner`, with the methods of the paths `lookup` knows checked first; a path it does not
 * know goes to `inner` as it came.
 */
export function checkingMethods(lookup: (path: string) => AllowedMethods | undefined, inner: Middleware): Middleware {
  return function allowedMethodsOnly(ctx, next) {
    const methods = lookup(ctx.path);
    if (methods && refuseUnservedMethod(ctx, methods)) return Promise.resolve();
    return inner(ctx, next);
  };
}
