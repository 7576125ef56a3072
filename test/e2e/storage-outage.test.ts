/**
 * Redis stopped in the middle of a run under two instances of the demo host: every request
 * that needs storage gets the clean 503 at once, the processes keep serving what needs no
 * storage, and once Redis is back (with its append-only file) both instances serve again
 * by themselves, with everything issued before the outage intact.
 *
 * jest fails the running test on any unhandled rejection, so passing also means that no
 * storage error escaped as one.
 */

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { RETRY_AFTER_SECONDS } from '../../lib/storage/outage.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { CodeResult, TokenSet } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { sharedDeployment } from '../support/instances.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';
const OUTAGE_BODY = { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable, retry later' };
/** well above the adapter's 2 s connect timeout: a request that takes this long hangs */
const PROMPT_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RedisHandle;
let a: RunningApp;
let b: RunningApp;
const adapters: ClosableAdapterFactory[] = [];
const adapterLogs: string[] = [];

beforeAll(async () => {
  redis = await startRedis({ forceSpawn: true, persistent: true });
  const deployment = await sharedDeployment();
  const logger = { info: (m: string) => adapterLogs.push(m), warn: (m: string) => adapterLogs.push(m) };
  const start = (baseUrl?: string) => {
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: deployment.keyPrefix, logger });
    adapters.push(adapter);
    return deployment.start(adapter, baseUrl);
  };
  a = await start();
  // one issuer for both: B serves A's baseUrl, as behind a load balancer
  b = await start(a.baseUrl);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all(adapters.map((adapter) => adapter.close()));
  await redis?.stop();
});

const at = (app: RunningApp) => `http://127.0.0.1:${app.port}`;
const refresh = (origin: string, refreshToken: string) => postForm(`${origin}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
});
const introspect = (origin: string, token: string) => postForm(`${origin}/api/oauth/introspect`, { token, client_id: MEMBER.clientId });
const revoke = (origin: string, token: string) => postForm(`${origin}/api/oauth/revoke`, { token, client_id: MEMBER.clientId });
const userinfo = (origin: string, token: string) => fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

async function timed(request: () => Promise<Response>): Promise<Response> {
  const started = Date.now();
  const res = await request();
  expect(Date.now() - started).toBeLessThan(PROMPT_MS);
  return res;
}

async function expectOutageJson(res: Response) {
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 503, body: OUTAGE_BODY });
  expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
}

async function expectOutagePage(res: Response) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(await res.text()).toContain('<h1>Temporarily unavailable</h1>');
}

function submitLogin(browser: Browser, page: PageResult) {
  const form = findForm(page.html, '/login');
  return browser.request(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ ...form.hidden, ...STUDENT }).toString(),
  });
}

describe('Redis stopped mid-run, then restarted', () => {
  // issued before the outage
  let tokens: TokenSet;
  let pendingCode: CodeResult;
  let browser: Browser;
  let signInPage: PageResult;

  beforeAll(async () => {
    const { code, verifier } = await obtainCode(a.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const res = await exchangeCode(a.baseUrl, MEMBER, code, verifier);
    expect(res.status).toBe(200);
    tokens = (await res.json()) as TokenSet;
    pendingCode = await obtainCode(a.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    browser = new Browser(a.baseUrl);
    const { challenge } = pkcePair();
    const page = await browser.navigate(buildAuthorizeUrl(a.baseUrl, MEMBER, { scope: SCOPE, challenge, state: randomState() }));
    if (!isPage(page)) throw new Error('expected the sign-in page');
    signInPage = page;

    await redis.stop();
  });

  it('the token endpoint answers 503 at once on both instances', async () => {
    for (const app of [a, b]) {
      await expectOutageJson(await timed(() => refresh(at(app), tokens.refresh_token)));
      await expectOutageJson(await timed(() => exchangeCode(at(app), MEMBER, 'unknown-code', 'verifier-verifier-verifier-verifier-verifier')));
    }
  });

  it('a browser client can read UserInfo\'s 503 (its CORS answer is kept)', async () => {
    const res = await fetch(`${at(a)}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}`, origin: 'https://spa.example' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect((await res.json()).error).toBe('temporarily_unavailable');
  });

  it('introspection, revocation and UserInfo answer 503 at once on both instances', async () => {
    for (const app of [a, b]) {
      await expectOutageJson(await timed(() => introspect(at(app), tokens.access_token)));
      await expectOutageJson(await timed(() => revoke(at(app), tokens.access_token)));
      await expectOutageJson(await timed(() => userinfo(at(app), tokens.access_token)));
    }
  });

  it('the authorization endpoint and the sign-in page answer the 503 page', async () => {
    const { challenge } = pkcePair();
    const url = buildAuthorizeUrl(a.baseUrl, MEMBER, { scope: SCOPE, challenge, state: randomState() });
    await expectOutagePage(await timed(() => fetch(url, { headers: { accept: 'text/html' }, redirect: 'manual' })));
    await expectOutagePage(await timed(() => submitLogin(browser, signInPage)));
  });

  it('a burst of requests is answered, and the processes keep serving discovery and JWKS', async () => {
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => timed(() => introspect(at(i % 2 ? a : b), tokens.access_token))));
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(503));
    for (const app of [a, b]) {
      for (const path of ['/.well-known/openid-configuration', '/api/oauth/jwks', '/.well-known/oauth-protected-resource']) {
        const res = await fetch(`${at(app)}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
      }
    }
  });

  it('once Redis is back, both instances serve again by themselves, and nothing issued before is lost', async () => {
    await redis.restart();
    for (const app of [a, b]) {
      const deadline = Date.now() + 15_000;
      while ((await introspect(at(app), tokens.access_token)).status !== 200) {
        if (Date.now() > deadline) throw new Error('not serving again 15 s after Redis came back');
        await sleep(200);
      }
    }

    for (const app of [a, b]) {
      const active = (await (await introspect(at(app), tokens.access_token)).json()) as { active: boolean };
      expect(active.active).toBe(true);
      expect((await userinfo(at(app), tokens.access_token)).status).toBe(200);
    }
    // the refresh token and the code issued before the outage, redeemed on the other instance
    const refreshed = await refresh(at(b), tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    const redeemed = await exchangeCode(at(b), MEMBER, pendingCode.code, pendingCode.verifier);
    expect(redeemed.status).toBe(200);
    // the sign-in page that was open during the outage: its form goes through now
    const consent = await browser.submit(signInPage, '/login', { ...STUDENT });
    if (!isPage(consent)) throw new Error('expected the consent page');
    const done = await browser.submit(consent, '/confirm');
    expect(isPage(done) ? `page ${done.response.status}` : done.redirect).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
  });

  it('logged the outage and the recovery once each per instance, without a token', () => {
    for (const app of [a, b]) {
      expect(app.warnings.filter((w) => w.startsWith('platform-auth: storage is unavailable'))).toHaveLength(1);
    }
    expect(adapterLogs.filter((l) => l.includes('is unreachable'))).toHaveLength(2);
    expect(adapterLogs.filter((l) => l.includes('is reachable again'))).toHaveLength(2);
    const all = [...a.warnings, ...b.warnings, ...adapterLogs].join('\n');
    for (const secret of [tokens.access_token, tokens.refresh_token, pendingCode.code]) expect(all).not.toContain(secret);
  });
});
