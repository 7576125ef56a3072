/**
 * The demo host's "Connected apps" page in real Chromium, at 1280×800 and 390×844: sign-in,
 * the list (long names and client ids included), the Disconnect step, the page after it and
 * the empty list have no axe-core violation and never scroll sideways; Disconnect asks for
 * confirmation first, and once confirmed the app's token is refused at once.
 * Run by `npm run test:browser`.
 */
import type { Browser } from 'playwright-core';

import { checkPage, launchChromium, watchCsp } from '../connected-apps/page-checks.ts';
import type { PageFinding } from '../connected-apps/page-checks.ts';
import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  app = await startApp();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const LONG_NAME = 'Study Buddy for the Advanced Certificate in Extraordinarily Long Course Names';

it('sign-in, the list, the Disconnect step and the empty list pass axe and fit 390 px; Disconnect asks first', async () => {
  const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile email account:read' }, STUDENT);
  const { client } = await app.auth.memberClients.create('demo-school', {
    name: LONG_NAME, redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid', 'profile', 'email', 'account:read', 'account:write'],
  });
  await obtainTokens(app.baseUrl, { clientId: client.clientId, redirectUri: 'http://127.0.0.1:9999/cb' }, { scope: 'openid account:read account:write' }, STUDENT);

  // a context of its own: axe needs one (not browser.newPage())
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const csp = watchCsp(page);
  const findings: PageFinding[] = [];

  // reachable from the demo's home
  await page.goto(`${app.baseUrl}/`);
  expect(await page.textContent('body')).toContain(`${app.baseUrl}/connected-apps`);

  await page.goto(`${app.baseUrl}/connected-apps`);
  findings.push(...await checkPage(page, 'sign-in'));
  await page.fill('#email', STUDENT.email);
  await page.fill('#password', STUDENT.password);
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);

  const items = page.locator('li.app');
  expect(await items.count()).toBe(2);
  expect(await page.locator('li.app h2').allTextContents()).toEqual(expect.arrayContaining(['Demo Member App', LONG_NAME]));
  findings.push(...await checkPage(page, 'list'));

  const member = page.locator(`li.app[data-client-id="${MEMBER.clientId}"]`);
  const confirm = member.locator('button.danger-solid');
  expect(await confirm.isVisible()).toBe(false);
  await member.locator('summary:has-text("Disconnect")').click();
  expect(await confirm.isVisible()).toBe(true);
  expect(await confirm.textContent()).toBe('Disconnect Demo Member App');
  // nothing happens until confirmed
  expect((await app.auth.connectedApps.list('acc-student')).map((a) => a.clientId)).toContain(MEMBER.clientId);
  findings.push(...await checkPage(page, 'Disconnect step open'));

  await Promise.all([page.waitForLoadState('load'), confirm.click()]);
  expect(await page.textContent('[role=status]')).toContain('The app is disconnected.');
  expect(await page.locator(`li.app[data-client-id="${MEMBER.clientId}"]`).count()).toBe(0);
  const info = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  expect(info.status).toBe(401);
  findings.push(...await checkPage(page, 'after disconnect'));

  const other = page.locator(`li.app[data-client-id="${client.clientId}"]`);
  await other.locator('summary').click();
  await Promise.all([page.waitForLoadState('load'), other.locator('button.danger-solid').click()]);
  expect(await page.textContent('section:nth-of-type(2)')).toContain('No apps are connected to your account.');
  findings.push(...await checkPage(page, 'empty list'));

  await page.goto(`${app.baseUrl}/connected-apps/no-such-page`);
  findings.push(...await checkPage(page, 'not found (404)'));

  expect(findings).toEqual([]);
  expect(csp).toEqual([]);
  await context.close();
}, 180_000);
