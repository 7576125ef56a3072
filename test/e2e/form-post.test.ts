/**
 * `response_mode=form_post` (advertised in discovery): oidc-provider writes the page that
 * carries the code itself, with an inline script. It gets the pages' protections: a CSP that
 * lets exactly that script run (its hash, added by oidc-provider to the `script-src` set before
 * it answers), no framing, no sniffing, no referrer (lib/pages/headers.ts, PROVIDER_PAGE_HEADERS).
 */
import { createHash } from 'node:crypto';

import { Browser, isPage } from '../support/browser.ts';
import { buildAuthorizeUrl, MEMBER, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

it('the form_post page has a CSP that allows only its own script, and is not framable', async () => {
  const browser = new Browser(app.baseUrl);
  const { challenge } = pkcePair();
  const url = buildAuthorizeUrl(app.baseUrl, MEMBER, {
    scope: 'openid account:read', resource: app.baseUrl, challenge, state: randomState(), extra: { response_mode: 'form_post' },
  });
  let step = await browser.navigate(url);
  if (!isPage(step)) throw new Error('expected the sign-in page');
  step = await browser.submit(step, '/login', STUDENT);
  if (!isPage(step)) throw new Error('expected the consent page');
  step = await browser.submit(step, '/confirm');
  if (!isPage(step)) throw new Error(`expected the form_post page, was sent to ${step.redirect}`);

  // the page that carries the code to the client
  expect(step.response.status).toBe(200);
  expect(step.html).toContain(`action="${MEMBER.redirectUri}"`);
  expect(step.html).toMatch(/name="code" value="[^"]+"/);
  const headers = step.response.headers;
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');

  const csp = Object.fromEntries(headers.get('content-security-policy')!.split(';').map((d) => {
    const [name, ...values] = d.trim().split(/\s+/);
    return [name, values];
  }));
  expect(csp['default-src']).toEqual(["'none'"]);
  expect(csp['frame-ancestors']).toEqual(["'none'"]);
  expect(csp['base-uri']).toEqual(["'none'"]);
  // exactly the page's inline script, by its hash, and nothing else
  const scripts = [...step.html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  expect(scripts).toHaveLength(1);
  const hash = `'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`;
  expect(csp['script-src']!.sort()).toEqual(["'strict-dynamic'", hash].sort());
});

it('a query-mode authorization redirect is unchanged but for those headers', async () => {
  const { challenge } = pkcePair();
  const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', resource: app.baseUrl, challenge, state: randomState() });
  const answer = await fetch(url, { redirect: 'manual' });
  expect(answer.status).toBe(303);
  expect(answer.headers.get('location')).toMatch(/^\/oauth\/interaction\//);
  expect(answer.headers.get('x-frame-options')).toBe('DENY');
});
