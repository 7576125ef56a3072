/**
 * The sign-in and consent pages in a real browser (Debian's Chromium driven by
 * playwright-core): the strict CSP must not block the page's own styles, nor the redirect
 * chain that ends at the client (browsers apply `form-action` to it).
 * Run by `npm run test:browser` (CI installs chromium); set CHROMIUM_PATH to use another binary.
 */
import { existsSync } from 'node:fs';

import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

import { MEMBER, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  app = await startApp();
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it('signs in, consents and lands on the client with a code, with no CSP violation', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 760 } });
  const console: string[] = [];
  page.on('console', (m) => console.push(m.text()));
  let landed = '';
  await page.route('http://127.0.0.1:8765/**', async (route) => {
    landed = route.request().url();
    await route.fulfill({ status: 200, body: 'client' });
  });

  await page.goto(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid profile email account:read', challenge: pkcePair().challenge, state: 'st' }));
  // the nonce'd stylesheet applied: the primary button has Demo School's accent (the demo's Site.branding)
  const background = await page.locator('button.primary').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(background).toBe('rgb(15, 118, 110)');

  await page.fill('#email', 'student@example.com');
  await page.fill('#password', 'student');
  await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.click('button.primary')]);
  expect(await page.textContent('h1')).toContain('Demo Member App');

  await page.click('button.primary');
  await page.waitForTimeout(200);
  for (let i = 0; i < 50 && !landed; i += 1) await page.waitForTimeout(100);
  const callback = new URL(landed);
  expect(callback.searchParams.get('code')).toEqual(expect.any(String));
  expect(callback.searchParams.get('state')).toBe('st');
  expect(callback.searchParams.get('iss')).toBe(app.baseUrl);
  expect(console.filter((line) => /Content Security Policy|Refused/i.test(line))).toEqual([]);
});

it('Back from the consent page shows that consent page again (not "expired"), and Allow still lands on the client', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 760 } });
  let landed = '';
  await page.route('http://127.0.0.1:8765/**', async (route) => {
    landed = route.request().url();
    await route.fulfill({ status: 200, body: 'client' });
  });
  await page.goto(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid profile email account:read', challenge: pkcePair().challenge, state: 'back-st' }));
  const signInUrl = page.url();
  await page.fill('#email', 'student@example.com');
  await page.fill('#password', 'student');
  await Promise.all([page.waitForURL((url) => url.href !== signInUrl), page.click('button.primary')]);
  const consentUrl = page.url();
  expect(consentUrl).toMatch(/\/oauth\/interaction\//);

  await page.goBack();
  expect(page.url()).toBe(consentUrl);
  expect(await page.textContent('h1')).toContain('Demo Member App');
  await page.click('button.primary');
  for (let i = 0; i < 50 && !landed; i += 1) await page.waitForTimeout(100);
  const callback = new URL(landed);
  expect(callback.searchParams.get('code')).toEqual(expect.any(String));
  expect(callback.searchParams.get('state')).toBe('back-st');
  await page.close();
});

it('Cancel on the sign-in page lands on the client with access_denied, state and iss', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 760 } });
  let landed = '';
  await page.route('http://127.0.0.1:8765/**', async (route) => {
    landed = route.request().url();
    await route.fulfill({ status: 200, body: 'client' });
  });
  await page.goto(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 'cancel-st' }));
  await page.click('button.secondary');
  for (let i = 0; i < 50 && !landed; i += 1) await page.waitForTimeout(100);
  const callback = new URL(landed);
  expect(Object.fromEntries(callback.searchParams)).toEqual({
    error: 'access_denied', error_description: 'the user cancelled the sign-in', state: 'cancel-st', iss: app.baseUrl,
  });
  await page.close();
});

it('with response_mode=form_post the provider\'s own page posts the code to the client under its CSP', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 760 } });
  const console: string[] = [];
  page.on('console', (m) => console.push(m.text()));
  let posted: { method: string; body: string } | undefined;
  await page.route('http://127.0.0.1:8765/**', async (route) => {
    posted = { method: route.request().method(), body: route.request().postData() ?? '' };
    await route.fulfill({ status: 200, body: 'client' });
  });
  await page.goto(buildAuthorizeUrl(app.baseUrl, MEMBER, {
    scope: 'openid', challenge: pkcePair().challenge, state: 'fp-st', extra: { response_mode: 'form_post' },
  }));
  await page.fill('#email', 'student@example.com');
  await page.fill('#password', 'student');
  await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.click('button.primary')]);
  // the page's inline script (allowed by its hash) submits the form without a click
  await page.click('button.primary');
  for (let i = 0; i < 50 && !posted; i += 1) await page.waitForTimeout(100);
  expect(posted?.method).toBe('POST');
  const fields = new URLSearchParams(posted!.body);
  expect(fields.get('code')).toEqual(expect.any(String));
  expect(fields.get('state')).toBe('fp-st');
  expect(console.filter((line) => /Content Security Policy|Refused/i.test(line))).toEqual([]);
  await page.close();
});
