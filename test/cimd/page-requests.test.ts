/**
 * A client ID metadata document fetched again for the sign-in and consent pages (they look
 * the interaction's client up in the host app, outside oidc-provider's requests) is charged to
 * the page's caller like a fetch at the authorization endpoint (lib/cimd/page-requests.ts):
 * an hour-long interaction page is no way around the fetch budget.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { Browser, isPage } from '../support/browser.ts';
import { buildAuthorizeUrl } from '../support/flows.ts';
import { publicClientDocument, startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const COOKIE_KEYS = ['page-requests-test-key-0123456789abcdefghij'];

let docs: DocumentServer;
const apps: RunningApp[] = [];
beforeAll(async () => { docs = await startDocumentServer(); });
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await docs.close();
});

/** Two instances of one issuer on shared storage, with a fetch budget of `perCaller` per address. */
async function instances(perCaller: number) {
  const adapter = createMemoryAdapter();
  const auth = {
    adapter, cookieKeys: COOKIE_KEYS, registration: { variant: 'open' as const },
    clientIdMetadataDocuments: { fetch: docs.fetch, fetchBudget: { perCaller, perHost: 100, windowSeconds: 3600 } },
  };
  const first = await startApp({ auth });
  const second = await startApp({ baseUrl: first.baseUrl, auth });
  apps.push(first, second);
  return { first, second, adapter };
}

/** Starts a sign-in on `first` and loads its page on `second`, which must fetch the document again. */
async function pageOnOtherInstance(path: string, perCaller: number) {
  const { first, second, adapter } = await instances(perCaller);
  const clientId = docs.url('tools.example', path);
  docs.serve(path, { body: publicClientDocument(clientId) });
  const browser = new Browser(first.baseUrl);
  const page = await browser.navigate(buildAuthorizeUrl(first.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid', challenge: pkcePair().challenge }));
  if (!isPage(page)) throw new Error('expected the sign-in page');
  expect(docs.hits(path)).toBe(1);
  // the shared copy expires; the second instance never loaded the document
  await adapter('ClientMetadataDocument').destroy(clientId);
  const cookie = ['_interaction', '_interaction.sig'].map((name) => `${name}=${browser.cookie(name)}`).join('; ');
  const res = await fetch(`http://127.0.0.1:${second.port}${new URL(page.url).pathname}`, { headers: { cookie, accept: 'text/html' } });
  return { res, html: await res.text() };
}

it('within the caller\'s budget: the page fetches the document again and shows the sign-in', async () => {
  const path = '/pages/within.json';
  const { res, html } = await pageOnOtherInstance(path, 5);
  expect(res.status).toBe(200);
  expect(html).toContain('name="password"');
  expect(docs.hits(path)).toBe(2);
});

it('over the caller\'s budget: a 429 page with Retry-After, and nothing fetched', async () => {
  const path = '/pages/over.json';
  const { res, html } = await pageOnOtherInstance(path, 1);
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(html).toContain("This application can't be checked right now".replace("'", '&#39;'));
  expect(docs.hits(path)).toBe(1);
});

it('two issuers in one process: a page lookup is charged to its own caller, not to the other issuer\'s', async () => {
  // two schools served from one process, each on its own storage and by two instances (the
  // page loads on the instance that did not start the sign-in, so it fetches the document
  // again), the same agent's document; one school's page lookup is held in its fetch while
  // the other school's page looks the same client up
  const path = '/pages/two-issuers.json';
  let hold: Promise<void> | undefined;
  let release = () => {};
  let held = () => {};
  const fetchHeld = new Promise<void>((resolve) => { held = resolve; });
  const heldFetch: typeof docs.fetch = async (url, init) => {
    if (hold) {
      held();
      await hold;
    }
    return docs.fetch(url, init);
  };
  const clientId = docs.url('tools.example', path);
  docs.serve(path, { body: publicClientDocument(clientId) });

  /** A school's two instances; returns the page of a sign-in started on the first, as loaded on the second. */
  async function school(perCaller: number, fetchOnSecond: typeof docs.fetch) {
    const adapter = createMemoryAdapter();
    const auth = (fetch: typeof docs.fetch) => ({
      adapter, cookieKeys: COOKIE_KEYS, registration: { variant: 'open' as const }, proxy: true,
      clientIdMetadataDocuments: { fetch, fetchBudget: { perCaller, perHost: 100, windowSeconds: 3600 } },
    });
    const first = await startApp({ auth: auth(docs.fetch) });
    const second = await startApp({ baseUrl: first.baseUrl, auth: auth(fetchOnSecond) });
    apps.push(first, second);
    const browser = new Browser(first.baseUrl);
    const page = await browser.navigate(buildAuthorizeUrl(first.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid', challenge: pkcePair().challenge }));
    if (!isPage(page)) throw new Error('expected the sign-in page');
    // the copy the first instance fetched expires
    await adapter('ClientMetadataDocument').destroy(clientId);
    const cookie = ['_interaction', '_interaction.sig'].map((name) => `${name}=${browser.cookie(name)}`).join('; ');
    const url = `http://127.0.0.1:${second.port}${new URL(page.url).pathname}`;
    return (forwardedFor: string) => fetch(url, { headers: { cookie, accept: 'text/html', 'x-forwarded-for': forwardedFor } });
  }
  const heldPage = await school(5, heldFetch);
  // one fetch per caller: the authorization request's
  const otherPage = await school(1, docs.fetch);
  expect(docs.hits(path)).toBe(2);

  hold = new Promise<void>((resolve) => { release = resolve; });
  const heldLoad = heldPage('203.0.113.7');
  await fetchHeld;
  // the other school's caller spent its one fetch at the authorization request: its page is
  // over budget, whoever else in the process is looking the same client up meanwhile
  const res = await otherPage('127.0.0.1');
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(docs.hits(path)).toBe(2);

  hold = undefined;
  release();
  const heldRes = await heldLoad;
  expect(heldRes.status).toBe(200);
  expect(await heldRes.text()).toContain('name="password"');
  expect(heldRes.headers.get('retry-after')).toBeNull();
  expect(docs.hits(path)).toBe(3);
});
