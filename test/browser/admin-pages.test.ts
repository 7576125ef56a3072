/**
 * The demo admin area ("Developers → OAuth applications") in real Chromium, at 1280×800 and
 * 390×844: every page it has (sign-in, its error, the site picker, the applications of a
 * site with and without the beta, a secret shown once, the Delete step, refusals) has no
 * axe-core violation and never scrolls sideways; Delete asks for confirmation before
 * anything is deleted; the create form is there only where the beta is on.
 * Run by `npm run test:browser`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';
import type { Browser, Page } from 'playwright-core';

import { adminPage } from '../../examples/host/admin-page.ts';
import { createSiteStore } from '../../examples/host/seed.ts';
import type { Account, AccountStore } from '../../lib/index.ts';
import { checkPage, launchChromium, watchCsp } from '../connected-apps/page-checks.ts';
import type { PageFinding } from '../connected-apps/page-checks.ts';
import { ADMIN } from '../support/flows.ts';
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

/** axe takes a second or two per page and size on a busy machine */
const AUDIT_TIMEOUT = 240_000;
const LONG_NAME = 'Study Buddy for the Advanced Certificate in Extraordinarily Long Course Names';
const LONG_URI = 'https://study-buddy.integrations.example.com/oauth2/callback/for/a/very/long/path/that/does/not/wrap';

async function signIn(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/admin`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
}

async function create(page: Page, fields: { name: string; uri: string; type: 'public' | 'confidential' }): Promise<void> {
  await page.fill('#name', fields.name);
  await page.fill('#redirect_uris', fields.uri);
  await page.check(`input[name=type][value=${fields.type}]`);
  await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Create application")')]);
}

it('every page of one site\'s admin passes axe and fits 390 px; Delete asks first', async () => {
  // a context of its own: axe needs one (not browser.newPage())
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const csp = watchCsp(page);
  const findings: PageFinding[] = [];

  await page.goto(`${app.baseUrl}/admin`);
  findings.push(...await checkPage(page, 'sign-in'));

  await page.fill('#email', ADMIN.email);
  await page.fill('#password', 'wrong');
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
  expect(await page.textContent('[role=alert]')).toContain('incorrect');
  findings.push(...await checkPage(page, 'sign-in, wrong password'));

  await signIn(page, app.baseUrl, ADMIN.email, ADMIN.password);
  expect(new URL(page.url()).pathname).toBe('/admin/sites/demo-school/apps');
  // the beta is on at demo-school: the create form is there
  expect(await page.locator('#name').count()).toBe(1);
  findings.push(...await checkPage(page, 'applications, none yet'));

  await create(page, { name: LONG_NAME, uri: LONG_URI, type: 'confidential' });
  expect(await page.textContent('#issued-client-secret')).toMatch(/^[\w-]{40,}$/);
  findings.push(...await checkPage(page, 'created, secret shown once'));

  await create(page, { name: 'Desktop Buddy', uri: 'http://127.0.0.1/callback', type: 'public' });
  await page.goto(`${app.baseUrl}/admin/sites/demo-school/apps`);
  findings.push(...await checkPage(page, 'applications listed'));

  const [longApp] = (await app.auth.memberClients.list('demo-school')).filter((c) => c.name === LONG_NAME);
  const row = page.locator('tr', { hasText: longApp!.clientId });
  await Promise.all([page.waitForLoadState('load'), row.locator('button:has-text("Rotate secret")').click()]);
  expect(await page.textContent('.issued h2')).toContain('New secret');
  findings.push(...await checkPage(page, 'secret rotated'));

  // Delete: the button only opens the step; the application is still there
  await page.goto(`${app.baseUrl}/admin/sites/demo-school/apps`);
  const confirm = page.locator('tr', { hasText: longApp!.clientId }).locator('button.danger-solid');
  expect(await confirm.isVisible()).toBe(false);
  await page.locator('tr', { hasText: longApp!.clientId }).locator('summary:has-text("Delete")').click();
  expect(await confirm.isVisible()).toBe(true);
  expect(await confirm.textContent()).toBe(`Delete ${LONG_NAME}`);
  expect(await page.locator('tr', { hasText: longApp!.clientId }).locator('.confirm-step p').textContent()).toContain('cannot be undone');
  expect((await app.auth.memberClients.list('demo-school')).map((c) => c.clientId)).toContain(longApp!.clientId);
  findings.push(...await checkPage(page, 'Delete step open'));

  await Promise.all([page.waitForLoadState('load'), confirm.click()]);
  expect(await page.textContent('[role=status]')).toContain('The application was deleted.');
  expect((await app.auth.memberClients.list('demo-school')).map((c) => c.clientId)).not.toContain(longApp!.clientId);
  findings.push(...await checkPage(page, 'deleted'));

  await page.goto(`${app.baseUrl}/admin/sites/other-school/apps`);
  expect(await page.textContent('h1')).toBe('Not your school');
  findings.push(...await checkPage(page, 'refusal (403)'));

  await page.goto(`${app.baseUrl}/admin/no-such-page`);
  findings.push(...await checkPage(page, 'not found (404)'));

  expect(findings).toEqual([]);
  expect(csp).toEqual([]);
  await context.close();
}, AUDIT_TIMEOUT);

describe('an operator of several sites (picker, a site without the beta)', () => {
  const owner: Account = { id: 'acc-owner', email: 'olga.owner.with.a.rather.long.address@example.com', name: 'Olga Owner', roles: { 'demo-school': ['owner'], 'other-school': ['admin'] } };
  const accounts: AccountStore = {
    authenticate: async (email, password) => (email === owner.email && password === 'owner' ? owner : undefined),
    findById: async (id) => (id === owner.id ? owner : undefined),
  };
  let server: ReturnType<typeof createServer>;
  let origin: string;

  beforeAll(async () => {
    const host = new Koa();
    host.use(adminPage({ auth: app.auth, accounts, sites: createSiteStore(), secret: 'another-admin-secret-0123456789abcdef', secureCookies: false }));
    server = createServer(host.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('the picker and the beta-off page pass axe and fit 390 px; without the beta there is no create form', async () => {
    // a context of its own: axe needs one (not browser.newPage())
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const csp = watchCsp(page);
    const findings: PageFinding[] = [];

    await signIn(page, origin, owner.email, 'owner');
    expect(await page.textContent('h1')).toBe('Which school?');
    findings.push(...await checkPage(page, 'site picker'));

    await page.click('a:has-text("Other School")');
    await page.waitForLoadState('load');
    expect(await page.textContent('[role=note]')).toContain('beta is not enabled');
    expect(await page.locator('#name').count()).toBe(0);
    expect(await page.locator('button:has-text("Create application")').count()).toBe(0);
    expect(await page.locator('form[action$="/apps"]').count()).toBe(0);
    findings.push(...await checkPage(page, 'applications, beta off'));

    await page.goto(`${origin}/admin/sites/demo-school/apps`);
    expect(await page.locator('#name').count()).toBe(1);

    expect(findings).toEqual([]);
    expect(csp).toEqual([]);
    await context.close();
  }, AUDIT_TIMEOUT);
});
