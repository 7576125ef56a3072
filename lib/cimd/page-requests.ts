/**
 * The request a client lookup is made for when oidc-provider is not serving it: the sign-in
 * and consent pages (interactions/router.ts) and a host's own sign-in page
 * (interactions/host-sign-in.ts) look their interaction's client up from the host app, where
 * oidc-provider's `Provider.ctx` is unset. Without a request the fetch guard charges no budget
 * (lib/cimd/guard.ts: a lookup outside one is a token check), so once the cached copies were
 * old every load of an hour-long interaction page fetched the document again for free. Run in
 * {@link PageRequests.lookingUpFor}, such a lookup is charged to the page's caller like any other request.
 *
 * By client id, not with an AsyncLocalStorage of its own: a second one, once used, makes
 * every promise of the process pay the runtime's promise hooks twice (measured: +9% of the
 * instructions of a revocation). Pages that look one client up at once share its one fetch
 * (oidc-provider fetches a URL once at a time), which is charged to the first of them.
 *
 * @module
 */
import { isMetadataDocumentId } from '../policies/client-metadata.ts';

/** What the fetch guard (./guard.ts) reads of a request: oidc-provider's Koa context, or a page's. */
export interface FetchRequestContext {
  readonly req: { readonly socket: { readonly remoteAddress?: string | undefined } };
  get(field: string): string;
  set(field: string, value: string): void;
}

/** Which page request each client lookup made outside oidc-provider's requests is made for. */
export interface PageRequests {
  /** Runs `lookup` (a `Client.find` of `clientId`) as made for `request`. */
  lookingUpFor<T>(request: FetchRequestContext, clientId: string, lookup: () => Promise<T>): Promise<T>;
  /** The page request a lookup of `clientId` is made for, if any. */
  pageRequest(clientId: string): FetchRequestContext | undefined;
}

/**
 * One per library instance (the composition root makes it, the pages and the fetch guard share
 * it): two instances in one process (two schools, or old and new during a deploy) that look
 * one client up at once must not charge one's page fetch to the other's caller.
 */
export function createPageRequests(): PageRequests {
  /** client id → the page requests looking it up now, oldest first */
  const lookingUp = new Map<string, FetchRequestContext[]>();
  return {
    lookingUpFor(request, clientId, lookup) {
      // only a metadata document's client can be fetched, and only a fetch asks whose lookup
      // it is: any other client (every page of a configured or registered one) is looked up
      // as it is, without an async frame
      return isMetadataDocumentId(clientId) ? track(request, clientId, lookup) : lookup();
    },
    pageRequest: (clientId) => lookingUp.get(clientId)?.[0],
  };

  async function track<T>(request: FetchRequestContext, clientId: string, lookup: () => Promise<T>): Promise<T> {
    let requests = lookingUp.get(clientId);
    if (!requests) lookingUp.set(clientId, (requests = []));
    requests.push(request);
    try {
      return await lookup();
    } finally {
      requests.splice(requests.indexOf(request), 1);
      if (requests.length === 0 && lookingUp.get(clientId) === requests) lookingUp.delete(clientId);
    }
  }
}
