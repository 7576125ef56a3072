/**
 * What runs before oidc-provider fetches a client ID metadata document (its
 * `clientIdMetadataDocument.allowFetch`, which sees the request that names the client: the
 * authorization, token, revocation or introspection request):
 *
 * 1. A host that is special-use by name or literal address (`localhost`, `127.1`, `[::1]`,
 *    …) is refused at once with `invalid_client`, before any lookup or connection.
 * 2. A host refused for the address it resolved to within the last `failureCacheSeconds` is
 *    refused the same way, without resolving it again.
 * 3. A document the shared cache answers for (fetched, or a remembered failure) costs nothing.
 * 4. Otherwise the fetch spends the caller's and the host's budget (lib/cimd/budget.ts);
 *    over budget, the request is answered 429 `temporarily_unavailable` with `Retry-After`.
 *    The document of a client that was issued tokens within their lifetimes (./known-documents.ts)
 *    spends only the caller's: junk client_ids on a host spend that host's budget, and a
 *    host's own clients coming back for a refresh or a new sign-in once their cached copy is
 *    old must not pay for them.
 * 5. The host is resolved, and refused with `invalid_client` when any address it resolves
 *    to is special-use. The answer is kept for the fetch that follows, which connects to the
 *    address checked here without asking DNS again (lib/cimd/pinned-request.ts). A lookup
 *    that takes longer than oidc-provider's fetch timeout is a failed fetch at once
 *    (remembered as one); while every lookup slot is taken, the request is answered like an
 *    exhausted budget, and nothing is remembered.
 *
 * Why `temporarily_unavailable` and not `invalid_client`: the client_id may be perfectly good,
 * and only this service declines to fetch it now. `invalid_client` tells a client its
 * identity is wrong, and clients act on that by discarding it or registering anew, which
 * would turn a budget into an outage; `temporarily_unavailable` with `Retry-After` says "the
 * same request works later" (RFC 6749 §4.1.2.1). The status is 429 (RFC 6585 §4), as for
 * the registration limit (lib/registration/open.ts): it is a rate limit, and a 503 is the
 * library's word for a storage outage. It is shown on a page rather than redirected: the
 * client is not known.
 *
 * @module
 */
import { errors } from 'oidc-provider';

import type { ClientAddresses } from '../http/client-address.ts';
import { addressKeyOf } from '../policies/sign-in-throttle.ts';
import { specialUseHostOf } from '../policies/special-use-addresses.ts';
import { FetchBudget } from './budget.ts';
import type { FetchBudgetSettings } from './budget.ts';
import type { DocumentFetch } from './fetch.ts';
import type { KnownDocuments } from './known-documents.ts';
import type { FetchRequestContext, PageRequests } from './page-requests.ts';
import { LookupsBusyError, SpecialUseAddressError } from './pinned-request.ts';
import type { AdapterFactory } from '../../adapters/types.ts';

export type { FetchRequestContext } from './page-requests.ts';

export interface FetchGuardOptions {
  readonly adapter: AdapterFactory;
  /** `false`: no budget */
  readonly budget: FetchBudgetSettings | false;
  /** the document fetch, for its cache */
  readonly documents: Pick<DocumentFetch, 'cached' | 'refusedHost' | 'checkHost' | 'failed'>;
  /** the document URLs of clients holding tokens: their fetches spend no host budget */
  readonly known?: Pick<KnownDocuments, 'known'> | undefined;
  /** the instance's client addresses for limits (`options.proxy`, `options.proxyHops`; lib/http/client-address.ts) */
  readonly addresses: ClientAddresses;
  /** the instance's pages looking clients up in the host app (./page-requests.ts) */
  readonly pageRequests?: Pick<PageRequests, 'pageRequest'> | undefined;
  readonly now?: () => number;
}

/** How long the lookup before a fetch may take: oidc-provider's fetch timeout. */
const LOOKUP_TIMEOUT_MS = 2500;

/**
 * `Retry-After` when every lookup slot is taken (./pinned-request.ts `lookupSlots`): about
 * half the time a system resolver takes to give up on a name server that does not answer.
 */
const BUSY_RETRY_AFTER_S = 5;

/** Runs before a document fetch; throws the OAuth error that answers the request instead. */
export type FetchGuard = (ctx: FetchRequestContext | undefined, clientId: string) => Promise<void>;

/**
 * `invalid_client`, saying what is wrong with the host (`is special-use: …`, `resolves to a
 * special-use address: …`); `cause`, logged as `error_detail`, names the address.
 */
export function specialUseRefusal(summary: string, cause: Error): Error {
  return new errors.InvalidClient(
    `client_id metadata document host ${summary}; documents are fetched from public hosts only`,
    { cause },
  );
}

/**
 * 429 `temporarily_unavailable`, never redirected; the caller sets `Retry-After`. Its
 * description's start ("too many client_id metadata document fetches") is what makes it a
 * `metadata_document.failed` event with reason `over_budget` (lib/events/metadata-document-failure.ts).
 */
export function overBudget(exhausted: 'host' | 'caller' | 'lookups', retryAfter: number): Error {
  const who = { host: 'from this host', caller: 'for this client address', lookups: 'under way' }[exhausted];
  const err = new errors.TemporarilyUnavailable(
    `too many client_id metadata document fetches ${who}; try again in ${retryAfter} seconds`,
  );
  Object.assign(err, { status: 429, statusCode: 429, expose: true, allow_redirect: false });
  return err;
}

/** Whether `error` is {@link overBudget}'s refusal (the only 429 of a document lookup). */
export function isOverFetchBudget(error: unknown): boolean {
  const e = error as { status?: unknown; error?: unknown } | null | undefined;
  return typeof e === 'object' && e !== null && e.status === 429 && e.error === 'temporarily_unavailable';
}

export function createFetchGuard(options: FetchGuardOptions): FetchGuard {
  const budget = options.budget === false ? undefined : new FetchBudget(options.adapter, options.budget, options.now);
  const { documents, known, addresses, pageRequests } = options;

  return async function guardDocumentFetch(providerCtx, clientId) {
    // oidc-provider's request, or a page's lookup made in the host app (./page-requests.ts)
    const ctx = providerCtx ?? pageRequests?.pageRequest(clientId);
    const { hostname } = new URL(clientId);
    const byName = specialUseHostOf(hostname);
    if (byName !== undefined) {
      const cause = new SpecialUseAddressError(hostname, byName);
      throw specialUseRefusal(cause.summary, cause);
    }
    const remembered = await documents.refusedHost(hostname);
    if (remembered !== undefined) throw specialUseRefusal(remembered, new Error(`${hostname} ${remembered} (remembered)`));
    if (await documents.cached(clientId)) return;

    // Only a request names a caller to charge: a look-up outside one (the bearer check of an
    // issued token, once the cached copy is old) is bound by the tokens issued, and charging
    // the host for it would let anyone who spends a host's budget (with junk client_ids on
    // it) refuse the tokens of that host's clients
    if (budget && ctx) {
      const address = addresses.of(ctx, 'the metadata-document fetch budget');
      const host = (await known?.known(clientId)) ? undefined : hostname.toLowerCase().replace(/\.+$/, '');
      // a request whose address is unknown (its client reset the connection before it entered
      // the library; a Unix socket without \`proxy\`) is charged to one caller for all of them,
      // never to none: that was a way past the caller's budget
      const verdict = await budget.spend(host, addressKeyOf(address));
      if (!verdict.allowed) {
        ctx?.set('Retry-After', String(verdict.retryAfter));
        throw overBudget(verdict.exhausted, verdict.retryAfter);
      }
    }

    try {
      await documents.checkHost(hostname, AbortSignal.timeout(LOOKUP_TIMEOUT_MS));
    } catch (err) {
      if (err instanceof SpecialUseAddressError) throw specialUseRefusal(err.summary, err);
      // too many lookups under way (./pinned-request.ts): this service declines now, the
      // document may be fine, so nothing is remembered (a lookup outside a request, which
      // has no one to tell when to come back, is a failed fetch)
      if (err instanceof LookupsBusyError) {
        if (!ctx) throw fetchFailed(err);
        ctx.set('Retry-After', String(BUSY_RETRY_AFTER_S));
        throw overBudget('lookups', BUSY_RETRY_AFTER_S);
      }
      // the lookup ran out of time: refused now and remembered like a failed fetch, rather
      // than the fetch waiting for the same lookup on its own timeout (twice as long)
      if (isTimeout(err)) throw fetchFailed(await documents.failed(clientId, err));
      // a name that does not resolve: the fetch fails on it and its failure is remembered
    }
  };
}

/** oidc-provider's answer to a document that could not be fetched, with why as its cause. */
function fetchFailed(cause: unknown): Error {
  return new errors.InvalidClient('client_id metadata document fetch failed', { cause });
}

// the signal's reason, a DOMException: read by name, as it may come from another realm
const isTimeout = (err: unknown) => typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'TimeoutError';
