/**
 * Client ID Metadata Documents: which hosts are trusted to publish them, and what a client
 * described by one may hold before a site operator has reviewed it (spec §2.2, §8).
 *
 * - A document is fetched only from an allowlisted host, or from any host when registration
 *   is open (`allowedHosts` is then `null`).
 * - Until reviewed, such a client may hold read scopes (`*:read`) and identity scopes only.
 *
 * The fetch is the library's (lib/cimd: special-use addresses refused before connecting,
 * fetch budgets, a cache shared by every instance), within oidc-provider's timeout and size
 * check; `allowFetch` runs the fetch guard once the host is allowed.
 *
 * @module
 */
import { PROTOCOL, PUBLIC_CLIENT_AUTH_METHOD } from '../constants.ts';
import { findScope, SCOPES } from '../scopes/catalogue.ts';

/** oidc-provider's limit for a document body, also applied by the shared cache. */
export const DOCUMENT_BODY_LIMIT = 5 * 1024;

/** Seconds a document may be cached: oidc-provider's bounds, applied by the shared cache too. */
export const DOCUMENT_CACHE_SECONDS = Object.freeze({ min: 30, max: 86400 });

/**
 * Whether documents from the host of `clientId` may be fetched at all; `null`: every host.
 * By host and port: an entry without a port is the https default, 443 (as `URL.host` writes
 * it), never "any port": whoever runs another port of an allowed host (a tenant of a shared
 * host, a development server) is not the host's owner.
 */
export function documentHostAllowed(clientId: string, allowedHosts: ReadonlySet<string> | null): boolean {
  if (allowedHosts === null) return true;
  const url = URL.parse(clientId);
  return url !== null && allowedHosts.has(url.host);
}

/** Whether an unreviewed metadata-document client may hold `scope`: read and identity scopes only. */
export function unreviewedMayHold(scope: string): boolean {
  const access = findScope(scope)?.access;
  return access === 'identity' || access === 'read';
}

/** Every scope an unreviewed metadata-document client may hold, in catalogue order. */
export const UNREVIEWED_DOCUMENT_SCOPES: readonly string[] = Object.freeze(
  SCOPES.filter((s) => unreviewedMayHold(s.name)).map((s) => s.name),
);

export interface MetadataDocumentTrust {
  readonly enabled: boolean;
  /** `null`: every host */
  readonly allowedHosts: ReadonlySet<string> | null;
}

/**
 * oidc-provider's `features.clientIdMetadataDocument` for this trust setting. `guard` runs
 * before a fetch from an allowed host and throws the error that answers instead
 * (lib/cimd/guard.ts).
 */
export function metadataDocumentFeature<C>(trust: MetadataDocumentTrust, guard?: (ctx: C, clientId: string) => Promise<void>) {
  return {
    enabled: trust.enabled,
    ack: 'draft-02' as const,
    allowFetch: async (ctx: C, clientId: string) => {
      if (!documentHostAllowed(clientId, trust.allowedHosts)) return false;
      await guard?.(ctx, clientId);
      return true;
    },
    allowClient: async () => true,
    cacheDuration: { ...DOCUMENT_CACHE_SECONDS },
  };
}

/**
 * oidc-provider's words for a document it refused, as its author needs them. A document
 * without `token_endpoint_auth_method` gets the default method, which needs a secret, and the
 * provider's schema check says "client_secret is mandatory property" before any rule of this
 * library sees it: to the author of a document, which may never hold a secret, that reads as
 * the opposite of the fix. The provider says the same of an HMAC algorithm (`HS256`) or
 * symmetric encryption named in a document that does say `none`, so the words name both
 * causes (the description is all that is known here).
 */
export function documentRefusalWords(description: string): string {
  if (description === 'client_secret is mandatory property') {
    return `a client ID metadata document holds no secret: token_endpoint_auth_method must be "${PUBLIC_CLIENT_AUTH_METHOD}" (leaving it out means ${PROTOCOL.defaultTokenEndpointAuthMethod}), and no algorithm may be HMAC (HS256, HS384, HS512) or symmetric encryption, each of which needs a client_secret`;
  }
  return description;
}
