/**
 * Who may revoke or introspect a token (oidc-provider's `allowedPolicy` hooks).
 *
 * - Revocation (RFC 7009 §2.1): a client revokes only its own tokens. A public client asking
 *   about another's token is told nothing (the provider answers 200 as if revoked); a
 *   confidential one gets `invalid_request`.
 * - Introspection (RFC 7662 §2.1): the client the token was issued to, or a resource server
 *   the host trusts (`options.introspectionClients`). A token of a deleted client is inactive,
 *   and its grant is revoked (./deleted-clients.ts); a token of a metadata-document client
 *   whose document is now refused is inactive too (its grant kept: the document may be
 *   fixed), never oidc-provider's `invalid_client`, which would name the resource server.
 *
 * @module
 */
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type { Client } from 'oidc-provider';

import { PUBLIC_CLIENT_AUTH_METHOD } from '../constants.ts';
import { revokeOrphanedGrant } from './deleted-clients.ts';

interface TokenOf {
  readonly clientId?: string | undefined;
  readonly grantId?: string | undefined;
}

export async function revocationAllowed(client: Pick<Client, 'clientId' | 'clientAuthMethod'>, token: TokenOf): Promise<boolean> {
  if (token.clientId === client.clientId) return true;
  if (client.clientAuthMethod === PUBLIC_CLIENT_AUTH_METHOD) return false;
  throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
}

/** A token's client, as its checker sees it: there, deleted, or a metadata document now refused. */
export type TokenClientState = 'live' | 'deleted' | 'refused';

export interface IntrospectionPolicy {
  /** client ids of the trusted resource servers */
  readonly introspectionClients: readonly string[];
  /** the state of a token's client; rejects with a 503 error for a lookup that may work later */
  readonly tokenClient: (clientId: string) => Promise<TokenClientState>;
  /** the provider, for revoking an orphaned grant */
  readonly provider: () => Provider;
}

export async function introspectionAllowed(policy: IntrospectionPolicy, client: Pick<Client, 'clientId'>, token: TokenOf): Promise<boolean> {
  if (token.clientId === client.clientId) return true;
  if (!policy.introspectionClients.includes(client.clientId)) return false;
  // a token of a deleted client is inactive (and oidc-provider would fail reading it)
  const state = await policy.tokenClient(token.clientId!);
  if (state === 'live') return true;
  if (state === 'deleted' && token.grantId) await revokeOrphanedGrant(policy.provider(), token.grantId);
  return false;
}
