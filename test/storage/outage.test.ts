/**
 * lib/storage/outage.ts over real HTTP, on a memory store that can be switched to "down":
 * every endpoint that needs storage answers the clean 503, the ones that do not keep
 * working, and everything is served again as soon as storage is back. The same against a
 * real Redis that is stopped and restarted: test/e2e/storage-outage.test.ts.
 *
 * jest fails the running test on any unhandled rejection, so passing also means that no
 * storage error escaped as one.
 */
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { RETRY_AFTER_SECONDS } from '../../lib/storage/outage.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, obtainTokens, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { switchableAdapter } from '../support/switchable-adapter.ts';
import type { StorageSwitch } from '../support/switchable-adapter.ts';

const SCOPE = 'openid profile email account:read';
const OUTAGE_BODY = { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable, retry later' };

let app: RunningApp;
const storage: StorageSwitch = { failure: 'none' };
let adapter: ClosableAdapterFactory;
let tokens: TokenSet;
let tokenUrl: string;

beforeAll(async () => {
  adapter = switchableAdapter(storage);
  app = await startApp({ auth: { adapter } });
  tokenUrl = `${app.baseUrl}/api/oauth/token`;
  tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
});

afterEach(() => {
  storage.failure = 'none';
  storage.models = undefined;
  storage.methods = undefined;
});

afterAll(async () => {
  await app.stop();
  await adapter.close();
});

async function expectOutageJson(res: Response) {
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 503, body: OUTAGE_BODY });
  expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(res.headers.get('cache-control')).toBe('no-store');
}

async function expectOutagePage(res: Response) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.getSetCookie()).toEqual([]);
  const html = await res.text();
  expect(html).toContain('<h1>Temporarily unavailable</h1>');
  expect(html).not.toContain('does not work');
}

const introspect = (token: string) => postForm(`${app.baseUrl}/api/oauth/introspect`, { token, client_id: MEMBER.clientId });
const userinfo = (token: string, accept = 'application/json') => fetch(`${app.baseUrl}/api/oauth/userinfo`, {
  headers: { authorization: `Bearer ${token}`, accept },
});

describe('while storage is unavailable', () => {
  beforeEach(() => {
    storage.failure = 'unavailable';
  });

  it('the token endpoint answers 503 temporarily_unavailable, for codes and refresh tokens', async () => {
    const { verifier } = pkcePair();
    await expectOutageJson(await exchangeCode(app.baseUrl, MEMBER, 'some-code', verifier));
    await expectOutageJson(await postForm(tokenUrl, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId,
    }));
  });

  it('introspection, revocation and UserInfo answer 503', async () => {
    await expectOutageJson(await introspect(tokens.access_token));
    await expectOutageJson(await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: tokens.access_token, client_id: MEMBER.clientId }));
    const res = await userinfo(tokens.access_token);
    expect(res.headers.get('www-authenticate')).toBeNull();
    await expectOutageJson(res);
  });

  it('a browser page reads Retry-After of the 503s of UserInfo and /mcp (it is not a CORS-safelisted response header)', async () => {
    const exposed = (res: Response) => (res.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    const fromPage = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}`, origin: 'https://spa.example' } });
    expect(fromPage.status).toBe(503);
    expect(fromPage.headers.get('access-control-allow-origin')).toBe('*');
    expect(exposed(fromPage)).toContain('retry-after');
    await fromPage.body?.cancel();
    const page = 'http://localhost:5173';
    const mcp = await fetch(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`, origin: page, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    expect(mcp.headers.get('access-control-allow-origin')).toBe(page);
    expect(exposed(mcp)).toContain('retry-after');
    await mcp.body?.cancel();
  });

  it('the authorization endpoint answers a short 503 page, not an error redirect to the client', async () => {
    const { challenge } = pkcePair();
    const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge, state: randomState() });
    // a page of the browser's own navigation, whatever it says it accepts (as oidc-provider does)
    await expectOutagePage(await fetch(url, { headers: { accept: 'text/html' }, redirect: 'manual' }));
    await expectOutagePage(await fetch(url, { redirect: 'manual' }));
  });

  it('discovery, JWKS and the resource metadata need no storage and keep working', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/api/oauth/jwks', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${app.baseUrl}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
  });
});

describe('storage going away during sign-in', () => {
  async function loginPage(browser: Browser): Promise<PageResult> {
    const { challenge } = pkcePair();
    const page = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge, state: randomState() }));
    if (!isPage(page) || !page.html.includes('name="password"')) throw new Error('expected the sign-in page');
    return page;
  }

  function submitLogin(browser: Browser, page: PageResult, accept: string) {
    const form = findForm(page.html, '/login');
    return browser.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
      body: new URLSearchParams({ ...form.hidden, ...STUDENT }).toString(),
    });
  }

  it('the sign-in page answers 503 while it is down, and the same form works once it is back', async () => {
    const browser = new Browser(app.baseUrl);
    const page = await loginPage(browser);

    storage.failure = 'unavailable';
    await expectOutagePage(await submitLogin(browser, page, 'text/html,application/xhtml+xml'));
    await expectOutageJson(await submitLogin(browser, page, 'application/json'));
    const reload = await browser.request(page.url, { headers: { accept: 'text/html' } });
    await expectOutagePage(reload);

    storage.failure = 'none';
    const resumed = await browser.submit(page, '/login', { ...STUDENT });
    if (!isPage(resumed)) throw new Error('expected the consent page');
    const done = await browser.submit(resumed, '/confirm');
    expect(isPage(done) ? done.html : done.redirect).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
  });

  it('a session that cannot be saved after the answer was rendered is a 503, not a redirect', async () => {
    const browser = new Browser(app.baseUrl);
    const page = await loginPage(browser);
    // only writes of the browser session fail: the provider renders its answer first and
    // saves the session afterwards, outside its own error handling
    storage.models = new Set(['Session']);
    storage.methods = new Set(['upsert']);
    storage.failure = 'unavailable';
    const form = findForm(page.html, '/login');
    const login = await browser.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.hidden, ...STUDENT }).toString(),
    });
    expect(login.status).toBe(303);
    const resume = await browser.request(login.headers.get('location')!, { headers: { accept: 'text/html' } });
    await expectOutagePage(resume);
  });
});

describe('after storage is back', () => {
  it('the tokens issued before the outage work, and new ones are issued', async () => {
    storage.failure = 'unavailable';
    await expectOutageJson(await introspect(tokens.access_token));
    storage.failure = 'none';

    expect((await (await introspect(tokens.access_token)).json()).active).toBe(true);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    const refreshed = await postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId });
    expect(refreshed.status).toBe(200);
    tokens = { ...tokens, ...(await refreshed.json()) };
    expect((await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT)).access_token).toEqual(expect.any(String));
  });
});

describe('what is not an outage', () => {
  it('an adapter error that is not StorageUnavailableError stays a 500 server_error', async () => {
    storage.failure = 'broken';
    const res = await introspect(tokens.access_token);
    expect(res.status).toBe(500);
    expect((await res.json()).error).toBe('server_error');
  });
});

describe('logging', () => {
  it('warns once per outage, and nothing of the requests', () => {
    const outage = app.warnings.filter((w) => w.includes('storage'));
    expect(outage.length).toBeGreaterThanOrEqual(1);
    expect(outage[0]).toMatch(/^platform-auth: storage is unavailable/);
    // several outages above, less than a minute apart: one outage for the log
    expect(outage).toHaveLength(1);
    const all = app.warnings.join('\n');
    for (const secret of [tokens.access_token, tokens.refresh_token, app.operatorSecret]) expect(all).not.toContain(secret);
  });
});
