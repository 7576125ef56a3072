/**
 * `prompt=none` and `id_token_hint` for native clients (README "prompt, max_age and native
 * clients"): oidc-provider asks a native client's user for consent on every authorization
 * (anyone can claim a loopback redirect, RFC 8252 §8.6), so `prompt=none` always answers
 * `interaction_required` there, while a web client with a session and a grant gets its code
 * silently. An `id_token_hint` naming another account than the session's asks for a sign-in.
 */
import { Browser, isPage, signIn } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

function url(client: { clientId: string; redirectUri: string }, scope: string, extra: Record<string, string> = {}) {
  return buildAuthorizeUrl(app.baseUrl, client, { scope, challenge: pkcePair().challenge, state: 'st', extra });
}

async function redirectOf(browser: Browser, target: string): Promise<URLSearchParams> {
  const result = await browser.navigate(target);
  if (isPage(result)) throw new Error(`expected a redirect to the client, got:\n${result.html.slice(0, 300)}`);
  return new URL(result.redirect).searchParams;
}

it('prompt=none: a native client always gets interaction_required, even with a session and a grant', async () => {
  const browser = new Browser(app.baseUrl);
  await signIn(browser, url(MEMBER, 'openid account:read'), STUDENT);
  const params = await redirectOf(browser, url(MEMBER, 'openid account:read', { prompt: 'none' }));
  expect(params.get('error')).toBe('interaction_required');
  expect(params.get('error_description')).toBe('native clients require End-User interaction');
  expect(params.get('state')).toBe('st');
  expect(params.get('iss')).toBe(app.baseUrl);
});

it('prompt=none: a web client with a session and a grant gets its code; without a session login_required', async () => {
  const client = operator(app.baseUrl, app.operatorSecret);
  expect((await redirectOf(new Browser(app.baseUrl), url(client, 'openid courses:read', { prompt: 'none' }))).get('error')).toBe('login_required');
  const browser = new Browser(app.baseUrl);
  await signIn(browser, url(client, 'openid courses:read'), ADMIN);
  expect((await redirectOf(browser, url(client, 'openid courses:read', { prompt: 'none' }))).get('code')).toEqual(expect.any(String));
});

it('id_token_hint: the same account is not asked to sign in again; another account is', async () => {
  const browser = new Browser(app.baseUrl);
  const { verifier, challenge } = pkcePair();
  const redirect = await signIn(browser, buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', challenge, state: 'st' }), STUDENT);
  const tokens = await (await exchangeCode(app.baseUrl, MEMBER, new URL(redirect).searchParams.get('code')!, verifier)).json() as { id_token: string };

  // same account: straight to consent (native clients are always asked)
  const same = await browser.navigate(url(MEMBER, 'openid', { id_token_hint: tokens.id_token }));
  if (!isPage(same)) throw new Error('expected the consent page');
  expect(same.html).toContain('/confirm"');

  // another browser session (admin) with the student's hint: the sign-in page
  const other = new Browser(app.baseUrl);
  await signIn(other, url(MEMBER, 'openid'), ADMIN);
  const asked = await other.navigate(url(MEMBER, 'openid', { id_token_hint: tokens.id_token }));
  if (!isPage(asked)) throw new Error('expected the sign-in page');
  expect(asked.html).toContain('name="password"');
  // and with prompt=none it is login_required
  expect((await redirectOf(other, url(MEMBER, 'openid', { id_token_hint: tokens.id_token, prompt: 'none' }))).get('error')).toBe('login_required');
});
