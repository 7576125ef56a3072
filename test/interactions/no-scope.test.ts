/**
 * An authorization request without `scope` never reaches an empty consent page: it is
 * answered `invalid_scope` (with `state` and `iss`) before anyone signs in, for a native and a
 * web client, also with a sign-in session and with `prompt=none`. Documented in README
 * "Consent labels" (RFC 6749 §3.3: fail rather than apply a default).
 */
import { Browser, isPage, signIn } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

function withoutScope(client: { clientId: string; redirectUri: string }, extra: Record<string, string> = {}) {
  const url = new URL(buildAuthorizeUrl(app.baseUrl, client, { scope: 'x', challenge: pkcePair().challenge, state: 'st-1', extra }));
  url.searchParams.delete('scope');
  return url.href;
}

function expectInvalidScope(result: Awaited<ReturnType<Browser['navigate']>>, allowed: string) {
  const description = 'the request names no scope: ask for the scopes the client needs \\(it may ask for: ';
  if (isPage(result)) throw new Error(`expected a redirect to the client, got the page:\n${result.html.slice(0, 400)}`);
  const params = new URL(result.redirect).searchParams;
  expect(params.get('error')).toBe('invalid_scope');
  expect(params.get('error_description')).toMatch(new RegExp(`^${description}${allowed}\\)$`));
  expect(params.get('state')).toBe('st-1');
  expect(params.get('iss')).toBe(app.baseUrl);
}

it('answers a native client invalid_scope before the sign-in page', async () => {
  expectInvalidScope(await new Browser(app.baseUrl).navigate(withoutScope(MEMBER)), 'openid profile email account:read');
});

it('answers a web client invalid_scope, also with a session and with prompt=none', async () => {
  const client = operator(app.baseUrl, app.operatorSecret);
  const browser = new Browser(app.baseUrl);
  expectInvalidScope(await browser.navigate(withoutScope(client)), 'openid profile email courses:read courses:write [a-z_: ]+');
  await signIn(browser, buildAuthorizeUrl(app.baseUrl, client, { scope: 'openid courses:read', challenge: pkcePair().challenge, state: 's' }), ADMIN);
  for (const extra of [{}, { prompt: 'none' }, { prompt: 'consent' }] as Record<string, string>[]) {
    const result = await browser.navigate(withoutScope(client, extra));
    if (isPage(result)) throw new Error('expected a redirect');
    expect(new URL(result.redirect).searchParams.get('error')).toBe('invalid_scope');
  }
});

it('an empty scope is no scope', async () => {
  const browser = new Browser(app.baseUrl);
  await signIn(browser, buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }), STUDENT);
  const url = new URL(withoutScope(MEMBER));
  url.searchParams.set('scope', '');
  expectInvalidScope(await browser.navigate(url.href), 'openid profile email account:read');
});
