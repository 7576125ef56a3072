/**
 * Drops the identity scopes a client may not hold from an authorization request before
 * oidc-provider reads it (the rule: `grantableScope`, lib/policies/scope-allowance.ts). A
 * provider middleware, so that it sees the request as the provider will: `scope` is rewritten in
 * the query string its router parses. oidc-provider would refuse such a scope itself
 * ("requested scope is not allowed") before any hook of its own could drop it.
 *
 * Only a `GET` of the authorization endpoint with one `client_id` and one `scope` that names an
 * identity scope costs a client lookup; anything else (a repeated parameter, an unknown client,
 * a storage failure) is left as it came, for the provider to answer as it does.
 *
 * @module
 */
import type { Middleware } from 'koa';

import { ENDPOINTS } from '../endpoints.ts';
import { grantableScope } from '../policies/scope-allowance.ts';
import { IDENTITY_SCOPES, parseScope } from '../scopes/catalogue.ts';

/** The scopes the client with this id may hold; `undefined` for a client the provider does not know. */
export type AllowanceOf = (clientId: string) => Promise<ReadonlySet<string> | undefined>;

export function dropUngrantableIdentityScopes(allowanceOf: AllowanceOf): Middleware {
  const path = ENDPOINTS.authorization.path;
  // no async frame: this runs on every request the provider answers (see lib/storage/outage.ts, guard)
  return function identityScopes(ctx, next) {
    if (ctx.path !== path || ctx.method !== 'GET') return next();
    const query = new URLSearchParams(ctx.querystring);
    const scope = query.getAll('scope');
    const clientId = query.getAll('client_id');
    if (scope.length !== 1 || clientId.length !== 1 || !parseScope(scope[0]).some((s) => IDENTITY_SCOPES.includes(s))) return next();
    return allowanceOf(clientId[0]!).then((allowance) => allowance && grantableScope(scope[0], allowance), () => undefined).then((kept) => {
      if (kept !== undefined) {
        query.set('scope', kept);
        ctx.querystring = query.toString();
      }
      return next();
    });
  };
}
