/**
 * Which client ID metadata documents belong to clients that hold tokens: a document URL is
 * marked known each time tokens are issued to its client (a code exchange, a refresh), for
 * as long as a token of that client may still be used (the grant's and the refresh token's
 * lifetimes). The fetch guard (./guard.ts) charges a known URL's fetch to its caller only,
 * never to its host: junk client_ids on a host spend that host's budget, and the host's own
 * clients, coming back for a refresh or a sign-in once their cached copy is old, must not
 * pay for them.
 *
 * Marked on issuance, not on fetch: a document anyone can publish (a JSON object naming its
 * URL) is not a client until a person authorized it, and what anonymous requests make the
 * shared store keep stays bounded by the cache's hour (./fetch.ts).
 *
 * @module
 */
import type Provider from 'oidc-provider';

import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import { isMetadataDocumentId } from '../policies/client-metadata.ts';
import { DOCUMENT_CACHE_MODEL } from './fetch.ts';

/** The key of a known URL, beside the cached documents; never a URL's (those begin with `https://`). */
const knownKey = (url: string) => `known:${url}`;

export interface KnownDocuments {
  /** Whether tokens were issued to the client of `url` within the lifetimes given. */
  known(url: string): Promise<boolean>;
  /** Marks `url` known (again); best effort: a lost mark makes its next fetch spend its host's budget. */
  mark(url: string): Promise<void>;
}

export function createKnownDocuments(adapter: AdapterFactory, seconds: number): KnownDocuments {
  const store: Adapter = adapter(DOCUMENT_CACHE_MODEL);
  return {
    async known(url) {
      try {
        return (await store.find(knownKey(url))) !== undefined;
      } catch {
        // storage trouble: charged as unknown, and storage answers where it is required
        return false;
      }
    },
    async mark(url) {
      try {
        await store.upsert(knownKey(url), { at: Date.now() }, seconds);
      } catch {
        // best effort, as the cache
      }
    },
  };
}

/** Marks a document client's URL known whenever `provider` issues it tokens (`grant.success`). */
export function markKnownOnIssuance(provider: Provider, documents: Pick<KnownDocuments, 'mark'>): void {
  provider.on('grant.success', (ctx: { oidc?: { client?: { clientId?: string } } }) => {
    const clientId = ctx.oidc?.client?.clientId;
    // not awaited: the answer is the provider's; a lost mark only costs a budget later
    if (isMetadataDocumentId(clientId)) void documents.mark(clientId);
  });
}
