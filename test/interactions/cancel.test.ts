/**
 * Cancel on the sign-in page and Deny on the consent page send the person back to the client
 * with `access_denied`, its `state` and `iss` (RFC 9207), which openid-client checks before it
 * reports the refusal.
 */
import * as oidc from 'openid-client';

import { Browser, isPage } from '../support/browser.ts';
import { buildAuthorizeUrl, MEMBER, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let config: oidc.Configuration;
beforeAll(async () => {
  app = await startApp();
  config = await oidc.discovery(new URL(app.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
});
afterAll(() => app.stop());

async function start() {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: MEMBER.redirectUri, scope: 'openid account:read', state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  return { url: url.href, verifier, state };
}

async function expectAccessDenied(redirect: string, verifier: string, state: string, description: string) {
  const callback = new URL(redirect);
  expect(callback.origin + callback.pathname).toBe(MEMBER.redirectUri);
  expect(Object.fromEntries(callback.searchParams)).toEqual({ error: 'access_denied', error_description: description, state, iss: app.baseUrl });
  // openid-client checks iss and state first, then reports the client's refusal
  await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }))
    .rejects.toMatchObject({ name: 'AuthorizationResponseError', error: 'access_denied' });
}

it('Cancel on the sign-in page returns access_denied with state and iss', async () => {
  const { url, verifier, state } = await start();
  const browser = new Browser(app.baseUrl);
  const login = await browser.navigate(url);
  if (!isPage(login)) throw new Error('expected the sign-in page');
  expect(login.html).toContain('>Cancel</button>');
  const back = await browser.submit(login, '/abort');
  if (isPage(back)) throw new Error(`expected a redirect to the client, got ${back.html.slice(0, 300)}`);
  await expectAccessDenied(back.redirect, verifier, state, 'the user cancelled the sign-in');
});

it('Deny on the consent page returns access_denied with state and iss', async () => {
  const { url, verifier, state } = await start();
  const browser = new Browser(app.baseUrl);
  const login = await browser.navigate(url);
  if (!isPage(login)) throw new Error('expected the sign-in page');
  const consent = await browser.submit(login, '/login', STUDENT);
  if (!isPage(consent)) throw new Error('expected the consent page');
  const back = await browser.submit(consent, '/abort');
  if (isPage(back)) throw new Error('expected a redirect to the client');
  await expectAccessDenied(back.redirect, verifier, state, 'the user denied the request');
});

it('refuses a Cancel without the form\'s CSRF token', async () => {
  const { url } = await start();
  const browser = new Browser(app.baseUrl);
  const login = await browser.navigate(url);
  if (!isPage(login)) throw new Error('expected the sign-in page');
  const action = /action="([^"]*\/abort)"/.exec(login.html)![1]!;
  const res = await browser.request(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=forged' });
  expect(res.status).toBe(403);
  expect(res.headers.get('location')).toBeNull();
});

describe('a client that registered itself (Variant B)', () => {
  let open: RunningApp;
  beforeAll(async () => {
    open = await startApp({ auth: { registration: { variant: 'open' } } });
  });
  afterAll(() => open.stop());

  async function register(redirectUri: string): Promise<string> {
    const res = await fetch(`${open.baseUrl}/api/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Learn - continue', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    expect(res.status).toBe(201);
    return (await res.json() as { client_id: string }).client_id;
  }

  async function signInPage(clientId: string, redirectUri: string) {
    const { challenge } = pkcePair();
    const browser = new Browser(open.baseUrl);
    const login = await browser.navigate(buildAuthorizeUrl(open.baseUrl, { clientId, redirectUri }, { scope: 'openid', challenge, state: randomState() }));
    if (!isPage(login)) throw new Error('expected the sign-in page');
    return { browser, login };
  }

  it('Cancel on the sign-in page sends nobody to its redirect URI: the page the person is on names none', async () => {
    const redirectUri = 'https://evil.example/cb';
    const { browser, login } = await signInPage(await register(redirectUri), redirectUri);
    const back = await browser.submit(login, '/abort');
    if (!isPage(back)) throw new Error(`expected a page, was sent to ${back.redirect}`);
    expect(back.response.status).toBe(200);
    expect(back.html).toContain('Sign-in cancelled');
    expect(back.html).not.toContain('evil.example');
  });

  it('"Return to the application" on the refusal page sends nobody there either: that page names no destination', async () => {
    const redirectUri = 'https://evil.example/cb';
    const clientId = await register(redirectUri);
    const browser = new Browser(open.baseUrl);
    // a student signed in at the host (signIn.session) reaches the refusal page without a sign-in
    const form = await browser.navigate('/sign-in');
    if (!isPage(form)) throw new Error('expected the host sign-in page');
    await browser.submit(form, '/sign-in', STUDENT);
    const refusal = await browser.navigate(buildAuthorizeUrl(open.baseUrl, { clientId, redirectUri }, { scope: 'openid', challenge: pkcePair().challenge, state: randomState() }));
    if (!isPage(refusal)) throw new Error(`expected the refusal page, was sent to ${refusal.redirect}`);
    expect(refusal.response.status).toBe(403);
    expect(refusal.html).not.toContain('evil.example');
    const back = await browser.submit(refusal, '/abort');
    if (!isPage(back)) throw new Error(`expected a page, was sent to ${back.redirect}`);
    expect(back.html).toContain('Sign-in cancelled');
  });

  it('Cancel on the host\'s own sign-in page (auth.interactions.cancelSignIn) sends nobody there either', async () => {
    const viaHost = await startApp({ signIn: 'host', auth: { registration: { variant: 'open' } } });
    try {
      const redirectUri = 'https://evil.example/cb';
      const res = await fetch(`${viaHost.baseUrl}/api/oauth/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Learn - continue', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
      });
      const { client_id: clientId } = await res.json() as { client_id: string };
      const browser = new Browser(viaHost.baseUrl);
      const hostPage = await browser.navigate(buildAuthorizeUrl(viaHost.baseUrl, { clientId, redirectUri }, { scope: 'openid', challenge: pkcePair().challenge, state: randomState() }));
      if (!isPage(hostPage) || new URL(hostPage.url).pathname !== '/sign-in') throw new Error('expected the host\'s sign-in page');
      const back = await browser.submit(hostPage, '/sign-in/cancel');
      if (!isPage(back)) throw new Error(`expected a page, was sent to ${back.redirect}`);
      expect(back.response.status).toBe(200);
      expect(back.html).toContain('Sign-in cancelled');
      expect(back.response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      // the sign-in it cancelled is no longer waiting in this browser
      const again = await browser.request(new URL('/sign-in', viaHost.baseUrl).href);
      expect(await again.text()).not.toContain('Learn - continue');
    } finally {
      await viaHost.stop();
    }
  });

  it('with a loopback redirect URI (a native app on the person\'s own device), Cancel still goes back', async () => {
    const redirectUri = 'http://127.0.0.1:8765/callback';
    const { browser, login } = await signInPage(await register(redirectUri), redirectUri);
    const back = await browser.submit(login, '/abort');
    if (isPage(back)) throw new Error('expected a redirect to the client');
    expect(new URL(back.redirect).searchParams.get('error')).toBe('access_denied');
  });
});
