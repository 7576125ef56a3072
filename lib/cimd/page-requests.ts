/**
 * The request a client lookup is made for when oidc-provider is not serving it: the sign-in
 * and consent pages (interactions/router.ts) and a host's own sign-in page
 * (interactions/host-sign-in.ts) look their interaction's client up from the host app, where
 * oidc-provider's `Provider.ctx` is unset. Without a request the fetch guard charges no budget
 * (lib/cimd/guard.ts: a lookup outside one is a token check), so once the cached copies were
 * old every load of an hour-long interaction page fetched the document again for free. Run in
 * {@link lookingUpFor}, such a lookup is charged to the page's caller like any other request.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What the fetch guard (./guard.ts) reads of a request: oidc-provider's Koa context, or a page's. */
export interface FetchRequestContext {
  readonly req: { readonly socket: { readonly remoteAddress?: string | undefined } };
  get(field: string): string;
  set(field: string, value: string): void;
}

const pages = new AsyncLocalStorage<FetchRequestContext>();

/** Runs `lookup` (a `Client.find`) as made for `request`. */
export function lookingUpFor<T>(request: FetchRequestContext, lookup: () => Promise<T>): Promise<T> {
  return pages.run(request, lookup);
}

/** The page request a lookup is made for, if any. */
export function pageRequest(): FetchRequestContext | undefined {
  return pages.getStore();
}
