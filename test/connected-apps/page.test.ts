/**
 * The demo host's "Connected apps" page over real HTTP (in-memory storage): a member signs in,
 * sees the apps they authorized as the library lists them, and disconnects one with the
 * page's CSRF-protected form; forged, foreign and signed-out POSTs change nothing.
 */
import { MEMBER, OUTSIDER, STUDENT, obtainTokens, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { HOME, MemberPage, shownApps } from './member-page.ts';

const SCOPE = 'openid profile email account:read';

let app: RunningApp;

beforeEach(async () => {
  app = await startApp();
});
afterEach(() => app.stop());

const userinfo = (token: string) => fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
const refresh = (token: string) => postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId });

async function connected(): Promise<TokenSet> {
  return obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
}

it('serves sign-in under the strict page headers, with a session cookie for this page only', async () => {
  const res = await fetch(`${app.baseUrl}${HOME}`);
  expect(res.status).toBe(200);
  const body = await res.text();
  expect(body).toContain('Sign in to see your connected apps');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).not.toContain('script-src');
  expect(body).not.toMatch(/<script|\son[a-z]+=/i);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  const [cookie, ...more] = res.headers.getSetCookie();
  expect(more).toEqual([]);
  expect(cookie).toMatch(/^member_session=[^;]+;/);
  expect(cookie!.toLowerCase()).toContain('path=/connected-apps;');
  expect(cookie!.toLowerCase()).toContain('httponly');
});

it('refuses a wrong password with 401 and signs nobody in', async () => {
  const member = new MemberPage(app.baseUrl);
  const form = await member.open();
  const answer = await member.browser.submit(form, `${HOME}/sign-in`, { email: STUDENT.email, password: 'wrong' });
  expect('html' in answer && answer.response.status).toBe(401);
  expect((await member.open()).html).toContain('name="password"');
});

it('shows a member (a student) the apps they authorized, as the library lists them', async () => {
  const member = new MemberPage(app.baseUrl);
  const empty = await member.signIn(STUDENT);
  expect(empty.response.status).toBe(200);
  expect(empty.html).toContain('No apps are connected to your account.');

  await connected();
  const page = await member.open();
  const [listed] = await app.auth.connectedApps.list('acc-student');
  expect(shownApps(page.html)).toEqual([{
    clientId: 'demo-member-app',
    name: 'Demo Member App',
    meta: 'For Demo School · demo-member-app',
    scopes: ['openid', 'profile', 'email', 'account:read'],
    connected: new Date(listed!.firstUsedAt * 1000).toISOString(),
    lastUsed: new Date(listed!.lastUsedAt * 1000).toISOString(),
    connectedText: expect.stringMatching(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/),
    lastUsedText: expect.stringMatching(/ UTC$/),
  }]);
  // the scopes in words, with their names
  expect(page.html).toContain('Read your own account at this school');
  // the notice is one of the page's own, never the query's
  for (const revoked of ['constructor', '__proto__', '<b>']) {
    expect((await member.open(`${HOME}?revoked=${encodeURIComponent(revoked)}`)).html).not.toContain('role="status"');
  }
});

it('disconnects an app: see-other to the list with a notice, and its tokens are dead at once', async () => {
  const tokens = await connected();
  const member = new MemberPage(app.baseUrl);
  const page = await member.signIn(STUDENT);
  // the form is behind a confirmation step (no script: a <details> element)
  expect(page.html).toMatch(/<details class="confirm">\s*<summary class="button danger">Disconnect…<\/summary>[\s\S]*?<form method="post" action="\/connected-apps\/revoke">/);

  const answer = await member.disconnect(page, MEMBER.clientId);
  expect(answer.response.status).toBe(303);
  expect(answer.response.headers.get('location')).toBe(`${HOME}?revoked=1`);
  const after = await member.open(answer.response.headers.get('location')!);
  expect(after.html).toContain('The app is disconnected.');
  expect(shownApps(after.html)).toEqual([]);

  expect((await userinfo(tokens.access_token)).status).toBe(401);
  const refreshed = await refresh(tokens.refresh_token);
  expect({ status: refreshed.status, error: (await refreshed.json()).error }).toEqual({ status: 400, error: 'invalid_grant' });
});

it('refuses a disconnect without the form\'s CSRF token, with another session\'s, or signed out; nothing is revoked', async () => {
  const tokens = await connected();
  const member = new MemberPage(app.baseUrl);
  const page = await member.signIn(STUDENT);

  const missing = await member.post(`${HOME}/revoke`, { client_id: MEMBER.clientId });
  expect(missing.response.status).toBe(403);
  expect(missing.html).toContain('This form has expired');

  const other = new MemberPage(app.baseUrl);
  const foreign = other.csrf(await other.signIn(STUDENT));
  expect(foreign).not.toBe(member.csrf(page));
  expect((await member.post(`${HOME}/revoke`, { csrf: foreign, client_id: MEMBER.clientId })).response.status).toBe(403);

  const signOut = await member.post(`${HOME}/sign-out`, { csrf: member.csrf(page) });
  expect(signOut.response.status).toBe(303);
  expect((await member.post(`${HOME}/revoke`, { csrf: member.csrf(page), client_id: MEMBER.clientId })).response.status).toBe(403);

  expect((await userinfo(tokens.access_token)).status).toBe(200);
  expect(await app.auth.connectedApps.list('acc-student')).toHaveLength(1);
});

it('disconnects only the signed-in member\'s grants: another member naming the same app changes nothing for the first', async () => {
  const tokens = await connected();
  const outsider = new MemberPage(app.baseUrl);
  const page = await outsider.signIn(OUTSIDER);
  expect(shownApps(page.html)).toEqual([]);
  const answer = await outsider.post(`${HOME}/revoke`, { csrf: outsider.csrf(page), client_id: MEMBER.clientId });
  expect(answer.response.status).toBe(303);
  expect(answer.response.headers.get('location')).toBe(`${HOME}?revoked=0`);
  expect((await outsider.open(answer.response.headers.get('location')!)).html).toContain('Nothing changed.');
  expect((await userinfo(tokens.access_token)).status).toBe(200);
});

it('answers an unknown path under the page with a 404 page', async () => {
  const res = await fetch(`${app.baseUrl}${HOME}/nothing-here`);
  expect(res.status).toBe(404);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
});
