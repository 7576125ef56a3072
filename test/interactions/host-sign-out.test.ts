/**
 * The library's sign-in session ends with the host's (README "Sign-in options"):
 *
 * - a session the host's session signed in (`signIn.session`), or the host's page
 *   (`finishSignIn`), ends when the host's session is gone, whether it expired or the person
 *   signed out there: `prompt=none` gets `login_required`, and the next authorization shows a
 *   sign-in page;
 * - a session signed in on the library's own page does not (the host never knew it);
 * - `auth.interactions.signOut(ctx)`, which the demo's `/sign-out` calls, ends either kind,
 *   and leaves issued tokens as they are.
 */
import { Browser, findForm, isPage, signIn } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, buildAuthorizeUrl, exchangeCode, MEMBER, obtainTokens, operator, OUTSIDER, STUDENT } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

/** the demo host's session cookie (examples/host/host-sign-in.ts, HOST_AREA) */
const HOST_COOKIE = 'demo_session';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const client = () => operator(app.baseUrl, app.operatorSecret);

function url(extra: Record<string, string> = {}, challenge = pkcePair().challenge) {
  return buildAuthorizeUrl(app.baseUrl, client(), { scope: 'openid courses:read', challenge, state: 'st', extra });
}

/** What `prompt=none` answers this browser: the code, or the error. */
async function silently(browser: Browser): Promise<{ code: string | null; error: string | null }> {
  const result = await browser.navigate(url({ prompt: 'none' }));
  if (isPage(result)) throw new Error(`expected a redirect to the client, got:\n${result.html.slice(0, 300)}`);
  const params = new URL(result.redirect).searchParams;
  return { code: params.get('code'), error: params.get('error') };
}

/** Signs in at the host's own page; returns that page, which holds the host's sign-out form. */
async function signInAtHost(browser: Browser, who: { email: string; password: string } = ADMIN): Promise<PageResult> {
  const form = await browser.navigate('/sign-in');
  if (!isPage(form)) throw new Error('expected the host sign-in page');
  const after = await browser.submit(form, '/sign-in', who);
  if (!isPage(after) || !after.html.includes('action="/sign-out"')) throw new Error('expected the host page with its sign-out form');
  return after;
}

const isLibrarySignIn = (result: PageResult | { redirect: string }) => isPage(result) && result.html.includes('name="password"');

it('a session the host\'s session signed in ends when the host\'s session is gone', async () => {
  const browser = new Browser(app.baseUrl);
  await signInAtHost(browser);
  await signIn(browser, url(), ADMIN);
  expect(await silently(browser)).toEqual({ code: expect.any(String), error: null });

  // the host's session expires (its cookie is gone); the library's is still there
  browser.dropCookie(HOST_COOKIE);
  expect(await silently(browser)).toEqual({ code: null, error: 'login_required' });
  expect(isLibrarySignIn(await browser.navigate(url()))).toBe(true);
});

it('a session the host\'s page signed in (finishSignIn) ends when the host\'s session is gone', async () => {
  const viaPage = await startApp({ signIn: 'host' });
  try {
    const browser = new Browser(viaPage.baseUrl);
    const authorize = (extra: Record<string, string> = {}) => buildAuthorizeUrl(viaPage.baseUrl, operator(viaPage.baseUrl, viaPage.operatorSecret), {
      scope: 'openid courses:read', challenge: pkcePair().challenge, state: 'st', extra,
    });
    const hostPage = await browser.navigate(authorize());
    if (!isPage(hostPage) || new URL(hostPage.url).pathname !== '/sign-in') throw new Error('expected the host\'s sign-in page');
    const consent = await browser.submit(hostPage, '/sign-in', ADMIN);
    if (!isPage(consent)) throw new Error('expected the consent page');
    const back = await browser.submit(consent, '/confirm');
    expect(isPage(back)).toBe(false);
    const silent = async () => {
      const result = await browser.navigate(authorize({ prompt: 'none' }));
      if (isPage(result)) throw new Error('expected a redirect to the client');
      return new URL(result.redirect).searchParams;
    };
    expect((await silent()).get('code')).toEqual(expect.any(String));
    browser.dropCookie(HOST_COOKIE);
    expect((await silent()).get('error')).toBe('login_required');
  } finally {
    await viaPage.stop();
  }
});

it('a session signed in on the library\'s own page stays without a host session', async () => {
  const browser = new Browser(app.baseUrl);
  expect(isLibrarySignIn(await browser.navigate(url()))).toBe(true);
  await signIn(browser, url(), ADMIN);
  expect(await silently(browser)).toEqual({ code: expect.any(String), error: null });
});

it('a library-page sign-in made after the host\'s sign-in is not ended by the host\'s', async () => {
  const browser = new Browser(app.baseUrl);
  await signInAtHost(browser);
  await signIn(browser, url(), ADMIN);
  // a fresh sign-in on the library's page replaces the one the host's session made
  await signIn(browser, url({ prompt: 'login' }), ADMIN);
  browser.dropCookie(HOST_COOKIE);
  expect(await silently(browser)).toEqual({ code: expect.any(String), error: null });
});

describe('a consent page left open while the host\'s session ended', () => {
  /** The consent page the host's session of `who` leads to. */
  async function consentPage(browser: Browser, authorize: string, who: { email: string; password: string }): Promise<PageResult> {
    await signInAtHost(browser, who);
    const consent = await browser.navigate(authorize);
    if (!isPage(consent) || !consent.html.includes('/confirm') || !consent.html.includes(who.email)) {
      throw new Error(`expected ${who.email}'s consent page`);
    }
    return consent;
  }

  it('gives no consent: the browser signs in again, and nothing was granted', async () => {
    const browser = new Browser(app.baseUrl);
    const consent = await consentPage(browser, url(), ADMIN);
    browser.dropCookie(HOST_COOKIE);
    const after = await browser.submit(consent, '/confirm');
    expect(isLibrarySignIn(after)).toBe(true);
    // signed in again as the same person, consent is asked again: the first Allow granted nothing
    const again = await browser.submit(after as PageResult, '/login', ADMIN);
    expect(isPage(again) && again.html.includes('/confirm')).toBe(true);
  });

  it('shown again (reloaded), it is the sign-in page, without the earlier person\'s name', async () => {
    const browser = new Browser(app.baseUrl);
    const consent = await consentPage(browser, url(), ADMIN);
    browser.dropCookie(HOST_COOKIE);
    const reloaded = await browser.navigate(consent.url);
    expect(isLibrarySignIn(reloaded)).toBe(true);
    expect((reloaded as PageResult).html).not.toContain(ADMIN.email);
  });

  it('gives no consent for the earlier person when someone else signed in at the host', async () => {
    const browser = new Browser(app.baseUrl);
    const authorize = buildAuthorizeUrl(app.baseUrl, MEMBER, {
      scope: 'openid account:read', resource: app.baseUrl, challenge: pkcePair().challenge, state: 'st',
    });
    const consent = await consentPage(browser, authorize, ADMIN);
    browser.dropCookie(HOST_COOKIE);
    await signInAtHost(browser, STUDENT);
    const after = await browser.submit(consent, '/confirm');
    // the new person's own consent, not a code for the earlier one
    expect(isPage(after) && after.html.includes('/confirm') && after.html.includes(STUDENT.email)).toBe(true);
    expect((after as PageResult).html).not.toContain(ADMIN.email);
  });

  it('with the host\'s session still there, Allow answers the client with a code', async () => {
    const browser = new Browser(app.baseUrl);
    const consent = await consentPage(browser, url(), ADMIN);
    const after = await browser.submit(consent, '/confirm');
    expect(isPage(after)).toBe(false);
    expect(new URL((after as { redirect: string }).redirect).searchParams.get('code')).toEqual(expect.any(String));
  });

  const isConsent = (r: PageResult | { redirect: string }): r is PageResult => isPage(r) && r.html.includes('/confirm"');
  const codeOf = (r: PageResult | { redirect: string }) => (isPage(r) ? null : new URL(r.redirect).searchParams.get('code'));
  const memberUrl = (extra: Record<string, string> = {}) => buildAuthorizeUrl(app.baseUrl, MEMBER, {
    scope: 'openid account:read', resource: app.baseUrl, challenge: pkcePair().challenge, state: 'st', extra,
  });

  /** Signs in as `who` on the library's page shown for `authorize`; returns the consent page it leads to. */
  async function ownPageConsent(browser: Browser, authorize: string, who: { email: string; password: string }): Promise<PageResult> {
    const page = await browser.navigate(authorize);
    if (!isLibrarySignIn(page)) throw new Error('expected the library\'s sign-in page');
    const consent = await browser.submit(page as PageResult, '/login', who);
    if (!isConsent(consent) || !consent.html.includes(who.email)) throw new Error(`expected ${who.email}'s consent page`);
    return consent;
  }

  it('a sign-in on the library\'s page while the host names someone else (switching accounts) reaches consent and a code', async () => {
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    const consent = await ownPageConsent(browser, url({ prompt: 'login' }), ADMIN);
    expect(codeOf(await browser.submit(consent, '/confirm'))).toEqual(expect.any(String));
  });

  it('so does one the host\'s session could not answer (id_token_hint names another account)', async () => {
    const { id_token: hint } = await obtainTokens(app.baseUrl, client(), { scope: 'openid courses:read' }, ADMIN);
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    const consent = await ownPageConsent(browser, url({ id_token_hint: hint! }), ADMIN);
    expect(codeOf(await browser.submit(consent, '/confirm'))).toEqual(expect.any(String));
  });

  it('that page, left open while the host changes hands again, gives no consent', async () => {
    const browser = new Browser(app.baseUrl);
    await signInAtHost(browser, STUDENT);
    const consent = await ownPageConsent(browser, memberUrl({ prompt: 'login' }), ADMIN);
    browser.dropCookie(HOST_COOKIE);
    await signInAtHost(browser, OUTSIDER);
    const after = await browser.submit(consent, '/confirm');
    expect(codeOf(after)).toBeNull();
    expect(isPage(after) && after.html.includes(ADMIN.email)).toBe(false);
  });

  it('a consent page of a library-page sign-in stays valid after another tab\'s authorization renewed the session', async () => {
    const browser = new Browser(app.baseUrl);
    const first = await ownPageConsent(browser, url(), ADMIN);
    // another tab: the member client (native, asked for consent every time); its resume
    // gives the browser's session a new id
    const second = await browser.navigate(memberUrl());
    if (!isConsent(second)) throw new Error('expected the second tab\'s consent page');
    expect(codeOf(await browser.submit(second, '/confirm'))).toEqual(expect.any(String));
    expect(codeOf(await browser.submit(first, '/confirm'))).toEqual(expect.any(String));
  });

  it('a host session lookup failing during a sign-in on the library\'s page does not fail the sign-in', async () => {
    const flaky = await startApp({
      auth: {
        signIn: {
          session: (ctx) => {
            if (ctx.method === 'POST' && ctx.path.endsWith('/login')) throw new Error('the host session store is down');
            return undefined;
          },
        },
      },
    });
    try {
      const browser = new Browser(flaky.baseUrl);
      const authorize = buildAuthorizeUrl(flaky.baseUrl, operator(flaky.baseUrl, flaky.operatorSecret), { scope: 'openid courses:read', challenge: pkcePair().challenge, state: 'st' });
      const signInPage = await browser.navigate(authorize);
      const consent = await browser.submit(signInPage as PageResult, '/login', ADMIN);
      expect(isPage(consent) && consent.html.includes('/confirm"')).toBe(true);
      expect(codeOf(await browser.submit(consent as PageResult, '/confirm'))).toEqual(expect.any(String));
    } finally {
      await flaky.stop();
    }
  });

  it('a consent page of a sign-in made on the library\'s page stays valid without a host session', async () => {
    const browser = new Browser(app.baseUrl);
    const signInPage = await browser.navigate(url());
    const consent = await browser.submit(signInPage as PageResult, '/login', ADMIN);
    if (!isPage(consent) || !consent.html.includes('/confirm')) throw new Error('expected the consent page');
    const reloaded = await browser.navigate(consent.url);
    expect(isPage(reloaded) && reloaded.html.includes('/confirm')).toBe(true);
    const after = await browser.submit(reloaded as PageResult, '/confirm');
    expect(new URL((after as { redirect: string }).redirect).searchParams.get('code')).toEqual(expect.any(String));
  });
});

describe('auth.interactions.signOut, from the host\'s sign-out', () => {
  it('ends a session signed in on the library\'s page, clears its cookie, and leaves issued tokens working', async () => {
    const browser = new Browser(app.baseUrl);
    const { verifier, challenge } = pkcePair();
    const redirect = await signIn(browser, url({}, challenge), ADMIN);
    const issued = await exchangeCode(app.baseUrl, client(), new URL(redirect).searchParams.get('code')!, verifier);
    const { access_token: accessToken } = await issued.json() as { access_token: string };

    const hostPage = await signInAtHost(browser);
    const signedOut = await browser.request(new URL('/sign-out', app.baseUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: /name="csrf" value="([^"]+)"/.exec(hostPage.html.slice(hostPage.html.indexOf('action="/sign-out"')))![1]! }).toString(),
    });
    expect(signedOut.status).toBe(303);
    const cleared = signedOut.headers.getSetCookie().filter((c) => c.startsWith('_session='));
    expect(cleared).toEqual([expect.stringMatching(/^_session=;.*expires=Thu, 01 Jan 1970/)]);

    expect(await silently(browser)).toEqual({ code: null, error: 'login_required' });
    // the session ended, not the consent's tokens (auth.connectedApps revokes those)
    const userinfo = await fetch(new URL('/api/oauth/userinfo', app.baseUrl), { headers: { authorization: `Bearer ${accessToken}` } });
    expect(userinfo.status).toBe(200);
  });

  it('is harmless in a browser the library never signed in', async () => {
    const browser = new Browser(app.baseUrl);
    const hostPage = await signInAtHost(browser);
    const after = await browser.submit(hostPage, '/sign-out');
    expect(isPage(after) && new URL(after.url).pathname).toBe('/sign-in');
    expect(isLibrarySignIn(await browser.navigate(url()))).toBe(true);
  });
});

/** Signs in on the library's page and keeps the 303 to the authorization's resume instead of following it (a failed resume, a closed tab). */
async function signInKeepingResume(browser: Browser): Promise<string> {
  const login = await browser.navigate(url());
  if (!isPage(login)) throw new Error('expected the sign-in page');
  const form = findForm(login.html, '/login');
  const posted = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, email: ADMIN.email, password: ADMIN.password }).toString(),
  });
  expect(posted.status).toBe(303);
  const resume = posted.headers.get('location')!;
  expect(new URL(resume, app.baseUrl).pathname).toMatch(/^\/oauth\/authorize\//);
  return resume;
}

/** The host's sign-out (the demo's /sign-out calls auth.interactions.signOut), with its page's CSRF token. */
async function signOutAtHost(browser: Browser): Promise<void> {
  const hostPage = await browser.navigate('/sign-in');
  if (!isPage(hostPage)) throw new Error('expected the host page');
  const { csrf } = findForm(hostPage.html, '/sign-in').hidden;
  const out = await browser.request('/sign-out', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: csrf! }).toString() });
  expect(out.status).toBe(303);
}

it('a sign-in finished in a browser with no session yet, whose redirect was not followed, ends with signOut: whoever follows it later is not signed in', async () => {
  const browser = new Browser(app.baseUrl);
  const resume = await signInKeepingResume(browser);
  await signOutAtHost(browser);
  // the next person follows the kept redirect: no consent page naming the one who signed out
  const followed = await browser.navigate(resume);
  expect(isPage(followed) && followed.html.includes('/confirm"')).toBe(false);
  expect(await silently(browser)).toEqual({ code: null, error: 'login_required' });
});

it('several such sign-ins (two tabs, or one retried after a failed resume): signOut ends every one, not only the last', async () => {
  const browser = new Browser(app.baseUrl);
  const first = await signInKeepingResume(browser);
  const second = await signInKeepingResume(browser);
  const third = await signInKeepingResume(browser);
  await signOutAtHost(browser);
  for (const resume of [first, second, third]) {
    const followed = await browser.navigate(resume);
    expect(isPage(followed) && followed.html.includes('/confirm"')).toBe(false);
  }
  expect(await silently(browser)).toEqual({ code: null, error: 'login_required' });
});
