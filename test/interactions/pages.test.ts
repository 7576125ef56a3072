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
