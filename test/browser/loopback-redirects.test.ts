/**
 * A native client whose redirect URI is a loopback address lands on it after Allow in a real
 * browser, the IPv6 literal (`http://[::1]:<port>/…`, RFC 8252 §7.3) included. The pages' CSP
 * names the redirect's origin in `form-action`, which browsers apply to the redirect chain after
 * a form post, and CSP has no host-source form for an IPv6 literal: the browser dropped it as
 * invalid and blocked the final redirect (lib/pages/headers.ts, redirectSource).
 */
import { existsSync } from 'node:fs';

import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

import { buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(executablePath)) throw new Error(`Chromium not found at ${executablePath}`);
  app = await startApp();
  browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it.each([
  ['http://localhost/callback', 'http://localhost:5555/callback'],
  ['http://[::1]/callback', 'http://[::1]:5555/callback'],
])('a native client registered with %s lands on its redirect URI after Allow', async (registered, redirectUri) => {
  const { client } = await app.auth.memberClients.create('demo-school', { name: 'Loopback App', redirectUris: [registered], type: 'public', scopes: ['openid', 'account:read'] });
  const page = await browser.newPage();
  const messages: string[] = [];
  page.on('console', (m) => messages.push(m.text()));
  let landed = '';
  await page.route((url) => url.port === '5555', async (route) => {
    landed = route.request().url();
    await route.fulfill({ status: 200, body: 'client' });
  });
  await page.goto(buildAuthorizeUrl(app.baseUrl, { clientId: client.clientId, redirectUri }, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 'st' }));
  await page.fill('#email', 'student@example.com');
  await page.fill('#password', 'student');
  await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.click('button.primary')]);
  await page.click('button.primary');
  for (let i = 0; i < 50 && !landed; i += 1) await page.waitForTimeout(100);
  expect({ landed: landed && new URL(landed).searchParams.get('state'), violations: messages.filter((l) => /Content Security Policy|Refused/i.test(l)) })
    .toEqual({ landed: 'st', violations: [] });
});
