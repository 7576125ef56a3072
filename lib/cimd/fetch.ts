/**
 * The fetch oidc-provider uses for client ID metadata documents, with a cache shared by
 * every instance on the same storage: N instances behind a load balancer fetch a document
 * once per cache period, not N times.
 *
 * oidc-provider keeps its own SSRF protection, timeout and size check around this: it
 * passes its SSRF-safe `dispatcher` and timeout `signal` in `init`, and checks the size of
 * what we return again. What is cached is the document's body after the same size limit,
 * for as long as its `Cache-Control`/`Expires` say within the provider's bounds; failures
 * (network errors, non-200 answers, oversized bodies) are cached for the lower bound so a
 * broken or hostile host is not fetched on every request.
 *
 * @module
 */
import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import type { MetadataDocumentFetch } from '../config/options.ts';

export interface DocumentCacheOptions {
  readonly adapter: AdapterFactory;
  /** the request itself; oidc-provider's default is the global fetch */
  readonly fetch?: MetadataDocumentFetch | undefined;
  /** bytes; oidc-provider's `fetchResponseBodyLimits['client_id metadata document']` */
  readonly bodyLimit: number;
  /** seconds; oidc-provider's `clientIdMetadataDocument.cacheDuration` */
  readonly cacheDuration: { readonly min: number; readonly max: number };
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

export function createDocumentFetch(options: DocumentCacheOptions): MetadataDocumentFetch {
  const store: Adapter = options.adapter('ClientMetadataDocument');
  const request: MetadataDocumentFetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init as RequestInit));

  async function remember(url: string, entry: Omit<CachedDocument, 'storedAt'>): Promise<void> {
    try {
      await store.upsert(url, { ...entry, storedAt: Date.now() }, entry.maxAge);
    } catch {
      // the cache is an optimisation; storage trouble shows up where storage is required
    }
  }

  return async function fetchMetadataDocument(url, init) {
    if ((init.method ?? 'GET') !== 'GET') return request(url, init);

    let cached: CachedDocument | undefined;
    try {
      cached = (await store.find(url)) as CachedDocument | undefined;
    } catch {
      cached = undefined;
    }
    if (cached) {
      if (cached.body === undefined) throw new Error(`cached failure: ${cached.failure ?? 'fetch failed'}`);
      const left = Math.max(0, cached.maxAge - Math.floor((Date.now() - cached.storedAt) / 1000));
      return new Response(cached.body, {
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': `max-age=${left}` },
      });
    }

    const failFor = options.cacheDuration.min;
    let response: Response;
    try {
      response = await request(url, init);
    } catch (err) {
      await remember(url, { failure: 'fetch failed', maxAge: failFor });
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
  };
}
