/**
 * Scope allowance and refusal: which scopes a client may hold, and the refusal of anything
 * else.
 *
 * Scope requests are refused, never trimmed: oidc-provider silently drops scopes that no
 * resource server knows, so every requested scope is checked here first and anything
 * unknown or outside the client's allowance is `invalid_scope` (RFC 6749 §4.1.2.1, §5.2).
 *
 * One exception ({@link grantableScope}): an identity scope (`openid`, `profile`, `email`) the
 * client may not hold is dropped from an authorization request. The protected-resource
 * metadata lists exactly those as `scopes_supported` (lib/resource/metadata.ts), and MCP
 * clients request that list as it is when no challenge names a scope; a member client whose
 * scopes the site's operator picked without `email` would otherwise never sign in. RFC 6749
 * §3.3 lets the server grant less than asked, and the token response's `scope` says what was.
 *
 * @module
 */
import { errors } from 'oidc-provider';

import { IDENTITY_SCOPES, isKnownScope, parseScope, scopesForAudience } from '../scopes/catalogue.ts';
import { clientAudience } from './audience.ts';
import type { AudienceClient } from './audience.ts';
import { unreviewedMayHold } from './metadata-documents.ts';

export interface ScopedClient extends AudienceClient {
  readonly scope?: string | undefined;
  /** set by oidc-provider on clients resolved from a client ID metadata document */
  readonly clientIdMetadataDocument?: boolean;
}

export interface ScopePolicy {
  /** whether a site operator has reviewed this metadata-document client */
  isReviewed(clientId: string): Promise<boolean>;
}

/**
 * The scopes `client` may be granted: its registered `scope`, limited to what its audience
 * may hold; for metadata-document clients without a `scope`, every operator scope; and for
 * those not yet reviewed, only read and identity scopes.
 */
// oidc-provider keeps one Client object per client metadata version, so the allowance of a
// client that needs no review is computed once per version
const fixedAllowances = new WeakMap<ScopedClient, ReadonlySet<string>>();

export async function scopeAllowance(client: ScopedClient, policy: ScopePolicy): Promise<ReadonlySet<string>> {
  const document = client.clientIdMetadataDocument === true;
  if (!document) {
    let allowed = fixedAllowances.get(client);
    if (!allowed) {
      allowed = computeAllowance(client, document, true);
      fixedAllowances.set(client, allowed);
    }
    return allowed;
  }
  return computeAllowance(client, document, await policy.isReviewed(client.clientId));
}

function computeAllowance(client: ScopedClient, document: boolean, reviewed: boolean): ReadonlySet<string> {
  const audience = clientAudience(client);
  const eligible = new Set(scopesForAudience(audience));
  let allowed = client.scope !== undefined
    ? parseScope(client.scope).filter((s) => eligible.has(s))
    : document ? [...eligible] : [];
  if (document && !reviewed) allowed = allowed.filter(unreviewedMayHold);
  return new Set(allowed);
}

export function assertScopesAllowed(requested: string | undefined, allowance: ReadonlySet<string>): void {
  for (const scope of parseScope(requested)) {
    if (!isKnownScope(scope)) {
      throw new errors.InvalidScope(`the scope ${scope} is not offered by this server`, scope);
    }
    if (!allowance.has(scope)) {
      throw new errors.InvalidScope(`the scope ${scope} is not allowed for this client`, scope);
    }
  }
}

/**
 * `requested` without the identity scopes outside `allowance`, or `undefined` when nothing is
 * to be dropped. Nothing is dropped either when nothing would remain: then the request is
 * refused naming the scope, as any other. Every other scope is left for the checks above.
 */
export function grantableScope(requested: string | undefined, allowance: ReadonlySet<string>): string | undefined {
  const scopes = parseScope(requested);
  const kept = scopes.filter((scope) => !IDENTITY_SCOPES.includes(scope) || allowance.has(scope));
  return kept.length === scopes.length || kept.length === 0 ? undefined : kept.join(' ');
}
