/**
 * Two authorizations started in two tabs of one browser before anyone signed in; tab A signs
 * in as one account, then tab B as another (README "Sign-in options": a sign-in as another
 * account than the browser's session signs the old account out first).
 * The check read the session as tab B's authorization saw it when it began (nobody signed in),
 * so tab B's resume was oidc-provider's logout form to /session/end/confirm, which this service
 * does not serve: the person in tab B never reached consent (interactions/login-result.ts).
 */
import { Browser, findForm, isPage } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => { app = await startApp(); });
afterAll(() => app.stop());

const open = async (browser: Browser, state: string) => {
  const page = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state }));
  if (!isPage(page) || !page.html.includes('name="password"')) throw new Error('expected the sign-in page');
  return page;
};

it('signing in as another account in a second tab reaches consent as that account, not an unserved logout form', async () => {
  const browser = new Browser(app.baseUrl);
  const tabA = await open(browser, 'A');
  const tabB = await open(browser, 'B');
  const consentA = await browser.submit(tabA, '/login', STUDENT);
  if (!isPage(consentA) || !consentA.html.includes('student@example.com')) throw new Error('expected tab A\'s consent page');

  const form = findForm(tabB.html, '/login');
  const res = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, email: ADMIN.email, password: ADMIN.password }).toString(),
  });
  const next = await browser.navigate(res.headers.get('location')!);
  const html = isPage(next) ? next.html : '';
  expect(html).not.toContain('/session/end/confirm');
  expect(isPage(next) && next.response.status).toBe(200);
  expect(html).toContain('admin@example.com');
  expect(html).toMatch(/\/oauth\/interaction\/[^"]+\/confirm"/);
  const endSession = await fetch(`${app.baseUrl}/session/end/confirm`, { method: 'POST' });
  expect(endSession.status).toBe(404); // the form's target: nothing answers it
});
