/**
 * Proxy headers without `options.proxy`, over real HTTP on the demo host: behind a load
 * balancer every client is the balancer's address, so the limits counted by client address
 * (the sign-in throttle, the open-registration rate limit, the metadata-document fetch
 * budget) throttle all of them together. The first request of an instance that reaches one
 * of them carrying `X-Forwarded-For` or `Forwarded` while `proxy` is off is logged once,
 * naming `options.proxy` and `options.proxyHops`; never with `proxy`, never without the headers.
 */
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, buildAuthorizeUrl } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
beforeAll(async () => { docs = await startDocumentServer(); });
afterAll(() => docs.close());

async function withApp<T>(auth: Partial<PlatformAuthOptions>, run: (app: RunningApp) => Promise<T>): Promise<T> {
  const app = await startApp({ auth: { registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: docs.fetch }, ...auth } });
  try {
    return await run(app);
  } finally {
    await app.stop();
  }
}

/** The warnings about proxy headers without options.proxy. */
const proxyHints = (app: RunningApp) => app.warnings.filter((w) => w.includes('options.proxy is off'));

/** `count` wrong passwords for fresh accounts, each with these headers; the statuses. */
async function failSignIns(app: RunningApp, count: number, headersOf: (i: number) => Record<string, string>): Promise<number[]> {
  const browser = new Browser(app.baseUrl);
  const result = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: randomState() }));
  if (!isPage(result) || !result.html.includes('name="password"')) throw new Error('no sign-in page');
  const page: PageResult = result;
  const form = findForm(page.html, '/login');
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await browser.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headersOf(i) },
      body: new URLSearchParams({ ...form.hidden, email: `user${i}@example.com`, password: 'wrong' }).toString(),
    });
    await response.text();
    statuses.push(response.status);
  }
  return statuses;
}

async function register(app: RunningApp, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', client_name: 'Desk Agent' }),
  });
  await res.text();
  return res.status;
}

let counter = 0;
/** An authorization request naming a freshly published metadata document: it spends the fetch budget. */
async function authorizeWithDocument(app: RunningApp, headers: Record<string, string>): Promise<number> {
  counter += 1;
  const path = `/proxy/app-${counter}.json`;
  const clientId = docs.url('tools.example', path);
  docs.serve(path, {
    status: 200,
    body: {
      client_id: clientId, client_name: 'Proxy Agent', redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'],
    },
  });
  const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5000/callback' }, { scope: 'openid', challenge: pkcePair().challenge });
  const res = await fetch(url, { redirect: 'manual', headers });
  await res.text();
  return res.status;
}

const SCHOOL = ['1.1.1.1', '2.2.2.2', '3.3.3.3'];

describe('proxy headers without options.proxy', () => {
  it('clients behind a proxy all count as one address: the first such request is logged once, naming options.proxy and options.proxyHops', async () => {
    await withApp({ signInThrottle: { ipFailures: 2 } }, async (app) => {
      const statuses = await failSignIns(app, 6, (i) => ({ 'x-forwarded-for': SCHOOL[i % 3]! }));
      // three clients, one address: all throttled after two failures
      expect(statuses.slice(0, 2)).toEqual([401, 401]);
      expect(statuses.at(-1)).toBe(429);
      const hints = proxyHints(app);
      expect(hints).toHaveLength(1);
      expect(hints[0]).toContain('options.proxy');
      expect(hints[0]).toContain('options.proxyHops');
      expect(hints[0]).toContain('the sign-in throttle');
      expect(hints[0]).toContain('X-Forwarded-For "1.1.1.1"');
      expect(hints[0]).toMatch(/every client behind the proxy counts as one address/);
      expect(hints[0]).toContain('(127.0.0.1)');
      expect(hints[0]).toMatch(/Logged once per instance/);
      // the other limits of the instance add no line
      expect(await register(app, { 'x-forwarded-for': '4.4.4.4' })).toBe(201);
      expect(await authorizeWithDocument(app, { 'x-forwarded-for': '5.5.5.5' })).toBe(303);
      await failSignIns(app, 3, () => ({ forwarded: 'for=6.6.6.6' }));
      expect(proxyHints(app)).toHaveLength(1);
    });
  });

  it('the open-registration rate limit and the fetch budget log it too, and a Forwarded header alone', async () => {
    await withApp({}, async (app) => {
      expect(await register(app, { forwarded: 'for=192.0.2.60;proto=https' })).toBe(201);
      const hints = proxyHints(app);
      expect(hints).toHaveLength(1);
      expect(hints[0]).toContain('the open-registration rate limit');
      expect(hints[0]).toContain('Forwarded "for=192.0.2.60;proto=https"');
      expect(hints[0]).toContain('reads X-Forwarded-For, not Forwarded');
    });
    await withApp({}, async (app) => {
      expect(await authorizeWithDocument(app, { 'x-forwarded-for': '203.0.113.9' })).toBe(303);
      expect(proxyHints(app)).toEqual([expect.stringContaining('the metadata-document fetch budget')]);
    });
  });

  it('nothing is logged with proxy: true, nor without the headers, nor with the limits off', async () => {
    await withApp({ proxy: true, signInThrottle: { ipFailures: 2 } }, async (app) => {
      // each client its own address: none is throttled
      expect(await failSignIns(app, 6, (i) => ({ 'x-forwarded-for': SCHOOL[i % 3]! }))).toEqual(Array(6).fill(401));
      expect(await register(app, { 'x-forwarded-for': '4.4.4.4' })).toBe(201);
      expect(await authorizeWithDocument(app, { 'x-forwarded-for': '5.5.5.5', forwarded: 'for=5.5.5.5' })).toBe(303);
      expect(proxyHints(app)).toEqual([]);
    });
    await withApp({ signInThrottle: { ipFailures: 2 } }, async (app) => {
      const statuses = await failSignIns(app, 4, () => ({}));
      expect(statuses.at(-1)).toBe(429);
      expect(await register(app, {})).toBe(201);
      expect(await authorizeWithDocument(app, {})).toBe(303);
      expect(proxyHints(app)).toEqual([]);
    });
    await withApp({
      signInThrottle: false, registration: { variant: 'open', rateLimit: false }, clientIdMetadataDocuments: { fetch: docs.fetch, fetchBudget: false },
      authorizationRateLimit: false,
    }, async (app) => {
      expect(await failSignIns(app, 2, () => ({ 'x-forwarded-for': '1.1.1.1' }))).toEqual([401, 401]);
      expect(await register(app, { 'x-forwarded-for': '4.4.4.4' })).toBe(201);
      expect(await authorizeWithDocument(app, { 'x-forwarded-for': '5.5.5.5' })).toBe(303);
      expect(proxyHints(app)).toEqual([]);
    });
  });
});
