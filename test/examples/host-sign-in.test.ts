/**
 * The demo's own sign-in page (`SIGN_IN=host`: `signIn.loginUrl`) when its form comes back
 * after the sign-in it was shown for is no longer waiting: Cancel pressed again (the back
 * button, a double click), or the sign-in expired meanwhile. The person gets the page again,
 * saying so, never Koa's plain-text 400 of `cancelSignIn`'s refusal.
 */
import { Browser, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => { app = await startApp({ signIn: 'host' }); });
afterAll(() => app.stop());

/** A browser on the host's sign-in page, sent there by an authorization of the member app. */
async function onHostPage(): Promise<{ browser: Browser; hostPage: PageResult }> {
  const browser = new Browser(app.baseUrl);
  const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 'st' });
  const hostPage = await browser.navigate(url);
  if (!isPage(hostPage) || new URL(hostPage.url).pathname !== '/sign-in') throw new Error('expected the host\'s sign-in page');
  return { browser, hostPage };
}

function expectNothingToCancel(answer: PageResult | { redirect: string }): void {
  if (!isPage(answer)) throw new Error(`expected the page, was sent to ${answer.redirect}`);
  expect({ status: answer.response.status, type: answer.response.headers.get('content-type') })
    .toEqual({ status: 409, type: 'text/html; charset=utf-8' });
  expect(answer.html).toContain('No sign-in is waiting any more');
  expect(answer.response.headers.get('content-security-policy')).toContain("default-src 'none'");
  // a fresh form: the person can sign in from here
  expect(answer.html).toMatch(/<form method="post" action="\/sign-in">\n<input type="hidden" name="csrf" value="[^"]+">/);
}

it('Cancel pressed again gets the page, saying no sign-in is waiting', async () => {
  const { browser, hostPage } = await onHostPage();
  const first = await browser.submit(hostPage, '/sign-in/cancel');
  if (isPage(first)) throw new Error('expected a redirect to the app');
  expect(new URL(first.redirect).searchParams.get('error')).toBe('access_denied');

  expectNothingToCancel(await browser.submit(hostPage, '/sign-in/cancel'));
});

it('Cancel after the sign-in expired gets the page too', async () => {
  const { browser, hostPage } = await onHostPage();
  // the library's binding of the sign-in to this browser, gone as when it expires
  browser.dropCookie('platform_auth_sign_in');

  expectNothingToCancel(await browser.submit(hostPage, '/sign-in/cancel'));
});

it.each(['/sign-in', '/sign-in/cancel', '/sign-out'])('POST %s without a session: a 303 to the page, under the pages\' headers', async (path) => {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: 'csrf=x',
  });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/sign-in');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
});
