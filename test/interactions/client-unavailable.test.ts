/**
 * The sign-in page of a Client ID Metadata Document's client, when the document must be fetched
 * again (its cached copy expired, or another instance on the same storage serves the page) and
 * its host fails (404, 503): oidc-provider's `invalid_client` was left to Koa, a plain-text 400
 * without the pages' headers and without words for the person. It is the pages' notice that
 * the application cannot be checked right now (interactions/router.ts, loadInteraction).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { Browser, isPage } from '../support/browser.ts';
import { buildAuthorizeUrl } from '../support/flows.ts';
import { publicClientDocument, startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
const apps: RunningApp[] = [];
beforeAll(async () => { docs = await startDocumentServer(); });
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await docs.close();
});

it.each([[404], [503]])('a document answering %s when the sign-in page is shown by another instance: a page, not plain text', async (status) => {
  const adapter = createMemoryAdapter();
  const auth = { adapter, cookieKeys: ['a-cookie-key-for-review-0123456789abcdef'], clientIdMetadataDocuments: { allowedHosts: [`tools.example:${docs.port}`], fetch: docs.fetch } };
  const first = await startApp({ auth });
  const second = await startApp({ baseUrl: first.baseUrl, auth });
  apps.push(first, second);
  const path = `/review/${status}.json`;
  const clientId = docs.url('tools.example', path);
  docs.serve(path, { body: publicClientDocument(clientId) });

  const browser = new Browser(first.baseUrl);
  const page = await browser.navigate(buildAuthorizeUrl(first.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid profile', challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(page) || page.response.status !== 200) throw new Error('expected the sign-in page');
  // the document host fails now, and the shared copy has expired (it lives 30 s without Cache-Control)
  docs.serve(path, { status, body: {} });
  await adapter('ClientMetadataDocument').destroy(clientId);

  const cookie = ['_interaction', '_interaction.sig'].map((n) => `${n}=${browser.cookie(n)}`).join('; ');
  const res = await fetch(`http://127.0.0.1:${second.port}${new URL(page.url).pathname}`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
  expect({
    type: res.headers.get('content-type'),
    csp: res.headers.get('content-security-policy'),
    frame: res.headers.get('x-frame-options'),
    cache: res.headers.get('cache-control'),
    referrer: res.headers.get('referrer-policy'),
  }).toEqual({
    type: expect.stringMatching(/^text\/html/),
    csp: expect.stringContaining("frame-ancestors 'none'"),
    frame: 'DENY',
    cache: 'no-store',
    referrer: 'no-referrer',
  });
  expect(res.status).toBe(400);
  expect(await res.text()).toMatch(/<h1[^>]*>This application can(?:'|&#39;|&#x27;)t be checked right now<\/h1>/);
});

it('with the host\'s own sign-in page (signIn.loginUrl): pendingSignIn says the application cannot be checked, and the host\'s page shows it, not plain text', async () => {
  const adapter = createMemoryAdapter();
  const auth = { adapter, cookieKeys: ['a-cookie-key-for-review-0123456789abcdef'], clientIdMetadataDocuments: { allowedHosts: [`tools.example:${docs.port}`], fetch: docs.fetch } };
  const first = await startApp({ signIn: 'host', auth });
  const second = await startApp({ baseUrl: first.baseUrl, signIn: 'host', auth });
  apps.push(first, second);
  const path = '/review/host-page.json';
  const clientId = docs.url('tools.example', path);
  docs.serve(path, { body: publicClientDocument(clientId) });

  const browser = new Browser(first.baseUrl);
  const page = await browser.navigate(buildAuthorizeUrl(first.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid profile', challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(page) || !page.url.includes('/sign-in')) throw new Error('expected the host\'s sign-in page');
  expect(page.html).toContain('to continue to');
  docs.serve(path, { status: 503, body: {} });
  await adapter('ClientMetadataDocument').destroy(clientId);

  const cookie = ['platform_auth_sign_in', 'admin_session', 'host_session'].map((n) => [n, browser.cookie(n)]).filter(([, v]) => v).map(([n, v]) => `${n}=${v}`).join('; ');
  const res = await fetch(`http://127.0.0.1:${second.port}/sign-in`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
  expect({ status: res.status, type: res.headers.get('content-type'), frame: res.headers.get('x-frame-options') })
    .toEqual({ status: 400, type: expect.stringMatching(/^text\/html/), frame: 'DENY' });
  expect(await res.text()).toContain('the application waiting for this sign-in cannot be checked right now');
});
