/**
 * "Connected apps": the clients a member has authorized, for the host's own account pages,
 * and a way to disconnect one. Revoking ends every token of the grant at once, on every
 * instance: the grant, its access and refresh tokens and its unredeemed codes are removed
 * from the shared storage, and every use of a token looks them up there (a bearer check
 * needs the token and its grant; a refresh needs the refresh token and its grant).
 *
 * The host calls this API for the account signed in to its own pages (its session, with a
 * CSRF-checked form for `revoke`); the library does not expose it to OAuth clients (README,
 * "Connected apps": why the Account API has no such field).
 *
 * @example
 * ```ts
 * const apps = await auth.connectedApps.list(session.accountId);
 * // [{ clientId: 'demo-member-app', name: 'Demo Member App', sites: [{ id: 'demo-school', name: 'Demo School' }],
 * //    scopes: ['openid', 'profile', 'email', 'account:read'], firstUsedAt: 1767225600, lastUsedAt: 1767229200, grants: [...] }]
 * await auth.connectedApps.revoke(session.accountId, { clientId: 'demo-member-app' }); // → 1 (grants revoked)
 * ```
 *
 * @module
 */
import type Provider from 'oidc-provider';
import type { Client, Grant } from 'oidc-provider';

import type { Site, SiteStore } from '../contracts.ts';
import type { GrantContextStore } from '../grant-context.ts';
import { clientAudience } from '../policies/audience.ts';
import { revokeOrphanedGrant } from '../policies/deleted-clients.ts';
import { resolveSite } from '../policies/token-claims.ts';
import type { Audience } from '../scopes/catalogue.ts';
import { SCOPE_NAMES, parseScope } from '../scopes/catalogue.ts';
import type { GrantIndex } from '../storage/grant-index.ts';
import { isStorageUnavailable } from '../storage/outage.ts';

/** One consent of the member to an app (one grant). */
export interface ConnectedGrant {
  readonly grantId: string;
  /** the site the app's tokens speak for: a member client's own, or the one an operator chose */
  readonly site: Site | undefined;
  /** what the grant allows, in catalogue order */
  readonly scopes: readonly string[];
  /** when the member consented (epoch seconds) */
  readonly firstUsedAt: number;
  /** when a token of it was last issued, at the code exchange or a refresh (epoch seconds); `firstUsedAt` until then */
  readonly lastUsedAt: number;
  /** when the grant ends unless revoked first (epoch seconds) */
  readonly expiresAt: number;
}

/** An app the member has authorized: its grants, summed up (usually one). */
export interface ConnectedApp {
  readonly clientId: string;
  /** `client_name`, or the client id when it has none */
  readonly name: string;
  readonly audience: Audience;
  /** the sites of its grants (one, except for an operator app authorized for several schools) */
  readonly sites: readonly Site[];
  /** every scope of its grants, in catalogue order */
  readonly scopes: readonly string[];
  /** the earliest consent (epoch seconds) */
  readonly firstUsedAt: number;
  /** the latest token issued (epoch seconds) */
  readonly lastUsedAt: number;
  readonly grants: readonly ConnectedGrant[];
}

/** What to revoke: every grant of the member to a client, or one grant. */
export type ConnectedAppTarget = { readonly clientId: string } | { readonly grantId: string };

export interface ConnectedApps {
  /** The apps `accountId` has authorized and whose grants are alive, most recently used first. */
  list(accountId: string): Promise<ConnectedApp[]>;
  /**
   * Revokes the grants of `accountId` that `target` names, with every token of them, at
   * once; resolves to how many grants were revoked (0 when none of that account matched:
   * a grant of another account is never touched). The app must ask the member again.
   */
  revoke(accountId: string, target: ConnectedAppTarget): Promise<number>;
}

export interface ConnectedAppsDeps {
  readonly provider: Provider;
  readonly index: GrantIndex;
  readonly grantContexts: GrantContextStore;
  readonly sites: SiteStore;
}

const CATALOGUE_ORDER = new Map(SCOPE_NAMES.map((name, i) => [name, i]));

function inCatalogueOrder(scopes: Iterable<string>): string[] {
  const rank = (s: string) => CATALOGUE_ORDER.get(s) ?? CATALOGUE_ORDER.size;
  return [...new Set(scopes)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** What a grant allows: its OpenID scopes and its scopes at every resource, less what was rejected. */
function grantedScopes(grant: Grant): string[] {
  const scopes = parseScope(grant.getOIDCScope());
  for (const resource of Object.keys(grant.resources ?? {})) scopes.push(...parseScope(grant.getResourceScope(resource)));
  return inCatalogueOrder(scopes);
}

function checkAccountId(accountId: unknown): asserts accountId is string {
  if (typeof accountId !== 'string' || accountId === '') throw new TypeError('accountId must be a non-empty string');
}

type ResolvedClient = { readonly client: Client } | { readonly deleted: true } | { readonly unresolved: true };

export function createConnectedApps({ provider, index, grantContexts, sites }: ConnectedAppsDeps): ConnectedApps {
  /**
   * The live grants of `accountId` its chain reaches. A read deletes nothing from the chain,
   * also when no grant is left: a consent being saved meanwhile has its link and the head in
   * place before its grant (lib/storage/grant-index.ts), and would be cut off.
   */
  async function liveGrants(accountId: string): Promise<Grant[]> {
    const ids = await index.grantsOf(accountId);
    const found = await Promise.all(ids.map((id) => provider.Grant.find(id)));
    return found.filter((g): g is Grant => g !== undefined && g.accountId === accountId && !g.isExpired);
  }

  async function resolveClient(clientId: string): Promise<ResolvedClient> {
    try {
      const client = await provider.Client.find(clientId);
      if (client) return { client };
      // an https client id names a metadata document, which may resolve again later
      return /^https:/i.test(clientId) ? { unresolved: true } : { deleted: true };
    } catch (error) {
      if (isStorageUnavailable(error)) throw error;
      // a metadata document that could not be fetched or was refused: list the app by its id
      return { unresolved: true };
    }
  }

  /** A site lookup for one list call: each site is asked of the host's store once. */
  function siteLookup(): (id: string) => Promise<Site> {
    const seen = new Map<string, Promise<Site>>();
    return (id) => {
      let found = seen.get(id);
      if (!found) {
        // a site the store does not know is shown by its id, as on the consent page
        found = sites.findById(id).then((s) => (s ? { id: s.id, name: s.name } : { id, name: id }));
        seen.set(id, found);
      }
      return found;
    };
  }

  async function describe(grant: Grant, client: Client | undefined, siteView: (id: string) => Promise<Site>): Promise<ConnectedGrant> {
    const [siteId, lastUse] = await Promise.all([resolveSite(grantContexts, client, grant.jti), index.lastUse(grant.jti)]);
    const firstUsedAt = grant.iat ?? 0;
    return {
      grantId: grant.jti,
      site: siteId === undefined ? undefined : await siteView(siteId),
      scopes: grantedScopes(grant),
      firstUsedAt,
      lastUsedAt: Math.max(firstUsedAt, lastUse ?? 0),
      expiresAt: grant.exp ?? 0,
    };
  }

  async function revokeGrant(grant: Grant): Promise<void> {
    // the grant first among equals: a token whose grant is gone is refused even before its own record is
    await Promise.all([
      grant.destroy(),
      provider.AccessToken.revokeByGrantId(grant.jti),
      provider.RefreshToken.revokeByGrantId(grant.jti),
      provider.AuthorizationCode.revokeByGrantId(grant.jti),
      index.forgetUse(grant.jti),
    ]);
  }

  return Object.freeze({
    async list(accountId: string): Promise<ConnectedApp[]> {
      checkAccountId(accountId);
      const siteView = siteLookup();
      const grants = await liveGrants(accountId);
      const byClient = new Map<string, Grant[]>();
      for (const grant of grants) byClient.set(grant.clientId!, [...(byClient.get(grant.clientId!) ?? []), grant]);

      const apps = await Promise.all([...byClient].map(async ([clientId, ofClient]): Promise<ConnectedApp | undefined> => {
        const resolved = await resolveClient(clientId);
        if ('deleted' in resolved) {
          // a deleted member client: its tokens are refused already; clean up as the bearer check does
          await Promise.all(ofClient.map((g) => revokeOrphanedGrant(provider, g.jti)));
          return undefined;
        }
        const client = 'client' in resolved ? resolved.client : undefined;
        const described = await Promise.all(ofClient.map((g) => describe(g, client, siteView)));
        described.sort((a, b) => b.lastUsedAt - a.lastUsedAt);
        const siteList = new Map(described.flatMap((g) => (g.site ? [[g.site.id, g.site] as const] : [])));
        return {
          clientId,
          name: client?.clientName || clientId,
          // an unresolved client is a metadata document's, and those are operator clients
          audience: client ? clientAudience(client) : 'operator',
          sites: [...siteList.values()],
          scopes: inCatalogueOrder(described.flatMap((g) => g.scopes)),
          firstUsedAt: Math.min(...described.map((g) => g.firstUsedAt)),
          lastUsedAt: Math.max(...described.map((g) => g.lastUsedAt)),
          grants: described,
        };
      }));
      return apps
        .filter((a): a is ConnectedApp => a !== undefined)
        .sort((a, b) => b.lastUsedAt - a.lastUsedAt || a.name.localeCompare(b.name));
    },

    async revoke(accountId: string, target: ConnectedAppTarget): Promise<number> {
      checkAccountId(accountId);
      const t = (target ?? {}) as Partial<Record<'clientId' | 'grantId', unknown>>;
      let chosen: Grant[];
      if (typeof t.grantId === 'string' && t.clientId === undefined) {
        // found directly, not through the chain: a grant the chain lost is still revocable by id
        const grant = await provider.Grant.find(t.grantId);
        chosen = grant && grant.accountId === accountId ? [grant] : [];
      } else if (typeof t.clientId === 'string' && t.grantId === undefined) {
        chosen = (await liveGrants(accountId)).filter((g) => g.clientId === t.clientId);
      } else {
        throw new TypeError('target must be { clientId: string } or { grantId: string }');
      }
      await Promise.all(chosen.map(revokeGrant));
      return chosen.length;
    },
  });
}
