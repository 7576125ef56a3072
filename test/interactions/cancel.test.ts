/**
 * Cancel on the sign-in page and Deny on the consent page send the person back to the client
 * with `access_denied`, its `state` and `iss` (RFC 9207), which openid-client checks before it
 * reports the refusal.
 */
import * as oidc from 'openid-client';

import { Browser, isPage } from '../support/browser.ts';
import { MEMBER, STUDENT } from '../support/flows.ts';
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
