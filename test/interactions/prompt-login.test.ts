/**
 * `prompt=login` asks for exactly one fresh sign-in, for a native client (loopback redirect:
 * oidc-provider asks native clients for consent every time) and for a web client, on a
 * first authorization and with a sign-in session already in the browser. The login result
 * must survive the consent step, or the provider asks for the sign-in again (and a native
 * client, whose consent is asked again after every sign-in, never gets its code).
 */
import * as oidc from 'openid-client';

import { Browser, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, STUDENT, ADMIN, operator } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

interface Counted {
  signIns: number;
  consents: number;
  callback: URL;
}

/** Drives the pages like a person would, counting the sign-ins and consents it took (at most 6 pages). */
async function drive(browser: Browser, url: string, user: { email: string; password: string }): Promise<Counted> {
  let signIns = 0;
  let consents = 0;
  let result: PageResult | { redirect: string } = await browser.navigate(url);
  for (let step = 0; isPage(result); step += 1) {
    if (step >= 6) throw new Error(`no code after ${signIns} sign-ins and ${consents} consents`);
    if (result.html.includes('name="password"')) {
      signIns += 1;
      result = await browser.submit(result, '/login', user);
    } else if (result.html.includes('/confirm"')) {
      consents += 1;
      result = await browser.submit(result, '/confirm');
    } else {
      throw new Error(`unexpected page ${result.response.status}:\n${result.html.slice(0, 800)}`);
    }
  }
  return { signIns, consents, callback: new URL(result.redirect) };
}

async function authorizeUrl(config: oidc.Configuration, redirectUri: string, scope: string, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope, state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra,
  });
  return { url: url.href, verifier, state };
}

async function redeem(config: oidc.Configuration, callback: URL, verifier: string, state: string) {
  return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
}

describe('a native client (loopback redirect)', () => {
  let config: oidc.Configuration;
  beforeAll(async () => {
    config = await oidc.discovery(new URL(app.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  });

  it('completes prompt=login with one sign-in and one consent, first time and with a session', async () => {
    const browser = new Browser(app.baseUrl);
    for (let round = 0; round < 2; round += 1) {
      const { url, verifier, state } = await authorizeUrl(config, MEMBER.redirectUri, 'openid account:read', { prompt: 'login' });
      const counted = await drive(browser, url, STUDENT);
      expect({ round, signIns: counted.signIns, consents: counted.consents }).toEqual({ round, signIns: 1, consents: 1 });
      const tokens = await redeem(config, counted.callback, verifier, state);
      expect(tokens.claims()?.sub).toBe('acc-student');
    }
  });

  it('without prompt=login, a session skips the sign-in but the consent is asked again', async () => {
    const browser = new Browser(app.baseUrl);
    const first = await authorizeUrl(config, MEMBER.redirectUri, 'openid account:read');
    expect(await drive(browser, first.url, STUDENT)).toMatchObject({ signIns: 1, consents: 1 });
    const second = await authorizeUrl(config, MEMBER.redirectUri, 'openid account:read');
    const counted = await drive(browser, second.url, STUDENT);
    expect(counted).toMatchObject({ signIns: 0, consents: 1 });
    await redeem(config, counted.callback, second.verifier, second.state);
  });
});

describe('a web client', () => {
  let config: oidc.Configuration;
  let redirectUri: string;
  beforeAll(async () => {
    const client = operator(app.baseUrl, app.operatorSecret);
    redirectUri = client.redirectUri;
    config = await oidc.discovery(new URL(app.baseUrl), client.clientId, client.clientSecret, oidc.ClientSecretPost(client.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
  });

  it('signs in once on its first authorization with prompt=login, then once more per prompt=login', async () => {
    const browser = new Browser(app.baseUrl);
    const first = await authorizeUrl(config, redirectUri, 'openid courses:read', { prompt: 'login' });
    const counted = await drive(browser, first.url, ADMIN);
    expect(counted).toMatchObject({ signIns: 1, consents: 1 });
    await redeem(config, counted.callback, first.verifier, first.state);

    // consent is remembered for a web client: prompt=login asks for the sign-in only
    const again = await authorizeUrl(config, redirectUri, 'openid courses:read', { prompt: 'login' });
    const second = await drive(browser, again.url, ADMIN);
    expect(second).toMatchObject({ signIns: 1, consents: 0 });
    const tokens = await redeem(config, second.callback, again.verifier, again.state);
    expect(tokens.claims()?.sub).toBe('acc-admin');
  });

  it('signs in once on a first authorization without prompt', async () => {
    const { url, verifier, state } = await authorizeUrl(config, redirectUri, 'openid courses:read');
    const counted = await drive(new Browser(app.baseUrl), url, ADMIN);
    expect(counted).toMatchObject({ signIns: 1, consents: 1 });
    await redeem(config, counted.callback, verifier, state);
  });
});

describe('prompt=login answered by another account', () => {
  it('signs the session\'s account out and continues as the new one, with one sign-in', async () => {
    const config = await oidc.discovery(new URL(app.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const browser = new Browser(app.baseUrl);
    const first = await authorizeUrl(config, MEMBER.redirectUri, 'openid account:read');
    await drive(browser, first.url, STUDENT);
    const again = await authorizeUrl(config, MEMBER.redirectUri, 'openid account:read', { prompt: 'login' });
    const counted = await drive(browser, again.url, ADMIN);
    expect(counted).toMatchObject({ signIns: 1, consents: 1 });
    const tokens = await redeem(config, counted.callback, again.verifier, again.state);
    expect(tokens.claims()?.sub).toBe('acc-admin');

    // the session is the new account's now: no sign-in, and none of the old account's consent
    const later = await authorizeUrl(config, MEMBER.redirectUri, 'openid account:read');
    const third = await drive(browser, later.url, ADMIN);
    expect(third).toMatchObject({ signIns: 0, consents: 1 });
    expect((await redeem(config, third.callback, later.verifier, later.state)).claims()?.sub).toBe('acc-admin');
  });
});
