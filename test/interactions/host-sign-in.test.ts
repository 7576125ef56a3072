/**
 * Sign-in by the host (`options.signIn`), driven with openid-client as the client:
 *
 * - the host's session (`signIn.session`): a member signed in at the host goes straight to
 *   consent; `prompt=login` and `max_age` still ask for a fresh sign-in; the library's session
 *   follows the host's when another account signs in there;
 * - the host's sign-in page (`signIn.loginUrl`): the library sends the browser there, the host
 *   signs the person in and calls `auth.interactions.finishSignIn`, bound to this browser;
 *   `prompt=login` is passed on and enforced; Cancel returns `access_denied` with state and iss.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Context, Middleware } from 'koa';
import * as oidc from 'openid-client';

import { buildApp } from '../../examples/host/app.ts';
import type { DemoOptions } from '../../examples/host/app.ts';
import { CsrfTokens } from '../../lib/index.ts';
import { Browser, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, buildAuthorizeUrl, MEMBER, operator, STUDENT } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp as startDemo } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

type Result = PageResult | { redirect: string };

const COOKIE_KEY = 'host-sign-in-test-cookie-key-0123456789abcdef';

/** The demo host with `first` in front of its middleware, on an ephemeral port (as test/support/start-app.ts). */
async function startApp(options: DemoOptions = {}, first?: Middleware): Promise<RunningApp> {
  if (!first) return startDemo(options);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const logger = { info() {}, warn() {}, error() {} };
  const demo = await buildApp({ ...options, baseUrl: `http://127.0.0.1:${port}`, auth: { logger, ...options.auth } });
  demo.app.middleware.unshift(first);
  server.on('request', demo.app.callback());
  return {
    ...demo, port, warnings: [],
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await demo.close();
    },
  };
}

async function configFor(app: RunningApp) {
  return oidc.discovery(new URL(app.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
}

async function authorize(config: oidc.Configuration, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: MEMBER.redirectUri, scope: 'openid account:read', state, nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', max_age: '', ...extra,
  });
  if (!extra.max_age) url.searchParams.delete('max_age');
  return { url: url.href, verifier, state, nonce };
}

function page(result: Result, what: string): PageResult {
  if (!isPage(result)) throw new Error(`expected ${what}, got a redirect to ${result.redirect}`);
  return result;
}

const isLibrarySignIn = (p: PageResult) => p.url.includes('/oauth/interaction/') && p.html.includes('name="password"');
const isHostSignIn = (p: PageResult) => new URL(p.url).pathname === '/sign-in';
const isConsent = (p: PageResult) => p.html.includes('/confirm"');

/** Signs in at the host's own page (no sign-in waiting): the host session only. */
async function signInAtHost(browser: Browser, user: { email: string; password: string }) {
  const form = page(await browser.navigate('/sign-in'), 'the host sign-in page');
  const after = page(await browser.submit(form, '/sign-in', user), 'the host page again');
  expect(after.html).toContain(`Signed in as <strong>${user.email}</strong>`);
}

async function allowAndRedeem(config: oidc.Configuration, browser: Browser, consent: PageResult, flow: { verifier: string; state: string; nonce: string }) {
  const back = await browser.submit(consent, '/confirm');
  if (isPage(back)) throw new Error(`expected the redirect to the client:\n${back.html.slice(0, 500)}`);
  return oidc.authorizationCodeGrant(config, new URL(back.redirect), {
    pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce,
  });
}

describe('the host\'s session (signIn.session)', () => {
  let app: RunningApp;
  let config: oidc.Configuration;
  beforeAll(async () => {
    app = await startApp();
    config = await configFor(app);
  });
  afterAll(() => app.stop());

  it('sends a member signed in at the host straight to consent, and the code flow completes', async () => {
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    // max_age of a day: the ID token then carries auth_time
    const flow = await authorize(config, { max_age: '86400' });
    const consent = page(await browser.navigate(flow.url), 'the consent page');
    expect(isConsent(consent)).toBe(true);
    const before = Math.floor(Date.now() / 1000);
    const tokens = await allowAndRedeem(config, browser, consent, flow);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe('acc-student');
    // auth_time is the host session's sign-in, not the code flow's
    expect(claims.auth_time).toBeLessThanOrEqual(before);
    expect(claims.auth_time).toBeGreaterThan(before - 60);
  });

  it('without a host session, shows the library\'s own sign-in page', async () => {
    const flow = await authorize(config);
    expect(isLibrarySignIn(page(await new Browser(app.baseUrl).navigate(flow.url), 'the sign-in page'))).toBe(true);
  });

  it('prompt=login: the host session does not count; exactly one fresh sign-in', async () => {
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    const flow = await authorize(config, { prompt: 'login' });
    const login = page(await browser.navigate(flow.url), 'the sign-in page');
    expect(isLibrarySignIn(login)).toBe(true);
    const consent = page(await browser.submit(login, '/login', STUDENT), 'the consent page');
    expect(isConsent(consent)).toBe(true);
    const tokens = await allowAndRedeem(config, browser, consent, flow);
    expect(tokens.claims()!.auth_time).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
  });

  it('follows the host when another account signs in there', async () => {
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    const first = await authorize(config);
    await allowAndRedeem(config, browser, page(await browser.navigate(first.url), 'consent'), first);
    await signInAtHost(browser, ADMIN);
    const second = await authorize(config);
    const consent = page(await browser.navigate(second.url), 'the consent page');
    expect(consent.html).toContain('<strong>admin@example.com</strong>');
    expect((await allowAndRedeem(config, browser, consent, second)).claims()!.sub).toBe('acc-admin');
  });
});

describe('max_age with the host\'s session', () => {
  let app: RunningApp;
  let config: oidc.Configuration;
  const signedInAt = Math.floor(Date.now() / 1000) - 7200;
  beforeAll(async () => {
    app = await startApp({ auth: { signIn: { session: () => ({ accountId: 'acc-student', authTime: signedInAt }) } } });
    config = await configFor(app);
  });
  afterAll(() => app.stop());

  it('uses a session younger than max_age, with its auth_time', async () => {
    const flow = await authorize(config, { max_age: '10800' });
    const browser = new Browser(app.baseUrl);
    const consent = page(await browser.navigate(flow.url), 'the consent page');
    expect(isConsent(consent)).toBe(true);
    expect((await allowAndRedeem(config, browser, consent, flow)).claims()!.auth_time).toBe(signedInAt);
  });

  it('asks for a sign-in when the session is older than max_age', async () => {
    const flow = await authorize(config, { max_age: '3600' });
    const browser = new Browser(app.baseUrl);
    const login = page(await browser.navigate(flow.url), 'the sign-in page');
    expect(isLibrarySignIn(login)).toBe(true);
    const consent = page(await browser.submit(login, '/login', STUDENT), 'the consent page');
    const claims = (await allowAndRedeem(config, browser, consent, flow)).claims()!;
    expect(claims.auth_time).toBeGreaterThan(signedInAt + 3600);
  });
});

describe('a host session that does not say when its person signed in (no authTime)', () => {
  let app: RunningApp;
  let config: oidc.Configuration;
  beforeAll(async () => {
    app = await startApp({ auth: { signIn: { session: () => ({ accountId: 'acc-student' }) } } });
    config = await configFor(app);
  });
  afterAll(() => app.stop());

  it('satisfies no max_age, not even after an authorization without max_age used it in the same browser (recorded as signed in at 0, not "now")', async () => {
    const browser = new Browser(app.baseUrl);
    // with max_age: the sign-in page
    expect(isLibrarySignIn(page(await browser.navigate((await authorize(config, { max_age: '60' })).url), 'the sign-in page'))).toBe(true);
    // without: the session is used, straight to consent
    const plain = await authorize(config);
    const consent = page(await browser.navigate(plain.url), 'the consent page');
    expect(isConsent(consent)).toBe(true);
    expect((await allowAndRedeem(config, browser, consent, plain)).claims()!.sub).toBe('acc-student');
    // with max_age again, in the same browser: still the sign-in page (it was the consent page:
    // the use above had stamped the browser's session "signed in now")
    const again = await authorize(config, { max_age: '60' });
    const login = page(await browser.navigate(again.url), 'the sign-in page');
    expect(isLibrarySignIn(login)).toBe(true);
    const fresh = page(await browser.submit(login, '/login', STUDENT), 'the consent page');
    expect((await allowAndRedeem(config, browser, fresh, again)).claims()!.auth_time).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
  });
});

describe('signIn.session with an authTime that is not epoch seconds', () => {
  let app: RunningApp;
  let config: oidc.Configuration;
  const logged: string[] = [];
  beforeAll(async () => {
    // the host's slip: milliseconds
    app = await startApp({ auth: { logger: { info() {}, warn() {}, error: (m) => { logged.push(m); } }, signIn: { session: () => ({ accountId: 'acc-student', authTime: Date.now() }) } } });
    config = await configFor(app);
  });
  afterAll(() => app.stop());

  it('is not used (it would satisfy every max_age): the person signs in on the page, and the host\'s mistake is logged', async () => {
    const flow = await authorize(config, { max_age: '60' });
    const browser = new Browser(app.baseUrl);
    const login = page(await browser.navigate(flow.url), 'the sign-in page');
    expect(isLibrarySignIn(login)).toBe(true);
    expect(logged).toEqual([expect.stringMatching(/^platform-auth: options\.signIn\.session: authTime \d+ is in the future; .*looks like milliseconds.*; the host's session is not used$/)]);
    const consent = page(await browser.submit(login, '/login', STUDENT), 'the consent page');
    const claims = (await allowAndRedeem(config, browser, consent, flow)).claims()!;
    expect(claims.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });
});

describe('signIn.session with amr and acr', () => {
  let app: RunningApp;
  let config: oidc.Configuration;
  const logged: string[] = [];
  let given: Record<string, unknown> = {};
  beforeAll(async () => {
    app = await startApp({
      auth: {
        logger: { info() {}, warn() {}, error: (m) => { logged.push(m); } },
        signIn: { session: () => ({ accountId: 'acc-student', ...given }) as never, acrValues: ['urn:school:pwd', 'urn:school:mfa'] },
      },
    });
    config = await configFor(app);
  });
  afterAll(() => app.stop());

  it('discovery lists the acrValues and both claims', async () => {
    const discovery = await (await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).json() as Record<string, string[]>;
    expect(discovery.acr_values_supported).toEqual(['urn:school:pwd', 'urn:school:mfa']);
    expect(discovery.claims_supported).toEqual(expect.arrayContaining(['amr', 'acr']));
  });

  it('puts them into the ID token as given', async () => {
    given = { amr: ['pwd', 'mfa'], acr: 'urn:school:mfa' };
    const flow = await authorize(config);
    const browser = new Browser(app.baseUrl);
    const consent = page(await browser.navigate(flow.url), 'the consent page');
    const claims = (await allowAndRedeem(config, browser, consent, flow)).claims()!;
    expect({ amr: claims.amr, acr: claims.acr }).toEqual({ amr: ['pwd', 'mfa'], acr: 'urn:school:mfa' });
  });

  it('an amr that is not an array (the usual slip) is not used, not spelled out letter by letter: the person signs in on the page', async () => {
    given = { amr: 'pwd' };
    logged.length = 0;
    const flow = await authorize(config);
    const browser = new Browser(app.baseUrl);
    const login = page(await browser.navigate(flow.url), 'the sign-in page');
    expect(isLibrarySignIn(login)).toBe(true);
    expect(logged).toEqual([expect.stringMatching(/^platform-auth: options\.signIn\.session: amr must be an array .*: pass \["pwd"\]; the host's session is not used$/)]);
  });

  it('an acr not listed in acrValues is not used either', async () => {
    given = { amr: ['pwd'], acr: 'urn:school:otp' };
    logged.length = 0;
    const flow = await authorize(config);
    const browser = new Browser(app.baseUrl);
    expect(isLibrarySignIn(page(await browser.navigate(flow.url), 'the sign-in page'))).toBe(true);
    expect(logged).toEqual([expect.stringMatching(/^platform-auth: options\.signIn\.session: acr "urn:school:otp" is not one of options\.signIn\.acrValues/)]);
  });
});

describe('the host\'s sign-in page (signIn.loginUrl)', () => {
  let app: RunningApp;
  let config: oidc.Configuration;
  beforeAll(async () => {
    // with a route of the test's own, in front, that finishes the waiting sign-in as it is
    // told, to probe the binding
    app = await startApp({ signIn: 'host', auth: { cookieKeys: [COOKIE_KEY] } }, async (ctx: Context, next) => {
      if (ctx.path !== '/test/finish') return next();
      try {
        const authTime = ctx.query.authTime ? Number(ctx.query.authTime) : undefined;
        const expected = typeof ctx.query.expected === 'string' ? { expected: ctx.query.expected } : undefined;
        await app.auth.interactions.finishSignIn(ctx, { accountId: String(ctx.query.account), ...(authTime ? { authTime } : {}) }, expected);
      } catch (err) {
        ctx.status = (err as { status?: number }).status ?? 500;
        ctx.body = (err as Error).message;
      }
    });
    config = await configFor(app);
  });
  afterAll(() => app.stop());

  it('sends the browser to the host\'s page with return_to, and finishes the code flow from there', async () => {
    const browser = new Browser(app.baseUrl);
    const flow = await authorize(config, { login_hint: 'student@example.com', ui_locales: 'de' });
    const hostPage = page(await browser.navigate(flow.url), 'the host sign-in page');
    expect(isHostSignIn(hostPage)).toBe(true);
    const params = new URL(hostPage.url).searchParams;
    expect(params.get('return_to')).toMatch(new RegExp(`^${app.baseUrl}/oauth/interaction/[\\w-]+$`));
    expect(params.get('login_hint')).toBe('student@example.com');
    expect(params.get('ui_locales')).toBe('de');
    expect(params.has('prompt')).toBe(false);
    expect(hostPage.html).toContain('to continue to <span class="client">Demo Member App</span>');
    expect(hostPage.html).toContain('value="student@example.com"');

    const consent = page(await browser.submit(hostPage, '/sign-in', STUDENT), 'the consent page');
    expect(isConsent(consent)).toBe(true);
    const tokens = await allowAndRedeem(config, browser, consent, flow);
    expect(tokens.claims()!.sub).toBe('acc-student');

    // the host session now signs the member straight in
    const again = await authorize(config);
    expect(isConsent(page(await browser.navigate(again.url), 'the consent page'))).toBe(true);
  });

  it('prompt=login reaches the host\'s page as prompt=login, and one sign-in there completes it', async () => {
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    const flow = await authorize(config, { prompt: 'login' });
    const hostPage = page(await browser.navigate(flow.url), 'the host sign-in page');
    expect(isHostSignIn(hostPage)).toBe(true);
    expect(new URL(hostPage.url).searchParams.get('prompt')).toBe('login');
    expect(hostPage.html).toContain('which asked you to sign in again');
    const consent = page(await browser.submit(hostPage, '/sign-in', STUDENT), 'the consent page');
    expect((await allowAndRedeem(config, browser, consent, flow)).claims()!.sub).toBe('acc-student');
  });

  it('Cancel on the host\'s page returns access_denied with state and iss', async () => {
    const browser = new Browser(app.baseUrl);
    const flow = await authorize(config);
    const hostPage = page(await browser.navigate(flow.url), 'the host sign-in page');
    const back = await browser.submit(hostPage, '/sign-in/cancel');
    if (isPage(back)) throw new Error('expected a redirect to the client');
    const callback = new URL(back.redirect);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied', error_description: 'the user cancelled the sign-in', state: flow.state, iss: app.baseUrl,
    });
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state }))
      .rejects.toMatchObject({ error: 'access_denied' });
  });

  it('finishSignIn works only in the browser the sign-in was sent from', async () => {
    const victim = new Browser(app.baseUrl);
    const flow = await authorize(config);
    const hostPage = page(await victim.navigate(flow.url), 'the host sign-in page');
    const uid = new URL(new URL(hostPage.url).searchParams.get('return_to')!).pathname.split('/').pop()!;

    // another browser: no binding cookie; a forged one naming the victim's sign-in
    const attacker = new Browser(app.baseUrl);
    for (const cookie of [undefined, `platform_auth_sign_in=${uid}.forged`, `platform_auth_sign_in=${uid}`]) {
      const res = await attacker.request('/test/finish?account=acc-admin', cookie ? { headers: { cookie } } : {});
      expect({ cookie, status: res.status, body: await res.text() }).toEqual({
        cookie, status: 400, body: expect.stringMatching(/^no sign-in is waiting in this browser/),
      });
    }
    // the victim's own browser may finish it
    const finished = await victim.request('/test/finish?account=acc-student');
    expect(finished.status).toBe(303);
    expect(finished.headers.get('location')).toMatch(`/oauth/authorize/${uid}`);
  });

  it('finishSignIn with expected finishes only the sign-in the page was shown for (pendingSignIn\'s id)', async () => {
    const browser = new Browser(app.baseUrl);
    const first = page(await browser.navigate((await authorize(config)).url), 'the host sign-in page');
    const firstId = new URL(new URL(first.url).searchParams.get('return_to')!).pathname.split('/').pop()!;
    // another authorization in the same browser replaces the sign-in waiting there
    const second = page(await browser.navigate((await authorize(config)).url), 'the host sign-in page');
    const secondId = new URL(new URL(second.url).searchParams.get('return_to')!).pathname.split('/').pop()!;
    expect(secondId).not.toBe(firstId);
    const stale = await browser.request(`/test/finish?account=acc-student&expected=${firstId}`);
    expect({ status: stale.status, body: await stale.text() }).toEqual({ status: 400, body: expect.stringMatching(/^the sign-in waiting in this browser is not the one the page was shown for/) });
    const current = await browser.request(`/test/finish?account=acc-student&expected=${secondId}`);
    expect(current.status).toBe(303);
    expect(current.headers.get('location')).toMatch(`/oauth/authorize/${secondId}`);
  });

  it('the demo\'s page carries its sign-in: a password given on a page another authorization replaced finishes nothing', async () => {
    const browser = new Browser(app.baseUrl);
    const memberPage = page(await browser.navigate((await authorize(config)).url), 'the host sign-in page');
    expect(memberPage.html).toContain('Demo Member App');
    // a page of another site opens its own client's authorization in the same browser
    const other = buildAuthorizeUrl(app.baseUrl, operator(app.baseUrl, app.operatorSecret), { scope: 'openid courses:read', challenge: pkcePair().challenge, state: 'x' });
    const otherPage = page(await browser.navigate(other), 'the host sign-in page');
    expect(otherPage.html).toContain('Demo Operator App');
    for (const form of ['/sign-in', '/sign-in/cancel']) {
      const stale = page(await browser.submit(memberPage, form, form === '/sign-in' ? ADMIN : {}), 'the host page again');
      expect(stale.response.status).toBe(409);
      expect(stale.html).toContain('The app waiting for this sign-in changed');
      // the page now names the app that is waiting, for the person to check
      expect(stale.html).toContain('Demo Operator App');
    }
    // the waiting sign-in is untouched: from its own page, it completes
    expect(isConsent(page(await browser.submit(otherPage, '/sign-in', ADMIN), 'the consent page'))).toBe(true);
  });

  it('the demo answers a cancel or sign-out without its form\'s CSRF token with its page again (403, a fresh form), not plain text', async () => {
    const start = await fetch(`${app.baseUrl}/sign-in`);
    const cookie = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    for (const path of ['/sign-in/cancel', '/sign-out']) {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: 'csrf=forged',
      });
      const html = await res.text();
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 403, type: 'text/html; charset=utf-8' });
      expect(html).toContain('This form has expired. Try again.');
      expect(html).toMatch(/<input type="hidden" name="csrf" value="[^"]+">/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      // the browser's own session is kept: no new cookie replaces it
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });

  it('the demo answers an oversized or non-form post with its page (413, 415), not plain text', async () => {
    const start = await fetch(`${app.baseUrl}/sign-in`);
    const cookie = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const cases = [
      { type: 'application/x-www-form-urlencoded', body: `csrf=x&email=${'a'.repeat(200_000)}`, status: 413, words: 'Form too large' },
      { type: 'application/json', body: '{"email":"x"}', status: 415, words: 'Unsupported form' },
    ];
    for (const path of ['/sign-in', '/sign-in/cancel', '/sign-out']) {
      for (const { type, body, status, words } of cases) {
        const res = await fetch(`${app.baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': type, cookie }, body });
        const html = await res.text();
        expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status, type: 'text/html; charset=utf-8' });
        expect(html).toContain(words);
        expect(html).toMatch(/<input type="hidden" name="csrf" value="[^"]+">/);
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      }
    }
  });

  it('the demo answers a form posted without its session cookie (another site\'s post) with its page, and sets no cookie: no cross-site sign-out', async () => {
    for (const path of ['/sign-in', '/sign-in/cancel', '/sign-out']) {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://elsewhere.example' },
        body: 'csrf=forged&email=x&password=y',
      });
      expect({ path, status: res.status, location: res.headers.get('location'), cookies: res.headers.getSetCookie() })
        .toEqual({ path, status: 303, location: '/sign-in', cookies: [] });
    }
  });

  it('finishSignIn refuses a sign-in from before a prompt=login request, and an unknown account', async () => {
    const browser = new Browser(app.baseUrl);
    const flow = await authorize(config, { prompt: 'login' });
    page(await browser.navigate(flow.url), 'the host sign-in page');
    const stale = await browser.request(`/test/finish?account=acc-student&authTime=${Math.floor(Date.now() / 1000) - 600}`);
    expect(stale.status).toBe(400);
    expect(await stale.text()).toMatch(/fresh sign-in \(prompt=login\)/);
    const unknown = await browser.request('/test/finish?account=acc-nobody');
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toMatch(/does not know the account/);
    expect((await browser.request('/test/finish?account=acc-student')).status).toBe(303);
  });
  it.each([
    ['milliseconds (Date.now())', () => Date.now(), /authTime \d+ is in the future; .*epoch seconds: it looks like milliseconds/],
    ['an hour ahead', () => Math.floor(Date.now() / 1000) + 3600, /authTime \d+ is in the future; it is the time of the sign-in in epoch seconds$/],
  ])('finishSignIn refuses an authTime in %s, which would make the sign-in fresh for ever (max_age)', async (_label, authTime, message) => {
    const browser = new Browser(app.baseUrl);
    const flow = await authorize(config, { max_age: '60' });
    page(await browser.navigate(flow.url), 'the host sign-in page');
    const refused = await browser.request(`/test/finish?account=acc-student&authTime=${authTime()}`);
    expect(refused.status).toBe(500); // a TypeError: the host's mistake, answered by the test's route
    expect(await refused.text()).toMatch(message);
    // the sign-in still waits, and a right authTime finishes it, with that auth_time
    const signedInAt = Math.floor(Date.now() / 1000) - 5;
    expect((await browser.request(`/test/finish?account=acc-student&authTime=${signedInAt}`)).status).toBe(303);
  });

  it('the library\'s password form is no way around the host\'s page', async () => {
    const browser = new Browser(app.baseUrl);
    const flow = await authorize(config);
    const hostPage = page(await browser.navigate(flow.url), 'the host sign-in page');
    const interaction = new URL(hostPage.url).searchParams.get('return_to')!;
    // the interaction page itself only sends the browser on to the host's page
    const again = await browser.request(interaction);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign-in\?return_to=/);
    // even with the form's valid CSRF token (made here from the known cookie key)
    const csrf = new CsrfTokens(COOKIE_KEY).issue(interaction.split('/').pop()!);
    const res = await browser.request(`${interaction}/login`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: STUDENT.email, password: STUDENT.password, csrf }),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('location')).toBeNull();
  });
});
