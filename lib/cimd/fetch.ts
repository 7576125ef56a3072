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
 * document on it is asked for next.
 *
 * @module
 */
import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import type { MetadataDocumentFetch } from '../config/options.ts';
import {
  SpecialUseAddressError, createPinnedRequest, pinAddress, rememberingResolver, systemResolver,
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
}

interface CachedDocument {
  /** the body, or absent for a cached failure */
  body?: string;
  failure?: string;
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

async function readLimited(response: Response, limit: number): Promise<Buffer> {
  const declared = Number.parseInt(response.headers.get('content-length') ?? '', 10);
  if (declared > limit) {
    await response.body?.cancel();
    throw new Error('response too large');
  }
  const chunks: Buffer[] = [];
  let received = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    received += chunk.length;
    if (received > limit) {
      await response.body?.cancel();
      throw new Error('response too large');
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** The cache key of a refused host; never a URL's (those begin with `https://`). */
const hostKey = (hostname: string) => `refused-host:${hostname.toLowerCase().replace(/\.+$/, '')}`;

export function createDocumentFetch(options: DocumentCacheOptions): DocumentFetch {
  const store: Adapter = options.adapter('ClientMetadataDocument');
  const resolve = options.fetch ? undefined : rememberingResolver(options.resolve ?? systemResolver);
  const request: MetadataDocumentFetch = options.fetch ?? createPinnedRequest({ resolve });
  const failFor = options.failureSeconds ?? options.cacheDuration.min;

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
      if (cached.body === undefined) throw new Error(`cached failure: ${cached.failure ?? 'fetch failed'}`);
      const left = Math.max(0, cached.maxAge - Math.floor((Date.now() - cached.storedAt) / 1000));
      return new Response(cached.body, {
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': `max-age=${left}` },
      });
    }

    let response: Response;
    try {
      response = await request(url, init);
    } catch (err) {
      await remember(url, { failure: 'fetch failed', maxAge: failFor });
      if (err instanceof SpecialUseAddressError) await remember(hostKey(err.hostname), { failure: err.summary, maxAge: failFor });
      throw err;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      await remember(url, { failure: `status ${response.status}`, maxAge: failFor });
      return new Response(null, { status: response.status });
    }
    let body: Buffer;
    try {
      body = await readLimited(response, options.bodyLimit);
    } catch (err) {
      await remember(url, { failure: 'response too large or interrupted', maxAge: failFor });
      throw err;
    }
    const maxAge = cacheSeconds(response, options.cacheDuration);
    const text = body.toString('utf8');
    await remember(url, { body: text, maxAge });
    return new Response(text, {
      status: 200,
      headers: { 'content-type': response.headers.get('content-type') ?? 'application/json', 'cache-control': `max-age=${maxAge}` },
    });
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
    cached: async (url: string) => (await find(url)) !== undefined,
    refusedHost: async (hostname: string) => (await find(hostKey(hostname)))?.failure,
    checkHost,
  });
}
