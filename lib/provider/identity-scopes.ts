/**
 * Drops the identity scopes a client may not hold from an authorization request before
 * oidc-provider reads it (the rule: `grantableScope`, lib/policies/scope-allowance.ts): `scope`
 * is rewritten in the request's URL as it is handed to the provider (./dispatch.ts), since
 * oidc-provider refuses such a scope itself ("requested scope is not allowed") before any hook
 * of its own could drop it. Not a provider middleware: one more of those is a promise on every
 * request the provider answers, where this concerns one endpoint.
 *
 * Only a request with one `client_id` and one `scope` that names an identity scope costs a
 * client lookup; anything else (a repeated parameter, an unknown client, a storage failure) is
 * left as it came, for the provider to answer as it does. A Client ID Metadata Document's
 * client is left as it came too: looking it up would fetch the document (its host's budget,
 * its events) ahead of the provider, and its author writes both the document's `scope` and
 * the request.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

import { isMetadataDocumentId } from '../policies/client-metadata.ts';
import { grantableScope } from '../policies/scope-allowance.ts';
import { IDENTITY_SCOPES, parseScope } from '../scopes/catalogue.ts';

/** The scopes the client with this id may hold; `undefined` for a client the provider does not know. */
export type AllowanceOf = (clientId: string) => Promise<ReadonlySet<string> | undefined>;

/** Rewrites an authorization request's URL (`req.url`); a promise only when it looks the client up. */
export type AuthorizationRewrite = (req: IncomingMessage) => Promise<void> | undefined;

export function dropUngrantableIdentityScopes(allowanceOf: AllowanceOf): AuthorizationRewrite {
  return function identityScopes(req) {
    const url = req.url ?? '';
    const at = url.indexOf('?');
    if (at < 0) return undefined;
    const query = new URLSearchParams(url.slice(at + 1));
    const scope = query.getAll('scope');
    const clientId = query.getAll('client_id');
    if (scope.length !== 1 || clientId.length !== 1 || isMetadataDocumentId(clientId[0])) return undefined;
    if (!parseScope(scope[0]).some((s) => IDENTITY_SCOPES.includes(s))) return undefined;
    return allowanceOf(clientId[0]!).then((allowance) => allowance && grantableScope(scope[0], allowance), () => undefined).then((kept) => {
      if (kept === undefined) return;
      query.set('scope', kept);
      req.url = `${url.slice(0, at)}?${query.toString()}`;
    });
  };
}
