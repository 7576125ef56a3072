/**
 * The sign-in and consent pages: strict CSP, no framing, CSRF-safe forms, the client's name,
 * redirect host and every requested scope with its description from the catalogue.
 */
import { findScope } from '../../lib/index.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, OUTSIDER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const SCOPE = 'openid profile email account:read';

async function openLogin(browser: Browser): Promise<PageResult> {
  const result = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(result)) throw new Error('expected the sign-in page');
  return result;
}

function expectStrictHeaders(res: Response) {
  const csp = res.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toMatch(/style-src 'nonce-[A-Za-z0-9+/=]+'/);
  expect(csp).toContain("form-action 'self' http://127.0.0.1:8765");
  expect(csp).not.toContain('unsafe-inline');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
}

it('renders the sign-in page with strict headers and the client name', async () => {
  const login = await openLogin(new Browser(app.baseUrl));
  expect(login.response.status).toBe(200);
  expectStrictHeaders(login.response);
  expect(login.html).toContain('Demo Member App');
  expect(login.html).toContain('name="csrf"');
  expect(login.html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)[^"]*\.(css|js)/);
});

it('refuses a sign-in form without a valid CSRF token', async () => {
  const browser = new Browser(app.baseUrl);
  const login = await openLogin(browser);
  const form = findForm(login.html, '/login');
  for (const csrf of [undefined, 'forged']) {
    const body = new URLSearchParams({ email: STUDENT.email, password: STUDENT.password, ...(csrf ? { csrf } : {}) });
    const res = await browser.request(form.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(res.status).toBe(403);
  }
});

it.each([
  ['a broken gzip body', { 'content-encoding': 'gzip' }, 'csrf=x', 400],
  ['an encoding the parser does not know', { 'content-encoding': 'bogus' }, 'csrf=x', 415],
  ['a body over the forms\' 16 kB', {}, `csrf=${'x'.repeat(20_000)}`, 413],
])('answers a form it cannot read (%s) with the form-expired page, not a 500', async (_what, headers, body, status) => {
  const browser = new Browser(app.baseUrl);
  const form = findForm((await openLogin(browser)).html, '/login');
  const res = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body,
  });
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
  expect(await res.text()).toContain('This form has expired');
});

it('refuses a form posted without the interaction cookie (another browser)', async () => {
  const login = await openLogin(new Browser(app.baseUrl));
  const form = findForm(login.html, '/login');
  const res = await new Browser(app.baseUrl).request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }),
  });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
});

it('answers wrong credentials on the page without saying which part was wrong', async () => {
  const browser = new Browser(app.baseUrl);
  const result = await browser.submit(await openLogin(browser), '/login', { email: STUDENT.email, password: 'nope' });
  if (!isPage(result)) throw new Error('expected the sign-in page again');
  expect(result.response.status).toBe(401);
  expect(result.html).toContain('The email or password is incorrect.');
});

it('shows the client, its redirect host and every requested scope on the consent page', async () => {
  const browser = new Browser(app.baseUrl);
  const consent = await browser.submit(await openLogin(browser), '/login', STUDENT);
  if (!isPage(consent)) throw new Error('expected the consent page');
  expectStrictHeaders(consent.response);
  expect(consent.html).toContain('Demo Member App');
  expect(consent.html).toContain('127.0.0.1:8765');
  for (const scope of SCOPE.split(' ')) {
    expect(consent.html).toContain(`<code>${scope}</code>`);
    expect(consent.html).toContain(findScope(scope)!.description);
  }
  expect(consent.html).toContain('loopback address');
});

it('refuses an account without a role at the member client\'s site, then returns access_denied', async () => {
  const browser = new Browser(app.baseUrl);
  const refused = await browser.submit(await openLogin(browser), '/login', OUTSIDER);
  if (!isPage(refused)) throw new Error('expected the refusal page');
  expect(refused.response.status).toBe(403);
  expect(refused.html).toContain('You cannot use this application');
  expect(refused.html).not.toContain('/confirm"');
  const back = await browser.submit(refused, '/abort');
  if (isPage(back)) throw new Error('expected a redirect to the client');
  expect(new URL(back.redirect).searchParams.get('error')).toBe('access_denied');
});

it('escapes what it shows', async () => {
  const { escapeHtml } = await import('../../lib/pages/html.ts');
  expect(escapeHtml('<script>"x"&\'y\'</script>')).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
});

it('tells a signed-in person why they are asked to sign in again (prompt=login), and no one else', async () => {
  const browser = new Browser(app.baseUrl);
  const first = await openLogin(browser);
  expect(first.html).not.toContain('asked you to sign in again');
  await browser.submit(first, '/login', STUDENT);
  const again = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge: pkcePair().challenge, state: 's', extra: { prompt: 'login' } }));
  if (!isPage(again)) throw new Error('expected the sign-in page');
  expect(again.html).toContain('<span class="client">Demo Member App</span> asked you to sign in again, even if you are signed in already.');
});

describe('Back from the consent page to the sign-in page (interactions/next-step.ts)', () => {
  async function toConsent(browser: Browser, state = 's') {
    const login = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge: pkcePair().challenge, state }));
    if (!isPage(login)) throw new Error('expected the sign-in page');
    const consent = await browser.submit(login, '/login', { email: STUDENT.email, password: STUDENT.password });
    if (!isPage(consent) || !consent.html.includes('/confirm"')) throw new Error('expected the consent page');
    expect(consent.url).not.toBe(login.url);
    return { login, consent };
  }

  it('goes to the consent page of the same flow (303, no-store), whose Allow still answers that flow', async () => {
    const browser = new Browser(app.baseUrl);
    const { login, consent } = await toConsent(browser, 'first');
    const back = await browser.request(login.url, { headers: { accept: 'text/html' } });
    expect({ status: back.status, location: back.headers.get('location'), cache: back.headers.get('cache-control') })
      .toEqual({ status: 303, location: consent.url, cache: 'no-store' });
    const again = await browser.navigate(login.url);
    if (!isPage(again)) throw new Error('expected the consent page again');
    expect(again.url).toBe(consent.url);
    const done = await browser.submit(again, '/confirm');
    if (isPage(done)) throw new Error('expected the redirect to the client');
    expect(new URL(done.redirect).searchParams.get('state')).toBe('first');
    expect(new URL(done.redirect).searchParams.get('code')).toEqual(expect.any(String));
    // as /openapi.json says
    const doc = await (await fetch(`${app.baseUrl}/openapi.json`)).json() as { paths: Record<string, { get: { responses: Record<string, { description: string }> } }> };
    expect(doc.paths['/oauth/interaction/{uid}']!.get.responses['303']!.description).toContain('a step of the same authorization this browser has moved past');
  });

  it('the pair is a cookie on the ended step\'s own path, HttpOnly, SameSite=Lax', async () => {
    const browser = new Browser(app.baseUrl);
    const login = await openLogin(browser);
    const form = findForm(login.html, '/login');
    const posted = await browser.request(form.action, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }).toString(),
    });
    const resume = await browser.request(new URL(posted.headers.get('location')!, login.url).href);
    const uid = new URL(login.url).pathname.split('/').at(-1);
    const next = resume.headers.getSetCookie().find((c) => c.startsWith('platform_auth_next='));
    expect(next).toMatch(new RegExp(`^platform_auth_next=${uid}~[^;.]+\\.[^;]+; path=/oauth/interaction/${uid}; expires=[^;]+; samesite=lax; httponly$`));
  });

  it('a flow started later in the same browser (another authorization) never becomes where Back leads', async () => {
    const browser = new Browser(app.baseUrl);
    const { login, consent } = await toConsent(browser, 'mine');
    // signed in now: a second authorization (a page of another site can start one) goes to a consent page of its own
    const other = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge: pkcePair().challenge, state: 'theirs' }));
    if (!isPage(other) || !other.html.includes('/confirm"')) throw new Error('expected the other flow\'s consent page');
    expect(other.url).not.toBe(consent.url);
    const back = await browser.request(login.url);
    expect({ status: back.status, location: back.headers.get('location') }).toEqual({ status: 303, location: consent.url });
  });

  it('a pair naming another ended step, or with a MAC not made with the cookie keys, is not followed', async () => {
    const mine = await toConsent(new Browser(app.baseUrl));
    const theirsBrowser = new Browser(app.baseUrl);
    const theirs = await toConsent(theirsBrowser);
    const theirPair = theirsBrowser.cookie('platform_auth_next')!;
    const [, theirNext] = theirPair.split('.')[0]!.split('~');
    const mineUid = new URL(mine.login.url).pathname.split('/').at(-1);
    for (const value of [theirPair, `${mineUid}~${theirNext}.${theirPair.split('.')[1]}`]) {
      const res = await fetch(mine.login.url, { headers: { cookie: `platform_auth_next=${value}` }, redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This page has expired');
    }
    // the genuine pair, sent alone, is followed: what is refused above is the pair, nothing else
    const genuine = await fetch(theirs.login.url, { headers: { cookie: `platform_auth_next=${theirPair}` }, redirect: 'manual' });
    expect({ status: genuine.status, location: genuine.headers.get('location') }).toEqual({ status: 303, location: theirs.consent.url });
  });

  it('a sign-in form posted again from the old page is still refused as expired, never applied to the consent step', async () => {
    const browser = new Browser(app.baseUrl);
    const { login } = await toConsent(browser);
    const replay = await browser.submit(login, '/login', { email: STUDENT.email, password: STUDENT.password });
    if (!isPage(replay)) throw new Error('expected a page');
    expect(replay.response.status).toBe(400);
    expect(replay.html).toContain('This page has expired');
  });

  it('once the flow is over (the consent given), the old pages say expired: nothing left to go to', async () => {
    const browser = new Browser(app.baseUrl);
    const { login, consent } = await toConsent(browser);
    await browser.submit(consent, '/confirm');
    for (const old of [login.url, consent.url]) {
      const res = await browser.request(old);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This page has expired');
    }
  });
});
