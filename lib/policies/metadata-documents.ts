/**
 * Client ID Metadata Documents: which hosts are trusted to publish them, and what a client
 * described by one may hold before a site operator has reviewed it (spec §2.2, §8).
 *
 * - A document is fetched only from an allowlisted host, or from any host when registration
 *   is open (`allowedHosts` is then `null`).
 * - Until reviewed, such a client may hold read scopes (`*:read`) and identity scopes only.
 *
 * The fetch itself stays oidc-provider's (SSRF-safe dispatcher, timeout, size check); the
 * shared cache around it is lib/cimd/fetch.ts, bounded like the provider bounds it.
 *
 * @module
 */
import { findScope, SCOPES } from '../scopes/catalogue.ts';

/** oidc-provider's limit for a document body, also applied by the shared cache. */
export const DOCUMENT_BODY_LIMIT = 5 * 1024;

/** Seconds a document may be cached: oidc-provider's bounds, applied by the shared cache too. */
export const DOCUMENT_CACHE_SECONDS = Object.freeze({ min: 30, max: 86400 });

/** Whether documents from the host of `clientId` may be fetched at all; `null`: every host. */
export function documentHostAllowed(clientId: string, allowedHosts: ReadonlySet<string> | null): boolean {
  if (allowedHosts === null) return true;
  const url = URL.parse(clientId);
  return url !== null && (allowedHosts.has(url.host) || allowedHosts.has(url.hostname));
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

/** oidc-provider's `features.clientIdMetadataDocument` for this trust setting. */
export function metadataDocumentFeature(trust: MetadataDocumentTrust) {
  return {
    enabled: trust.enabled,
    ack: 'draft-02' as const,
    allowFetch: async (_ctx: unknown, clientId: string) => documentHostAllowed(clientId, trust.allowedHosts),
    allowClient: async () => true,
    cacheDuration: { ...DOCUMENT_CACHE_SECONDS },
  };
}
