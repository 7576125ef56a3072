/**
 * Storage faults on a browser's way through sign-in and consent, on a real Redis made to fail
 * at one precise call (test/support/storage-faults.ts):
 *
 * - No member signed out: every resume of an authorization (here a member already signed in
 *   gives a new consent) writes the session under a new id and deletes the old record
 *   (lib/provider/session-rotation.ts). A fault at any point of it is a 503, and the browser
 *   is still signed in afterwards: the next authorization asks for no password, and the
 *   member's refresh token still works.
 * - One wait, not one per call: a Redis that stops answering makes a request 503 within the
 *   adapter's 3 s bound, also a request that makes several storage calls in a row (the
 *   resume) or queues behind another's (sign-ins of one account at once).
 * - The demo's "Create application": a secret issued is shown even when the list after it
 *   cannot be read, and nothing invites a second create.
 */
import { jest } from '@jest/globals';

import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startFaultRig } from '../support/storage-faults.ts';
import type { Fault, FaultRig } from '../support/storage-faults.ts';

jest.setTimeout(60_000);

const SCOPE = 'openid profile email account:read';

let rig: FaultRig;
beforeAll(async () => { rig = await startFaultRig(); });
afterAll(() => rig?.stop());
afterEach(() => rig.recover());

const base = () => rig.app.baseUrl;

function authorize(extra: Record<string, string> = {}) {
  const { challenge, verifier } = pkcePair();
  return { url: buildAuthorizeUrl(base(), MEMBER, { scope: SCOPE, challenge, state: randomState(), extra }), verifier };
}

/** Signs the browser in on the library's page and returns the member's tokens. */
async function signedInMember(browser: Browser): Promise<TokenSet> {
  const { url, verifier } = authorize();
  let result = await browser.navigate(url);
  if (isPage(result) && result.html.includes('name="password"')) result = await browser.submit(result, '/login', { ...STUDENT });
  if (isPage(result) && result.html.includes('/confirm"')) result = await browser.submit(result, '/confirm');
  if (isPage(result)) throw new Error(`expected the client's redirect, got a page ${result.response.status}`);
  const res = await exchangeCode(base(), MEMBER, new URL(result.redirect).searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return (await res.json()) as TokenSet;
}

/** What a new authorization of this browser meets: the consent page (signed in) or the password. */
async function signInState(browser: Browser): Promise<string> {
  const result = await browser.navigate(authorize({ prompt: 'consent' }).url);
  if (isPage(result) && result.html.includes('name="password"')) return 'asked for the password again';
  if (isPage(result) && result.html.includes('/confirm"')) return 'signed in';
  return isPage(result) ? `a page ${result.response.status}` : 'sent to the client';
}

/** The consent of a later authorization, allowed: the answer is the redirect to its resume. */
async function allowedConsent(browser: Browser): Promise<string> {
  const consent = await browser.navigate(authorize({ prompt: 'consent' }).url, { headers: { accept: 'text/html' } });
  if (!isPage(consent) || !consent.html.includes('/confirm"')) throw new Error('expected the consent page');
  const form = findForm((consent as PageResult).html, '/confirm');
  const allowed = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form.hidden).toString(),
  });
  const resume = allowed.headers.get('location');
  if (!resume) throw new Error(`expected the redirect to the resume, got ${allowed.status}`);
  return resume;
}

const refresh = (refreshToken: string) => postForm(`${base()}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
});

it('without a fault the resume still rotates the session id: the old record is gone (no session fixation)', async () => {
  const browser = new Browser(base());
  await signedInMember(browser);
  const before = browser.cookie('_session');
  const resume = await allowedConsent(browser);
  const result = await browser.navigate(resume);
  expect(isPage(result)).toBe(false);
  const after = browser.cookie('_session');
  expect(before).toEqual(expect.any(String));
  expect(after).toEqual(expect.any(String));
  expect(after).not.toBe(before);
  const sessions = rig.app.auth.options.adapter('Session');
  expect(await sessions.find(before!)).toBeUndefined();
  expect(await sessions.find(after!)).toEqual(expect.objectContaining({ accountId: expect.any(String) }));
});

it.each<[string, Fault, number[]]>([
  ['refused as the new record is written', { model: 'Session', method: 'upsert', when: 'before', action: 'kill' }, [503]],
  // the delete of the old record fails and is let go: the answer (its code written before) goes on
  ['refused once the new record is written', { model: 'Session', method: 'upsert', when: 'after', action: 'kill' }, [303]],
  ['not answering while the code is written', { model: 'AuthorizationCode', method: 'upsert', when: 'before', action: 'pause' }, [503]],
  // the session is saved after the code failed: its new record written, the old one deleted
  ['refusing only the code\'s write (the session saved after it)', { model: 'AuthorizationCode', method: 'upsert', when: 'before', action: 'refuse' }, [503]],
  // the delete is best effort: the answer goes on, with the new cookie
  ['not answering as the old record is deleted', { model: 'Session', method: 'destroy', when: 'before', action: 'pause' }, [303]],
])('Redis %s at the resume: no 500, and the member is still signed in', async (_name, fault, statuses) => {
  const browser = new Browser(base());
  const tokens = await signedInMember(browser);
  expect(await signInState(browser)).toBe('signed in');
  const resume = await allowedConsent(browser);
  rig.arm(fault);
  const res = await browser.request(resume, { headers: { accept: 'text/html' } });
  expect(statuses).toContain(res.status);
  if (res.status === 503) {
    expect(res.headers.get('retry-after')).toEqual(expect.any(String));
    expect(await res.text()).toContain('Temporarily unavailable');
  }
  await rig.recover();
  expect(await signInState(browser)).toBe('signed in');
  expect((await refresh(tokens.refresh_token)).status).toBe(200);
});

/** A member already signed in signs in again on the library's page (prompt=login): the redirect to its resume. */
async function reauthenticated(browser: Browser): Promise<string> {
  const page = await browser.navigate(authorize({ prompt: 'login' }).url, { headers: { accept: 'text/html' } });
  if (!isPage(page) || !page.html.includes('name="password"')) throw new Error('expected the sign-in page');
  const form = findForm(page.html, '/login');
  const posted = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, ...STUDENT }).toString(),
  });
  const resume = posted.headers.get('location');
  if (!resume) throw new Error(`expected the redirect to the resume, got ${posted.status}`);
  return resume;
}

// The demo host's sign-in follows its session (signIn.session): a sign-in on the library's page
// is noted (OwnPageSignIn, lib/policies/host-session.ts), and without its note the next
// authorization would ask for the password again, the host naming nobody
it.each<[string, Fault]>([
  // once: the provider's second save of the session in this request (ensureSessionSave) writes it
  ['refusing the note of the sign-in', { model: 'OwnPageSignIn', method: 'upsert', when: 'before', action: 'refuse' }],
  ['refusing once the note is written', { model: 'OwnPageSignIn', method: 'upsert', when: 'after', action: 'refuse' }],
  // for good: the second save fails too
  ['killed as the note of the sign-in is written', { model: 'OwnPageSignIn', method: 'upsert', when: 'before', action: 'kill' }],
])('Redis %s at a re-authentication\'s resume: 503, and the member is still signed in', async (_name, fault) => {
  const browser = new Browser(base());
  const tokens = await signedInMember(browser);
  const resume = await reauthenticated(browser);
  rig.arm(fault);
  const res = await browser.request(resume, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(503);
  await rig.recover();
  // the browser's cookie (the one it had, or a new one) names a record that was written
  expect(await rig.app.auth.options.adapter('Session').find(browser.cookie('_session')!)).toEqual(expect.objectContaining({ accountId: expect.any(String) }));
  expect(await signInState(browser)).toBe('signed in');
  expect((await refresh(tokens.refresh_token)).status).toBe(200);
});

it('a re-authentication on the library\'s page without a fault: the new sign-in is noted, the member stays signed in', async () => {
  const browser = new Browser(base());
  await signedInMember(browser);
  let result = await browser.navigate(await reauthenticated(browser));
  if (isPage(result) && result.html.includes('/confirm"')) result = await browser.submit(result, '/confirm');
  expect(isPage(result) ? `a page ${result.response.status}` : 'sent to the client').toBe('sent to the client');
  expect(await signInState(browser)).toBe('signed in');
});

/** A code of the member, from a browser signed in on the library's page. */
async function memberCode(browser: Browser): Promise<{ code: string; verifier: string }> {
  const { url, verifier } = authorize();
  let result = await browser.navigate(url);
  if (isPage(result) && result.html.includes('name="password"')) result = await browser.submit(result, '/login', { ...STUDENT });
  if (isPage(result) && result.html.includes('/confirm"')) result = await browser.submit(result, '/confirm');
  if (isPage(result)) throw new Error(`expected the client's redirect, got a page ${result.response.status}`);
  return { code: new URL(result.redirect).searchParams.get('code')!, verifier };
}

// oidc-provider consumes the code before it stores the tokens: a code exchange answered 503
// gives its code back (lib/policies/code-replay.ts), so the client's retry is no replay
it.each<[string, Fault]>([
  ['refusing the access token\'s write', { model: 'AccessToken', method: 'upsert', when: 'before', action: 'refuse' }],
  ['refusing once the access token is written', { model: 'AccessToken', method: 'upsert', when: 'after', action: 'refuse' }],
  ['refusing the refresh token\'s write', { model: 'RefreshToken', method: 'upsert', when: 'before', action: 'refuse' }],
])('Redis %s at a code exchange: 503, and the retry redeems the code', async (_name, fault) => {
  const { code, verifier } = await memberCode(new Browser(base()));
  rig.arm(fault);
  const first = await exchangeCode(base(), MEMBER, code, verifier);
  expect(first.status).toBe(503);
  expect(first.headers.get('retry-after')).toEqual(expect.any(String));
  await rig.recover();
  const retry = await exchangeCode(base(), MEMBER, code, verifier);
  expect(retry.status).toBe(200);
  const tokens = await retry.json() as TokenSet;
  expect((await fetch(`${base()}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  expect((await refresh(tokens.refresh_token)).status).toBe(200);
  // once redeemed, a code used again is replay as ever: refused, and its grant revoked
  const replay = await exchangeCode(base(), MEMBER, code, verifier);
  expect(replay.status).toBe(400);
  expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
  expect((await fetch(`${base()}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
});

/** The documented bound (adapters/redis.ts, README "When Redis is unreachable"), with slack for a loaded machine. */
const WITHIN_MS = 3_000 + 1_500;

it('Redis stops answering at the resume: 503 within the bound, not after one wait per storage call', async () => {
  const browser = new Browser(base());
  await signedInMember(browser);
  const resume = await allowedConsent(browser);
  rig.arm({ model: 'Interaction', method: 'find', when: 'before', action: 'pause' });
  const started = Date.now();
  const res = await browser.request(resume, { headers: { accept: 'text/html' } });
  expect({ status: res.status, ms: Date.now() - started < WITHIN_MS }).toEqual({ status: 503, ms: true });
});

it('Redis stops answering while one account signs in from eight browsers at once: each 503 within the bound', async () => {
  const forms = await Promise.all(Array.from({ length: 8 }, async () => {
    const browser = new Browser(base());
    const page = await browser.navigate(authorize().url);
    if (!isPage(page) || !page.html.includes('name="password"')) throw new Error('expected the sign-in page');
    return { browser, form: findForm(page.html, '/login') };
  }));
  rig.redis.pause();
  const answers = await Promise.all(forms.map(async ({ browser, form }) => {
    const started = Date.now();
    const res = await browser.request(form.action, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }).toString(),
    });
    return { status: res.status, inBound: Date.now() - started < WITHIN_MS };
  }));
  expect(answers).toEqual(Array.from({ length: 8 }, () => ({ status: 503, inBound: true })));
});

it('the demo\'s admin area: storage failing once an application was created still shows its one-time secret, and nothing asks for a second create', async () => {
  const browser = new Browser(base());
  const signIn = await browser.navigate(`${base()}/admin`);
  if (!isPage(signIn)) throw new Error('expected the admin sign-in page');
  const landing = await browser.submit(signIn, '/admin/sign-in', { email: ADMIN.email, password: ADMIN.password });
  if (!isPage(landing)) throw new Error('expected the admin page');
  const apps = await browser.navigate(`${base()}/admin/sites/demo-school/apps`);
  if (!isPage(apps)) throw new Error('expected the applications page');
  const name = `Buddy ${Date.now()}`;
  // the library has written the application; the list read after it meets a refusing Redis
  rig.arm({ model: 'Client', method: 'upsert', when: 'after', action: 'kill' });
  const form = findForm(apps.html, '/admin/sites/demo-school/apps');
  const res = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, name, redirect_uris: 'https://buddy.example/cb', type: 'confidential', scope: 'openid' }).toString(),
  });
  const html = await res.text();
  expect(res.status).toBe(200);
  expect(html).toContain('could not be loaded just now');
  const secret = /<code[^>]*>([\w-]{32,})<\/code>/.exec(html)?.[1];
  expect(secret).toEqual(expect.any(String));
  await rig.recover();
  // exactly the one application, and the secret shown is its own
  const listed = (await rig.app.auth.memberClients.list('demo-school')).filter((c) => c.name === name);
  expect(listed).toHaveLength(1);
  const token = await postForm(`${base()}/api/oauth/introspect`, { token: 'x', client_id: listed[0]!.clientId, client_secret: secret! });
  expect(token.status).toBe(200);
});

it('an Allow answered 503 after its grant was stored, sent again, connects the app once', async () => {
  const browser = new Browser(base());
  const { url } = authorize();
  let page = await browser.navigate(url);
  if (isPage(page) && page.html.includes('name="password"')) page = await browser.submit(page, '/login', { ...STUDENT });
  if (!isPage(page) || !page.html.includes('/confirm"')) throw new Error('expected the consent page');
  const form = findForm(page.html, '/confirm');
  const allow = () => browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: new URLSearchParams(form.hidden).toString(),
  });
  const accountId = (await rig.app.auth.options.accounts.authenticate(STUDENT.email, STUDENT.password, {} as never))!.id;
  const grantsBefore = (await rig.app.auth.connectedApps.list(accountId)).find((a) => a.clientId === MEMBER.clientId)?.grants.length ?? 0;
  // the grant is stored; the interaction's result is not
  rig.arm({ model: 'Interaction', method: 'upsert', when: 'before', action: 'refuse' });
  expect((await allow()).status).toBe(503);
  const again = await allow();
  expect(again.status).toBe(303);
  const grantsAfter = (await rig.app.auth.connectedApps.list(accountId)).find((a) => a.clientId === MEMBER.clientId)?.grants.length ?? 0;
  expect(grantsAfter - grantsBefore).toBe(1);
});
