/**
 * Fetch budgets over real HTTP: per caller (its address read as `proxy` says) and per host,
 * documents already cached and remembered failures free, the window, and the answers over
 * budget: a 429 `temporarily_unavailable` page with `Retry-After` at the authorization
 * endpoint and the same as JSON at the token endpoint, never a 500, and nothing fetched.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import { DOCUMENT_CACHE_MODEL } from '../../lib/cimd/fetch.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { ENDPOINTS } from '../../lib/endpoints.ts';
import { buildAuthorizeUrl } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
const apps: RunningApp[] = [];
let counter = 0;

beforeAll(async () => { docs = await startDocumentServer(); });
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await docs.close();
});

type Budget = NonNullable<PlatformAuthOptions['clientIdMetadataDocuments']>['fetchBudget'];

/** Open registration (documents from any host) through the test document server. */
async function start(fetchBudget: Budget, extra: Partial<PlatformAuthOptions> = {}) {
  const app = await startApp({ auth: { registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: docs.fetch, fetchBudget }, ...extra } });
  apps.push(app);
  return app;
}

/** Publishes a fresh document on `host`; `status` other than 200 makes it a broken one. */
function publish(host: string, status = 200): { clientId: string; path: string } {
  counter += 1;
  const path = `/budget/app-${counter}.json`;
  const clientId = docs.url(host, path);
  docs.serve(path, {
    status,
    body: {
      client_id: clientId, client_name: 'Budget Agent', redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'],
    },
  });
  return { clientId, path };
}

async function authorize(app: RunningApp, clientId: string, from?: string) {
  const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5000/callback' }, { scope: 'openid', challenge: pkcePair().challenge });
  const res = await fetch(url, { redirect: 'manual', headers: from ? { 'x-forwarded-for': from } : {} });
  const page = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), location: res.headers.get('location'), error: /\b(?:invalid_client|temporarily_unavailable): [^<]*/.exec(page)?.[0] };
}

const OVER_CALLER = /^temporarily_unavailable: too many client_id metadata document fetches for this client address; try again in \d+ seconds$/;
const OVER_HOST = /^temporarily_unavailable: too many client_id metadata document fetches from this host; try again in \d+ seconds$/;

describe('per caller', () => {
  it('fetches a caller\'s first documents, serves them again from the cache, and refuses the next with 429 and Retry-After', async () => {
    const app = await start({ perCaller: 2, perHost: 100, windowSeconds: 60 });
    const [a, b, c] = [publish('tools.example'), publish('tools.example'), publish('other.example')];
    for (const doc of [a, b, a, b, a, b]) expect((await authorize(app, doc.clientId)).status).toBe(303);
    const refused = await authorize(app, c.clientId);
    expect(refused).toMatchObject({ status: 429, location: null });
    expect(refused.error).toMatch(OVER_CALLER);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect([docs.hits(a.path), docs.hits(b.path), docs.hits(c.path)]).toEqual([1, 1, 0]);
  });

  it('counts each client address apart behind a proxy, and ignores X-Forwarded-For without one', async () => {
    const direct = await start({ perCaller: 1, perHost: 100, windowSeconds: 60 });
    expect((await authorize(direct, publish('tools.example').clientId, '203.0.113.1')).status).toBe(303);
    // a client-written X-Forwarded-For is not a new caller
    expect((await authorize(direct, publish('tools.example').clientId, '203.0.113.2')).status).toBe(429);

    const proxied = await start({ perCaller: 1, perHost: 100, windowSeconds: 60 }, { proxy: true });
    expect((await authorize(proxied, publish('tools.example').clientId, '203.0.113.1')).status).toBe(303);
    expect((await authorize(proxied, publish('tools.example').clientId, '203.0.113.2')).status).toBe(303);
    expect((await authorize(proxied, publish('tools.example').clientId, '203.0.113.1')).error).toMatch(OVER_CALLER);
  });

  it('charges a broken document once: its failure is remembered, and asked again costs nothing', async () => {
    const app = await start({ perCaller: 2, perHost: 100, windowSeconds: 60 });
    const broken = publish('tools.example', 500);
    for (let i = 0; i < 4; i += 1) {
      expect(await authorize(app, broken.clientId)).toMatchObject({ status: 400, error: 'invalid_client: client_id metadata document fetch failed' });
    }
    expect(docs.hits(broken.path)).toBe(1);
    expect((await authorize(app, publish('tools.example').clientId)).status).toBe(303);
    expect((await authorize(app, publish('tools.example').clientId)).error).toMatch(OVER_CALLER);
  });

  it('gives the budget back when the window ends', async () => {
    const app = await start({ perCaller: 1, perHost: 100, windowSeconds: 1 });
    expect((await authorize(app, publish('tools.example').clientId)).status).toBe(303);
    const next = publish('tools.example');
    expect((await authorize(app, next.clientId)).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await authorize(app, next.clientId)).status).toBe(303);
  });
});

describe('a client that resets its connection right after sending', () => {
  /**
   * Every read takes 40 ms, as a remote store's round trips add up, and a read of the document
   * cache says when it starts: the request is then inside the library (the guard reads the
   * cache just before it reads the caller's address).
   */
  function slowReads(onCacheRead: (id: string) => void): AdapterFactory {
    const base = createMemoryAdapter();
    return Object.assign((name: string): Adapter => {
      const adapter = base(name);
      return new Proxy(adapter, {
        get(target, property, receiver) {
          if (property === 'find') {
            return async (id: string) => {
              if (name === DOCUMENT_CACHE_MODEL) onCacheRead(id);
              await sleep(40);
              return target.find(id);
            };
          }
          const value = Reflect.get(target, property, receiver) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    }, base);
  }

  it('is still charged to its address: the server goes on with the request, but fetches no more than the budget', async () => {
    /** client_id → what to do when the document cache is first read for it */
    const onRead = new Map<string, () => void>();
    const app = await start({ perCaller: 2, perHost: 100, windowSeconds: 60 }, { adapter: slowReads((id) => onRead.get(id)?.()) });
    /** Sends the authorization request and, once the server reads the document cache for it, resets the connection (a TCP RST). */
    const sendAndReset = (clientId: string) => new Promise<void>((resolve) => {
      const url = new URL(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5000/callback' }, { scope: 'openid', challenge: pkcePair().challenge }));
      const socket = connect(app.port, '127.0.0.1', () => socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`));
      socket.on('error', () => resolve());
      onRead.set(clientId, () => {
        onRead.delete(clientId);
        socket.resetAndDestroy();
        resolve();
      });
    });
    const sent = Array.from({ length: 8 }, () => publish('tools.example'));
    for (const doc of sent) await sendAndReset(doc.clientId);
    // the server finishes each request after its client is gone: wait until nothing more is fetched
    const fetched = () => sent.reduce((sum, doc) => sum + docs.hits(doc.path), 0);
    let last = -1;
    for (let i = 0; i < 30 && fetched() !== last; i += 1) {
      last = fetched();
      await sleep(300);
    }
    expect(fetched()).toBe(2);
    // and the address is over its budget for a request it waits for
    expect((await authorize(app, publish('tools.example').clientId)).error).toMatch(OVER_CALLER);
  });
});

describe('per host', () => {
  it('refuses a host over its budget whoever asks, and leaves other hosts alone', async () => {
    const app = await start({ perCaller: 100, perHost: 2, windowSeconds: 60 }, { proxy: true });
    const docsOnOther = [publish('other.example'), publish('other.example'), publish('other.example')];
    expect((await authorize(app, docsOnOther[0]!.clientId, '203.0.113.1')).status).toBe(303);
    expect((await authorize(app, docsOnOther[1]!.clientId, '203.0.113.2')).status).toBe(303);
    const refused = await authorize(app, docsOnOther[2]!.clientId, '203.0.113.3');
    expect(refused.status).toBe(429);
    expect(refused.error).toMatch(OVER_HOST);
    expect(docs.hits(docsOnOther[2]!.path)).toBe(0);
    expect((await authorize(app, publish('tools.example').clientId, '203.0.113.3')).status).toBe(303);
  });

  it('is shared by two instances on one storage', async () => {
    const { createMemoryAdapter } = await import('../../adapters/memory.ts');
    const adapter = createMemoryAdapter();
    const a = await start({ perCaller: 100, perHost: 2, windowSeconds: 60 }, { adapter });
    const b = await start({ perCaller: 100, perHost: 2, windowSeconds: 60 }, { adapter });
    expect((await authorize(a, publish('evil.example').clientId)).status).toBe(303);
    expect((await authorize(b, publish('evil.example').clientId)).status).toBe(303);
    expect((await authorize(a, publish('evil.example').clientId)).error).toMatch(OVER_HOST);
    expect((await authorize(b, publish('evil.example').clientId)).error).toMatch(OVER_HOST);
  });
});

describe('the token endpoint', () => {
  it('answers 429 temporarily_unavailable JSON with Retry-After over budget, never a 500', async () => {
    const app = await start({ perCaller: 1, perHost: 100, windowSeconds: 60 });
    expect((await authorize(app, publish('tools.example').clientId)).status).toBe(303);
    const res = await fetch(`${app.baseUrl}${ENDPOINTS.token.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code', code: 'x', code_verifier: pkcePair().verifier,
        redirect_uri: 'http://127.0.0.1:5000/callback', client_id: publish('tools.example').clientId,
      }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = await res.json() as { error: string; error_description: string };
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.error_description).toMatch(/too many client_id metadata document fetches for this client address/);
  });
});

describe('defaults and off', () => {
  it('fetches thirty documents for one caller by default and refuses the next; false turns budgets off', async () => {
    const limited = await start(undefined);
    for (let i = 0; i < 30; i += 1) expect((await authorize(limited, publish('tools.example').clientId)).status).toBe(303);
    expect((await authorize(limited, publish('tools.example').clientId)).error).toMatch(OVER_CALLER);

    const unlimited = await start(false);
    for (let i = 0; i < 31; i += 1) expect((await authorize(unlimited, publish('tools.example').clientId)).status).toBe(303);
  });
});
