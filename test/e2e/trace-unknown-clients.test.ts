/**
 * What anonymous requests naming client ID metadata-document URLs leave in the trace
 * (lib/trace/store.ts): such a URL names no client until someone signs in with it, so its
 * trace is kept at most an hour and held to the per-instance budget of unknown clients,
 * whether its URL answered a document (anyone can publish one at as many URLs as they like) or
 * any page at all (a public site's articles), never the week of a known client's.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import type { MetadataDocumentFetch } from '../../lib/index.ts';
import { TRACE_MODEL, UNKNOWN_CLIENT_TRACE_TTL_S } from '../../lib/trace/store.ts';
import { UNKNOWN_CLIENT_BUDGET } from '../../lib/trace/recorder.ts';
import { eventually } from '../support/eventually.ts';
import { ADMIN, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import { publicClientDocument } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';

/** The memory adapter, with the lifetime of every trace write by client (it writes by compare-and-set). */
function recordingAdapter() {
  const inner = createMemoryAdapter();
  const ttls = new Map<string, number | undefined>();
  const factory = Object.assign((model: string): Adapter => {
    const adapter = inner(model) as Adapter & CompareAndSet;
    if (model !== TRACE_MODEL) return adapter;
    const compareAndSet = adapter.compareAndSet.bind(adapter);
    const upsert = adapter.upsert.bind(adapter);
    return Object.assign(adapter, {
      compareAndSet(id: string, expected: AdapterPayload | undefined, payload: AdapterPayload | undefined, expiresIn?: number) {
        ttls.set(id, expiresIn);
        return compareAndSet(id, expected, payload, expiresIn);
      },
      upsert(id: string, payload: AdapterPayload, expiresIn: number) {
        ttls.set(id, expiresIn);
        return upsert(id, payload, expiresIn);
      },
    });
  }, inner) as AdapterFactory;
  return { factory, ttls };
}

/** Any public page: 200, HTML, no document. */
const publicPage: MetadataDocumentFetch = async () => new Response('<!doctype html><title>news</title><p>hello</p>', { status: 200, headers: { 'content-type': 'text/html' } });
/** A publisher of valid documents, one at every URL of its host. */
const publisher: MetadataDocumentFetch = async (url) => Response.json(publicClientDocument(String(url)));

async function authorizeWith(fetcher: MetadataDocumentFetch, clientIds: readonly string[], addresses = false, redirectUri = 'http://127.0.0.1:5555/callback') {
  const { factory, ttls } = recordingAdapter();
  // open registration: any client_id URL may be tried, from any host
  const app = await startApp({ auth: { adapter: factory, proxy: true, registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: fetcher } } });
  try {
    for (const [i, clientId] of clientIds.entries()) {
      const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri }, { scope: 'openid', challenge: pkcePair().challenge });
      // each from its own address when asked: every caller well inside its own fetch budget
      const res = await fetch(url, { redirect: 'manual', headers: addresses ? { 'x-forwarded-for': `198.51.100.${(i % 250) + 1}` } : {} });
      await res.text();
    }
  } finally {
    await app.stop();
  }
  return clientIds.map((id) => ttls.get(id));
}

it('a client_id URL answering a page that is no document: traced for the hour of unknown clients, not the week', async () => {
  const written = await authorizeWith(publicPage, Array.from({ length: 10 }, (_, i) => `https://news.example/article?id=${i}`));
  expect(written.every((ttl) => ttl !== undefined && ttl <= UNKNOWN_CLIENT_TRACE_TTL_S)).toBe(true);
});

it('valid documents nobody signed in with: the hour too, and at most the unknown-client budget of them from many addresses', async () => {
  const ids = Array.from({ length: UNKNOWN_CLIENT_BUDGET + 30 }, (_, i) => `https://publisher.example/doc-${i}.json`);
  const written = await authorizeWith(publisher, ids, true);
  const traced = written.filter((ttl) => ttl !== undefined);
  expect(traced.length).toBeGreaterThan(0);
  expect(traced.length).toBeLessThanOrEqual(UNKNOWN_CLIENT_BUDGET);
  expect(traced.every((ttl) => ttl! <= UNKNOWN_CLIENT_TRACE_TTL_S)).toBe(true);
});

it('valid documents refused for their redirect_uri (authorization.failed names the fetched client): still the hour, within the budget', async () => {
  // five hosts, so the per-host fetch budget does not stop them first; nobody signs in with any
  const ids = Array.from({ length: UNKNOWN_CLIENT_BUDGET + 30 }, (_, i) => `https://h${i % 5}.publisher.example/doc-${i}.json`);
  const written = await authorizeWith(publisher, ids, true, 'http://127.0.0.1/not-registered');
  const traced = written.filter((ttl) => ttl !== undefined);
  expect(traced.length).toBeGreaterThan(0);
  expect(traced.length).toBeLessThanOrEqual(UNKNOWN_CLIENT_BUDGET);
  expect(traced.every((ttl) => ttl! <= UNKNOWN_CLIENT_TRACE_TTL_S)).toBe(true);
});

describe('self-registered clients (open registration): anyone can make one, so its trace is held as an unknown client\'s until it is used', () => {
  it('a registered client with refused authorizations (long redirect URIs): the hour, not the week; once someone signed in with it, the week', async () => {
    const { factory, ttls } = recordingAdapter();
    const app = await startApp({ auth: { adapter: factory, registration: { variant: 'open', rateLimit: false } } });
    try {
      const redirectUri = 'http://127.0.0.1:5555/callback';
      const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Agent', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
      });
      expect(res.status).toBe(201);
      const { client_id: clientId } = await res.json() as { client_id: string };
      expect(clientId).toMatch(/^dcr_[A-Za-z0-9_-]{22}$/);
      for (let i = 0; i < 20; i += 1) {
        const bad = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: `https://evil.example/${'x'.repeat(300)}${i}` }, { scope: 'openid', challenge: pkcePair().challenge });
        await (await fetch(bad, { redirect: 'manual' })).text();
      }
      await eventually(async () => ttls.get(clientId), (ttl) => ttl !== undefined);
      expect(ttls.get(clientId)).toBeLessThanOrEqual(UNKNOWN_CLIENT_TRACE_TTL_S);

      // in use: a sign-in and a code
      await obtainTokens(app.baseUrl, { clientId, redirectUri }, { scope: 'openid' }, ADMIN);
      await eventually(async () => ttls.get(clientId), (ttl) => ttl !== undefined && ttl > UNKNOWN_CLIENT_TRACE_TTL_S, { timeoutMs: 5000 });
      expect(ttls.get(clientId)).toBeGreaterThan(UNKNOWN_CLIENT_TRACE_TTL_S);
    } finally {
      await app.stop();
    }
  });
});
