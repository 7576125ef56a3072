/**
 * Cookie keys rotate by prepending (`cookieKeys: [NEW, OLD]`, README "Add to your app"): a sign-in
 * form shown before the rotation, or by an instance not rotated yet on shared storage, still
 * signs in after it. Its interaction cookie was always taken from either key; its CSRF token
 * was checked against the newest key only, so the person got "This form has expired" and lost
 * what they typed.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const OLD = 'old-cookie-key-for-review-0123456789abcdef';
const NEW = 'new-cookie-key-for-review-fedcba9876543210';
let before: RunningApp;
let after: RunningApp;
beforeAll(async () => {
  const adapter = createMemoryAdapter();
  before = await startApp({ auth: { adapter, cookieKeys: [OLD] } });
  // the same service after the rotation (or another instance already rotated): a new key first, the old one kept
  after = await startApp({ baseUrl: before.baseUrl, auth: { adapter, cookieKeys: [NEW, OLD] } });
});
afterAll(async () => {
  await after?.stop();
  await before?.stop();
});

it('a sign-in form shown before a cookie-key rotation still signs in after it', async () => {
  const browser = new Browser(before.baseUrl);
  const page = await browser.navigate(buildAuthorizeUrl(before.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(page)) throw new Error('expected the sign-in page');
  const form = findForm(page.html, '/login');
  const cookie = ['_interaction', '_interaction.sig'].map((n) => `${n}=${browser.cookie(n)}`).join('; ');
  const res = await fetch(`http://127.0.0.1:${after.port}${form.action}`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }),
  });
  const title = /<title>([^<]*)/.exec(await res.text())?.[1];
  expect({ status: res.status, title }).toEqual({ status: 303, title: undefined });
  expect(res.headers.get('location')).toMatch(/\/oauth\/authorize\//);
});

it('behind a TLS-terminating proxy (https baseUrl, plain HTTP, no X-Forwarded-Proto), the cookies the pages re-sign with the new key are Secure too', async () => {
  const adapter = createMemoryAdapter();
  const baseUrl = 'https://learn.example';
  const old = await startApp({ baseUrl, auth: { adapter, cookieKeys: [OLD] } });
  const rotated = await startApp({ baseUrl, auth: { adapter, cookieKeys: [NEW, OLD] } });
  try {
    const authorize = new URL(buildAuthorizeUrl(baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }));
    const start = await fetch(`http://127.0.0.1:${old.port}${authorize.pathname}${authorize.search}`, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const page = new URL(start.headers.get('location')!, baseUrl).pathname;
    const cookie = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const res = await fetch(`http://127.0.0.1:${rotated.port}${page}`, { headers: { cookie }, redirect: 'manual' });
    expect(res.status).toBe(200);
    const set = res.headers.getSetCookie();
    // the interaction cookie signed with OLD is signed again with NEW
    expect(set.some((c) => c.startsWith('_interaction.sig='))).toBe(true);
    expect(set.filter((c) => !/;\s*secure/i.test(c))).toEqual([]);
  } finally {
    await rotated.stop();
    await old.stop();
  }
});
