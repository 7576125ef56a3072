/**
 * The activity of OAuth applications in the demo admin area, in real Chromium at 1280×800 and
 * 390×844, after real requests: a school application's sign-in works, then it sends a
 * redirect_uri that is not registered. Its row on the applications page shows that latest
 * entry; its own page lists its trace newest first, the mismatch on top with the library's
 * explanation and what to do, and a connection test whose authorization URL and code
 * exchange really work. The staff view lists every traced client (a metadata document on a
 * refused host among them) and shows one client's trace. Every page passes axe, needs no
 * script (CSP), never scrolls sideways; screenshots are written to /tmp/notes.
 * Run by `npm run test:browser`.
 */
import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';

import { checkPage, launchChromium, watchCsp } from '../connected-apps/page-checks.ts';
import type { PageFinding } from '../connected-apps/page-checks.ts';
import { Browser as HttpBrowser, signIn as signInFlow } from '../support/browser.ts';
import { ADMIN, STUDENT, buildAuthorizeUrl, obtainTokens, postForm } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SHOTS = process.env.TRACE_SCREENSHOTS ?? '/tmp/notes';
const SITE = 'demo-school';
const NAME = 'Study Buddy';
const REGISTERED = 'http://127.0.0.1/cb';
const WRONG = 'http://127.0.0.1:5000/cb-typo';
const DOCUMENT = 'https://localhost/clients/agent.json';
/** axe takes a second or two per page and size on a busy machine */
const AUDIT_TIMEOUT = 240_000;

let app: RunningApp;
let browser: Browser;
let clientId: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await startApp({ auth: { registration: { variant: 'open' } } });
  browser = await launchChromium();
  ({ client: { clientId } } = await app.auth.memberClients.create(SITE, {
    name: NAME, redirectUris: [REGISTERED], type: 'public', scopes: ['openid', 'profile', 'account:read'],
  }));
  // what works: a member signs in with the application and it redeems its code
  await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:9999/cb' }, { scope: 'openid account:read' }, STUDENT);
  // then the failure: a redirect_uri with a path that is not registered
  const mismatch = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: WRONG }, { scope: 'openid', challenge: pkcePair().challenge }), { redirect: 'manual' });
  expect(mismatch.status).toBe(400);
  // and a metadata document on a refused host, for the staff
  const refused = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId: DOCUMENT, redirectUri: 'http://127.0.0.1/callback' }, { scope: 'openid', challenge: pkcePair().challenge }), { redirect: 'manual' });
  expect(refused.status).toBe(400);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${app.baseUrl}/admin`);
  await page.fill('#email', ADMIN.email);
  await page.fill('#password', ADMIN.password);
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
}

/** Screenshots at both sizes, whole page. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}/${name}-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

it('an application\'s activity: its row, its page (newest first, with what to do) and a connection test that works', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const csp = watchCsp(page);
  const findings: PageFinding[] = [];

  await signIn(page);
  expect(new URL(page.url()).pathname).toBe(`/admin/sites/${SITE}/apps`);
  const row = page.locator('tr', { hasText: clientId });
  expect(await row.locator('.latest .badge').textContent()).toBe('Refused');
  expect(await row.locator('.latest-summary').textContent()).toBe(`redirect_uri ${WRONG} is not registered for this app; registered: ${REGISTERED}.`);
  findings.push(...await checkPage(page, 'applications, with their latest activity'));
  await shoot(page, 'admin-apps');

  await Promise.all([page.waitForLoadState('load'), row.locator('a', { hasText: 'Activity and connection test' }).click()]);
  expect(new URL(page.url()).pathname).toBe(`/admin/sites/${SITE}/apps/${clientId}`);
  expect(await page.textContent('h1')).toBe(NAME);

  const entries = page.locator('ol.trace > li');
  const first = entries.first();
  expect(await first.locator('.badge').textContent()).toBe('Refused');
  expect(await first.locator('.summary').textContent()).toBe(`redirect_uri ${WRONG} is not registered for this app; registered: ${REGISTERED}.`);
  expect(await first.locator('.action').textContent()).toMatch(/^What to do: Send one of the registered redirect URIs exactly .*register this one for the app\.$/);
  expect(await first.locator('.meta').textContent()).toContain('invalid_redirect_uri');
  // the sign-in that worked is there too, below it, and the whole list is newest first
  const events = await entries.locator('.meta code:first-child').allTextContents();
  expect(events).toEqual(expect.arrayContaining(['signin.succeeded', 'consent.granted', 'code.issued', 'code.redeemed']));
  const times = await entries.locator('time').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('datetime')!));
  expect(times.length).toBeGreaterThanOrEqual(5);
  expect(times).toEqual([...times].sort().reverse());
  findings.push(...await checkPage(page, 'an application\'s activity'));
  await shoot(page, 'admin-trace');

  // the connection test: its authorization URL signs a member in, and its curl's verifier redeems the code
  const authorize = await page.locator('#test ~ ol.steps a').getAttribute('href');
  const verifier = /-d code_verifier=([\w-]+)/.exec(await page.locator('#test ~ ol.steps pre.cmd').nth(1).textContent() ?? '')?.[1];
  expect(authorize).toContain(`client_id=${clientId}`);
  expect(verifier).toBeDefined();
  const redirect = new URL(await signInFlow(new HttpBrowser(app.baseUrl), authorize!, STUDENT));
  expect(redirect.origin + redirect.pathname).toBe(REGISTERED);
  const exchanged = await postForm(`${app.baseUrl}/api/oauth/token`, {
    grant_type: 'authorization_code', client_id: clientId, redirect_uri: REGISTERED, code_verifier: verifier, resource: app.baseUrl, code: redirect.searchParams.get('code')!,
  });
  expect(exchanged.status).toBe(200);

  expect(findings).toEqual([]);
  expect(csp).toEqual([]);
  await context.close();
}, AUDIT_TIMEOUT);

it('the staff view: every traced client, and one client\'s activity', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const csp = watchCsp(page);
  const findings: PageFinding[] = [];

  await signIn(page);
  await Promise.all([page.waitForLoadState('load'), page.click('header a:has-text("All clients (staff)")')]);
  expect(new URL(page.url()).pathname).toBe('/admin/staff');
  const listed = await page.locator('table.traced tbody tr td:first-child code').allTextContents();
  expect(listed).toEqual(expect.arrayContaining([clientId, DOCUMENT]));
  const documentRow = page.locator('table.traced tbody tr', { hasText: DOCUMENT });
  expect(await documentRow.locator('.badge').textContent()).toBe('Refused');
  expect(await documentRow.textContent()).toContain('metadata document');
  findings.push(...await checkPage(page, 'staff: all clients'));
  await shoot(page, 'staff-clients');

  await Promise.all([page.waitForLoadState('load'), documentRow.locator('a').click()]);
  expect(new URL(page.url()).searchParams.get('client_id')).toBe(DOCUMENT);
  const first = page.locator('ol.trace > li').first();
  expect(await first.locator('.summary').textContent())
    .toBe('The host of the metadata document, localhost, resolves to a private or special-use address, which this server never fetches from.');
  expect(await first.locator('.action').textContent()).toBe('What to do: Publish the document at a public address.');
  expect(await page.locator('#test ~ ol.steps').textContent()).toContain(`curl -sS -D - '${DOCUMENT}'`);
  findings.push(...await checkPage(page, 'staff: one client'));
  await shoot(page, 'staff-trace');

  // the member application, as the staff sees it: the same trace (the connection test of the test above on top)
  await page.goto(`${app.baseUrl}/admin/staff/trace?client_id=${encodeURIComponent(clientId)}`);
  expect(await page.locator('ol.trace > li .summary').allTextContents()).toContain(`redirect_uri ${WRONG} is not registered for this app; registered: ${REGISTERED}.`);
  expect(await page.locator('ol.trace > li').count()).toEqual((await app.auth.clientTrace(clientId)).length);

  expect(findings).toEqual([]);
  expect(csp).toEqual([]);
  await context.close();
}, AUDIT_TIMEOUT);
