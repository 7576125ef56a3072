/**
 * Every page of the library (sign-in, its error, consent for a school's app and for an
 * unverified self-registered one, an operator's consent, the refusal, the expired page, the
 * error page, the authorization-request rate's 429 page) in real Chromium, in English and German (the browser's own Accept-Language),
 * branded per site (a school's logo and accent, the service's look elsewhere): no axe-core
 * violation (WCAG 2 A/AA, contrast included) at 1280×800 and 390×844, no sideways scrolling
 * at either size, `<html lang>` the page's language, and nothing the CSP refuses.
 * Run by `npm run test:browser`.
 */
import { existsSync } from 'node:fs';

import { AxeBuilder } from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { Site, SiteStore } from '../../lib/index.ts';
import { ADMIN, MEMBER, OUTSIDER, STUDENT, buildAuthorizeUrl, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }] as const;
const LANGUAGES = [{ locale: 'en-US', lang: 'en' }, { locale: 'de-DE', lang: 'de' }] as const;
// a 1×1 PNG, served for the school's logo
const LOGO = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAEqgH/3XJ2VQAAAABJRU5ErkJggg==', 'base64');

const SITES: Record<string, Site> = {
  'demo-school': { id: 'demo-school', name: 'Demo School', branding: { logoUrl: 'https://cdn.school.example/logo.png', accentColor: '#facc15' } },
  'other-school': { id: 'other-school', name: 'Other School' },
};
const sites: SiteStore = { findById: async (id) => SITES[id] };

let app: RunningApp;
/** an app whose authorization-request budget is one, for its 429 page */
let limited: RunningApp;
let browser: Browser;
let unverifiedClient: string;
let longClient: string;

beforeAll(async () => {
  if (!existsSync(executablePath)) throw new Error(`Chromium not found at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  app = await startApp({ auth: { sites, registration: { variant: 'open' } } });
  limited = await startApp({ auth: { authorizationRateLimit: { perIp: 1, windowSeconds: 3600 } } });
  browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const registered = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Demo School (official)', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
  });
  unverifiedClient = ((await registered.json()) as { client_id: string }).client_id;
  ({ client: { clientId: longClient } } = await app.auth.memberClients.create('demo-school', {
    name: 'Study Buddy for the Advanced Certificate in Extraordinarily Long Course Names, Second Edition',
    type: 'public', redirectUris: ['http://127.0.0.1/a-very-long-callback-path-that-does-not-wrap-by-itself'], scopes: ['openid', 'profile', 'email', 'account:read'],
  }));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await limited?.stop();
});

interface Finding { page: string; problem: string }

async function newContext(locale: string): Promise<{ context: BrowserContext; page: Page; csp: string[] }> {
  // a context of its own: axe needs one, and its locale is the Accept-Language sent
  const context = await browser.newContext({ viewport: VIEWPORTS[0], locale });
  await context.route('https://cdn.school.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: LOGO }));
  // the clients' redirect URIs: answered here, never reached
  await context.route(/^http:\/\/127\.0\.0\.1:(9\d{3}|8765)\//, (route) => route.fulfill({ status: 200, body: 'client' }));
  const page = await context.newPage();
  const csp: string[] = [];
  page.on('console', (m) => { if (/Content Security Policy|Refused/i.test(m.text())) csp.push(m.text()); });
  return { context, page, csp };
}

/** axe and the overflow check at both sizes, and the page's language. */
async function check(page: Page, name: string, lang: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  expect({ name, lang: await page.getAttribute('html', 'lang') }).toEqual({ name, lang });
  for (const size of VIEWPORTS) {
    await page.setViewportSize(size);
    const where = `${name} (${lang}, ${size.width}×${size.height})`;
    const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    for (const v of violations) findings.push({ page: where, problem: `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})` });
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
    if (scrollWidth > clientWidth) findings.push({ page: where, problem: `scrolls sideways: ${scrollWidth}px in ${clientWidth}px` });
  }
  await page.setViewportSize(VIEWPORTS[0]);
  return findings;
}

const authorize = (client: { clientId: string; redirectUri: string }, scope: string) => buildAuthorizeUrl(app.baseUrl, client, { scope, challenge: pkcePair().challenge, state: 's' });

async function signIn(page: Page, user: { email: string; password: string }) {
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
}

describe.each(LANGUAGES)('the library\'s pages in $lang', ({ locale, lang }) => {
  it('sign-in, its error, consent (school app, long names, unverified app, operator), refusal, expired, error page', async () => {
    const { context, page, csp } = await newContext(locale);
    const findings: Finding[] = [];
    try {
      // a member client: the school's brand, its logo loaded under the CSP
      await page.goto(authorize(MEMBER, 'openid profile email account:read'));
      expect(await page.textContent('.brand span')).toBe('Demo School');
      expect(await page.locator('.brand img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
      expect(await page.locator('button.primary').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(250, 204, 21)');
      findings.push(...await check(page, 'sign-in, school app', lang));
      await page.fill('#email', STUDENT.email);
      await page.fill('#password', 'wrong');
      await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
      expect(await page.locator('[role=alert]').count()).toBe(1);
      findings.push(...await check(page, 'sign-in, wrong password', lang));
      await signIn(page, STUDENT);
      expect(await page.locator('form[action$="/confirm"]').count()).toBe(1);
      findings.push(...await check(page, 'consent, school app', lang));

      await page.goto(authorize({ clientId: longClient, redirectUri: 'http://127.0.0.1:9931/a-very-long-callback-path-that-does-not-wrap-by-itself' }, 'openid profile email account:read'));
      findings.push(...await check(page, 'consent, long names', lang));

      // an operator: the service's look on sign-in, the school's on consent
      const other = await newContext(locale);
      try {
        await other.page.goto(authorize({ clientId: unverifiedClient, redirectUri: 'http://127.0.0.1:9932/cb' }, 'openid courses:read'));
        expect(await other.page.textContent('.brand span')).toBe('Courses');
        findings.push(...await check(other.page, 'sign-in, operator app', lang));
        await signIn(other.page, ADMIN);
        expect(await other.page.locator('.badge.unverified').count()).toBe(1);
        findings.push(...await check(other.page, 'consent, unverified app', lang));
        await other.page.goto(authorize(operator(app.baseUrl, app.operatorSecret), 'openid courses:read courses:write students:read'));
        expect(await other.page.locator('.badge.verified').count()).toBe(1);
        findings.push(...await check(other.page, 'consent, operator app', lang));
        findings.push(...other.csp.map((problem) => ({ page: 'operator pages', problem })));
      } finally {
        await other.context.close();
      }

      // refusal: an account of another school
      const outsider = await newContext(locale);
      try {
        await outsider.page.goto(authorize(MEMBER, 'openid'));
        await signIn(outsider.page, OUTSIDER);
        expect(await outsider.page.locator('form[action$="/abort"]').count()).toBe(1);
        findings.push(...await check(outsider.page, 'refusal', lang));
      } finally {
        await outsider.context.close();
      }

      await page.goto(`${app.baseUrl}/oauth/interaction/no-such-interaction`);
      findings.push(...await check(page, 'expired page', lang));
      await page.goto(authorize({ clientId: MEMBER.clientId, redirectUri: 'https://evil.example/cb' }, 'openid'));
      expect(await page.locator('.support code').textContent()).toMatch(/^invalid_redirect_uri: /);
      findings.push(...await check(page, 'error page', lang));

      // over the address's authorization-request budget (one): the 429 page
      const overBudget = buildAuthorizeUrl(limited.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' });
      await page.goto(overBudget);
      expect((await page.goto(overBudget))?.status()).toBe(429);
      findings.push(...await check(page, 'too many sign-in requests', lang));
      findings.push(...csp.map((problem) => ({ page: 'pages', problem })));
    } finally {
      await context.close();
    }
    expect(findings).toEqual([]);
  }, 240_000);
});
