/**
 * The fetch oidc-provider uses for client ID metadata documents, with a cache shared by
 * every instance on the same storage: N instances behind a load balancer fetch a document
 * once per cache period, not N times.
 *
 * The request itself is lib/cimd/pinned-request.ts (special-use addresses refused before
 * connecting, the connection pinned to the checked address); oidc-provider still sets its
 * timeout `signal` in `init` and checks the size of what we return again. What is cached is
 * the document's body after the same size limit, for as long as its `Cache-Control`/`Expires`
 * say within the provider's bounds; failures (network errors, non-200 answers, oversized
 * bodies) are cached for `failureSeconds` so a broken or hostile host is not fetched on every
 * request, and a host refused for its address is remembered as refused for as long, whatever
 * document on it is asked for next. Requests that ask for a URL while it is being fetched
 * share that fetch.
 *
 * Events: a document fetched from its host (not one answered from the cache) is
 * `metadata_document.fetched`, for the request whose client lookup fetched it (oidc-provider's
 * `Provider.ctx`). A failure is reported by lib/events/provider-events.ts from the error
 * oidc-provider answers with; a failure answered from the cache carries the `reason` the
 * fetch's own failure had (lib/events/metadata-document-failure.ts), so a host that does not
 * resolve is `dns` on the second request too, not a vague `network`.
 *
 * @module
 */
import Provider from 'oidc-provider';

import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import type { MetadataDocumentFetch } from '../config/options.ts';
import { diagnosticsOf } from '../events/diagnostics.ts';
import { fetchFailureOf } from '../events/metadata-document-failure.ts';
import { printable } from '../events/printable.ts';
import type { MetadataDocumentFailure } from '../events/types.ts';
import {
  LookupsBusyError, SpecialUseAddressError, createPinnedRequest, pinAddress, rememberingResolver, systemResolver,
} from './pinned-request.ts';
import type { Resolver } from './pinned-request.ts';

export interface DocumentCacheOptions {
  readonly adapter: AdapterFactory;
  /** the request itself; by default {@link createPinnedRequest} */
  readonly fetch?: MetadataDocumentFetch | undefined;
  /** the resolver of the default request; by default {@link systemResolver} */
  readonly resolve?: Resolver | undefined;
  /** bytes; oidc-provider's `fetchResponseBodyLimits['client_id metadata document']` */
  readonly bodyLimit: number;
  /** seconds; oidc-provider's `clientIdMetadataDocument.cacheDuration` */
  readonly cacheDuration: { readonly min: number; readonly max: number };
  /** seconds a failure, or a host refused for its address, is remembered; by default `cacheDuration.min` */
  readonly failureSeconds?: number | undefined;
}

/** The document fetch, and what the fetch guard (lib/cimd/guard.ts) asks of its cache. */
export interface DocumentFetch extends MetadataDocumentFetch {
  /** Whether the cache answers for `url` (a document, or a remembered failure): no fetch would happen. */
  cached(url: string): Promise<boolean>;
  /** What was wrong with `hostname` when it was refused for its address lately, if it was. */
  refusedHost(hostname: string): Promise<string | undefined>;
  /**
   * Resolves `hostname` as the next fetch will (the answer is remembered for it) and throws
   * {@link SpecialUseAddressError} when it is refused, remembering the refusal. Does nothing
   * with a replacement `fetch`, which resolves by itself.
   */
  checkHost(hostname: string, signal?: AbortSignal): Promise<void>;
  /** Remembers `error` as the failure of `url`, as a fetch that failed with it would; returns it. */
  failed(url: string, error: unknown): Promise<unknown>;
}

interface CachedDocument {
  /** the body, or absent for a cached failure */
  body?: string;
  failure?: string;
  /** why the fetch failed, for a cached failure */
  reason?: MetadataDocumentFailure;
  storedAt: number;
  maxAge: number;
}

/** Seconds the response may be cached for, bounded like oidc-provider bounds it. */
export function cacheSeconds(response: Response, { min, max }: { min: number; max: number }): number {
  let seconds: number | undefined;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(response.headers.get('cache-control') ?? '');
  if (maxAge) seconds = Number.parseInt(maxAge[1]!, 10);
  else {
    const expires = Date.parse(response.headers.get('expires') ?? '');
    if (!Number.isNaN(expires)) seconds = Math.floor((expires - Date.now()) / 1000);
  }
  return Math.max(min, Math.min(max, seconds ?? min));
}

const tooLarge = () => Object.assign(new Error('response too large'), { reason: 'size' satisfies MetadataDocumentFailure });

async function readLimited(response: Response, limit: number): Promise<Buffer> {
  const declared = Number.parseInt(response.headers.get('content-length') ?? '', 10);
  if (declared > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let received = 0;
  if (!response.body) return Buffer.alloc(0);
  // leaving the loop cancels the stream (`cancel()` itself would throw: the loop holds its lock)
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    received += chunk.length;
    if (received > limit) break;
    chunks.push(Buffer.from(chunk));
  }
  if (received > limit) throw tooLarge();
  return Buffer.concat(chunks);
}

/** The error of a failure answered from the cache: the fetch's reason, its status in the message. */
function cachedFailure(cached: CachedDocument): Error {
  const error = new Error(`cached failure: ${cached.failure ?? 'fetch failed'}`);
  // "status 404" is read from the message, with its number; the other reasons are said
  // outright, and a document refused for its content keeps the words it was refused with
  if (cached.reason === undefined || cached.reason === 'status') return error;
  return Object.assign(error, { reason: cached.reason, ...(cached.reason === 'invalid_content' && cached.failure ? { description: cached.failure } : {}) });
}

/** Reports a document fetched from its host, for the request that needed it. */
function fetched(url: string): void {
  const ctx = Provider.ctx;
  const diagnostics = diagnosticsOf(ctx);
  // printable, as the other events name a document's client (provider-events.ts): oidc-provider
  // fetches a client_id URL holding C1 controls or U+2028/9 before its schema refuses the id
  if (diagnostics?.wants('metadata_document.fetched')) diagnostics.emit({ name: 'metadata_document.fetched', clientId: printable(url) }, ctx);
}

/**
 * The longest a document stays in the shared store, whatever its host asks (up to
 * `cacheDuration.max`): the store is shared by every instance and written for anonymous
 * requests, so what one caller can make it keep is bounded by this times the fetch budget.
 * The answer still carries the host's lifetime for oidc-provider's own copy.
 */
export const SHARED_CACHE_MAX_SECONDS = 3600;

/**
 * Why `text` is no metadata document of `url` (in oidc-provider's words, which the trace
 * repeats when the failure is answered from the cache), or `undefined` when it is one: a JSON
 * object naming `url` as its `client_id`.
 */
function notADocumentOf(text: string, url: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'client_id metadata document is not valid JSON';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'client_id metadata document is not a JSON object';
  if ((parsed as { client_id?: unknown }).client_id !== url) return 'client_id metadata document client_id does not match the expected value';
  return undefined;
}

/** The storage model of the shared cache. */
export const DOCUMENT_CACHE_MODEL = 'ClientMetadataDocument';

/** What one fetch of a document URL came to, shared by the requests that asked for it meanwhile. */
type Fetched =
  | { readonly body: string; readonly contentType: string; readonly maxAge: number }
  | { readonly status: number }
  | { readonly error: unknown };

/** The cache key of a refused host; never a URL's (those begin with `https://`). */
const hostKey = (hostname: string) => `refused-host:${hostname.toLowerCase().replace(/\.+$/, '')}`;

export function createDocumentFetch(options: DocumentCacheOptions): DocumentFetch {
  const store: Adapter = options.adapter(DOCUMENT_CACHE_MODEL);
  const resolve = options.fetch ? undefined : rememberingResolver(options.resolve ?? systemResolver);
  const request: MetadataDocumentFetch = options.fetch ?? createPinnedRequest({ resolve });
  const failFor = options.failureSeconds ?? options.cacheDuration.min;
  /** the fetches under way in this instance, by URL */
  const inFlight = new Map<string, Promise<Fetched>>();

  async function find(key: string): Promise<CachedDocument | undefined> {
    try {
      return ((await store.find(key)) ?? undefined) as CachedDocument | undefined;
    } catch {
      return undefined;
    }
  }

  async function remember(url: string, entry: Omit<CachedDocument, 'storedAt'>): Promise<void> {
    try {
      await store.upsert(url, { ...entry, storedAt: Date.now() }, entry.maxAge);
    } catch {
      // the cache is an optimisation; storage trouble shows up where storage is required
    }
  }

  async function fetchMetadataDocument(url: string, init: Parameters<MetadataDocumentFetch>[1]): Promise<Response> {
    if ((init.method ?? 'GET') !== 'GET') return request(url, init);

    const cached = await find(url);
    if (cached) {
      if (cached.body === undefined) throw cachedFailure(cached);
      const left = Math.max(0, cached.maxAge - Math.floor((Date.now() - cached.storedAt) / 1000));
      return new Response(cached.body, {
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': `max-age=${left}` },
      });
    }

    // one fetch at a time per URL in this instance: the requests asking for it meanwhile
    // (a client's tabs, a burst of junk) share its outcome, each with a Response of its own
    let pending = inFlight.get(url);
    if (!pending) {
      pending = fetchOnce(url, init).finally(() => inFlight.delete(url));
      inFlight.set(url, pending);
    }
    const outcome = await pending;
    if ('error' in outcome) throw outcome.error;
    if ('status' in outcome) return new Response(null, { status: outcome.status });
    return new Response(outcome.body, {
      status: 200,
      headers: { 'content-type': outcome.contentType, 'cache-control': `max-age=${outcome.maxAge}` },
    });
  }

  /** A fetch of `url` that failed with `error` (its reason kept for the events), remembered. */
  function rememberFailure(url: string, error: unknown): Promise<void> {
    return remember(url, { failure: 'fetch failed', reason: fetchFailureOf(error).reason, maxAge: failFor });
  }

  /** Fetches `url` from its host and remembers the outcome; never rejects (the error is the outcome). */
  async function fetchOnce(url: string, init: Parameters<MetadataDocumentFetch>[1]): Promise<Fetched> {
    let response: Response;
    try {
      response = await request(url, init);
    } catch (err) {
      // too many lookups under way in this process: not the document's failure
      if (err instanceof LookupsBusyError) return { error: err };
      await rememberFailure(url, err);
      if (err instanceof SpecialUseAddressError) await remember(hostKey(err.hostname), { failure: err.summary, maxAge: failFor });
      return { error: err };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      await remember(url, { failure: `status ${response.status}`, reason: 'status', maxAge: failFor });
      return { status: response.status };
    }
    let body: Buffer;
    try {
      body = await readLimited(response, options.bodyLimit);
    } catch (err) {
      await remember(url, { failure: 'response too large or interrupted', reason: fetchFailureOf(err).reason, maxAge: failFor });
      return { error: err };
    }
    const maxAge = cacheSeconds(response, options.cacheDuration);
    const text = body.toString('utf8');
    // Kept for the next request only when it is this URL's document: a body anyone may serve
    // (the fetch budget bounds a rate, not what is kept) would otherwise stay in the shared
    // store as long as its host asked. A refused body is remembered as a failure, briefly;
    // oidc-provider refuses it this time with its own words
    const refused = notADocumentOf(text, url);
    if (refused === undefined) {
      await remember(url, { body: text, maxAge: Math.min(maxAge, SHARED_CACHE_MAX_SECONDS) });
      // a document fetched: a body that is none is a failure, reported as such when refused
      fetched(url);
    } else await remember(url, { failure: refused, reason: 'invalid_content', maxAge: failFor });
    return { body: text, contentType: response.headers.get('content-type') ?? 'application/json', maxAge };
  }

  async function checkHost(hostname: string, signal?: AbortSignal): Promise<void> {
    if (!resolve) return;
    try {
      await pinAddress(hostname, resolve, signal);
    } catch (err) {
      if (err instanceof SpecialUseAddressError) await remember(hostKey(err.hostname), { failure: err.summary, maxAge: failFor });
      throw err;
    }
  }

  return Object.assign(fetchMetadataDocument, {
    async failed(url: string, error: unknown) {
      await rememberFailure(url, error);
      return error;
    },
    cached: async (url: string) => (await find(url)) !== undefined,
    refusedHost: async (hostname: string) => (await find(hostKey(hostname)))?.failure,
    checkHost,
  });
}
