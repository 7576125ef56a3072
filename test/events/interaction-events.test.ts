/**
 * The events of the sign-in and consent pages, emitted where each outcome is decided
 * (interactions/router.ts, interactions/host-sign-in.ts): `signin.failed` (empty field,
 * wrong credentials), `signin.throttled`, and `consent.denied` for Deny, Cancel, an
 * ineligible account and a Cancel on the host's own page, each once, by the request that
 * decided it, with the client and site and never the email or the password; one
 * `signin.succeeded` per sign-in (the consent after it does not repeat it); and what the
 * client's trace and the metrics make of them.
 */
import { METRICS } from '../../lib/metrics/instruments.ts';
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, obtainCode, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { testMetrics } from '../metrics/support.ts';
import type { TestMetrics } from '../metrics/support.ts';

const OPERATOR_SECRET = 'operator-secret-for-tests-0123456789';
const SITE = 'demo-school';

let app: RunningApp;
let metrics: TestMetrics;
const events: PlatformAuthEvent[] = [];

beforeAll(async () => {
  metrics = testMetrics();
  app = await startApp({
    operatorSecret: OPERATOR_SECRET,
    // one free failure per account, then a wait: the second wrong attempt is throttled
    auth: { signInThrottle: { accountFailures: 1, maxDelaySeconds: 60 }, metrics: { meterProvider: metrics.meterProvider } },
  });
  app.auth.events.on('*', (event) => { events.push(event); });
});
afterAll(async () => {
  await app.stop();
  await metrics.shutdown();
});

/** The events emitted while `run` runs. */
async function during<T>(run: () => Promise<T>): Promise<{ result: T; emitted: PlatformAuthEvent[] }> {
  const from = events.length;
  const result = await run();
  return { result, emitted: events.slice(from) };
}

function page(result: PageResult | { redirect: string }, what: string): PageResult {
  if (!isPage(result)) throw new Error(`expected ${what}, got a redirect to ${result.redirect}`);
  return result;
}

/** Opens the sign-in page of a fresh authorization request of `client`. */
async function signInPage(browser: Browser, client: { clientId: string; redirectUri: string } = MEMBER): Promise<PageResult> {
  const url = buildAuthorizeUrl(app.baseUrl, client, { scope: 'openid', challenge: pkcePair().challenge, state: 'st' });
  return page(await browser.navigate(url), 'the sign-in page');
}

/** Posts a page's form without following the answer; returns the answer. */
async function post(browser: Browser, from: PageResult, actionSuffix: string, fields: Record<string, string> = {}): Promise<Response> {
  const form = findForm(from.html, actionSuffix);
  return browser.request(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, ...fields }).toString(),
  });
}

const named = <N extends PlatformAuthEvent['name']>(list: PlatformAuthEvent[], name: N) =>
  list.filter((e): e is Extract<PlatformAuthEvent, { name: N }> => e.name === name);

describe('sign-in', () => {
  it('an empty field is signin.failed (incomplete), with the client and site and no email', async () => {
    const browser = new Browser(app.baseUrl);
    const login = await signInPage(browser);
    const { result: res, emitted } = await during(() => post(browser, login, '/login', { email: 'someone.typing@example.com', password: '' }));
    expect(res.status).toBe(401);
    expect(named(emitted, 'signin.failed')).toEqual([{
      name: 'signin.failed', reason: 'incomplete', clientId: MEMBER.clientId, site: SITE, at: expect.any(Number), requestId: res.headers.get('x-request-id'),
    }]);
    expect(JSON.stringify(emitted)).not.toContain('someone.typing');
  });

  it('a wrong password is signin.failed (credentials), never carrying the email or the password', async () => {
    const browser = new Browser(app.baseUrl);
    const login = await signInPage(browser);
    const password = 'Wrong-Password-9f8e7d';
    const { result: res, emitted } = await during(() => post(browser, login, '/login', { email: 'nobody.here@example.com', password }));
    expect(res.status).toBe(401);
    expect(named(emitted, 'signin.failed')).toEqual([expect.objectContaining({ reason: 'credentials', clientId: MEMBER.clientId, site: SITE, requestId: res.headers.get('x-request-id') })]);
    const text = JSON.stringify(emitted);
    expect(text).not.toContain(password);
    expect(text).not.toContain('nobody.here');
    expect(await metrics.value(METRICS.signInFailures.name, { reason: 'credentials' })).toBeGreaterThanOrEqual(1);
  });

  it('an attempt the throttle refuses is signin.throttled with its wait, and is no signin.failed', async () => {
    const browser = new Browser(app.baseUrl);
    const email = 'throttled.person@example.com';
    await post(browser, await signInPage(browser), '/login', { email, password: 'first-wrong-guess' });
    const { result: res, emitted } = await during(async () => post(browser, await signInPage(browser), '/login', { email, password: 'second-wrong-guess' }));
    expect(res.status).toBe(429);
    const throttled = named(emitted, 'signin.throttled');
    expect(throttled).toEqual([expect.objectContaining({ clientId: MEMBER.clientId, site: SITE, requestId: res.headers.get('x-request-id') })]);
    expect(throttled[0]!.retryAfter).toBe(Number(res.headers.get('retry-after')));
    expect(named(emitted, 'signin.failed')).toEqual([]);
    expect(JSON.stringify(emitted)).not.toMatch(/throttled\.person|wrong-guess/);
    expect(await metrics.value(METRICS.signInThrottled.name)).toBeGreaterThanOrEqual(1);
  });

  it('the client\'s trace explains each, in plain words', async () => {
    const trace = await app.auth.clientTrace(MEMBER.clientId);
    expect(trace.find((e) => e.event === 'signin.failed' && e.reason === 'credentials')).toMatchObject({
      outcome: 'refused', summary: 'A sign-in failed: the email or the password was wrong.', site: SITE,
    });
    expect(trace.find((e) => e.event === 'signin.throttled')).toMatchObject({
      outcome: 'refused', summary: expect.stringMatching(/^Sign-in was paused after repeated failures; the next attempt is allowed in \d+ s\.$/),
    });
  });
});

it('a sign-in followed by consent is one signin.succeeded and one consent.granted', async () => {
  const { emitted } = await during(() => obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT));
  expect(named(emitted, 'signin.succeeded')).toEqual([expect.objectContaining({ clientId: MEMBER.clientId, accountId: 'acc-student', site: SITE })]);
  expect(named(emitted, 'consent.granted')).toHaveLength(1);
});

describe('consent.denied', () => {
  it('Deny is consent.denied (user), once, from the Deny request, with the account; no authorization.failed', async () => {
    const browser = new Browser(app.baseUrl);
    const consent = page(await browser.submit(await signInPage(browser), '/login', STUDENT), 'the consent page');
    const { result: res, emitted } = await during(async () => {
      const answer = await post(browser, consent, '/abort');
      // the browser goes on to the client, through the resume
      const back = await browser.navigate(answer.headers.get('location')!);
      expect(isPage(back)).toBe(false);
      return answer;
    });
    expect(named(emitted, 'consent.denied')).toEqual([{
      name: 'consent.denied', reason: 'user', clientId: MEMBER.clientId, site: SITE, accountId: 'acc-student', at: expect.any(Number), requestId: res.headers.get('x-request-id'),
    }]);
    expect(named(emitted, 'authorization.failed')).toEqual([]);
  });

  it('Cancel on the sign-in page is consent.denied (user), without an account', async () => {
    const browser = new Browser(app.baseUrl);
    const login = await signInPage(browser);
    const { result: res, emitted } = await during(async () => {
      const answer = await post(browser, login, '/abort');
      await browser.navigate(answer.headers.get('location')!);
      return answer;
    });
    expect(named(emitted, 'consent.denied')).toEqual([expect.objectContaining({ reason: 'user', clientId: MEMBER.clientId, requestId: res.headers.get('x-request-id') })]);
    expect(named(emitted, 'consent.denied')[0]).not.toHaveProperty('accountId');
    expect(named(emitted, 'authorization.failed')).toEqual([]);
  });

  it('an account that may not authorize the app is consent.denied (ineligible) when refused, and not again on leaving', async () => {
    const op = operator(app.baseUrl, OPERATOR_SECRET);
    const browser = new Browser(app.baseUrl);
    const login = await signInPage(browser, op);
    // a student is no operator of any site: the refusal page
    const { result: refusal, emitted } = await during(async () => page(await browser.submit(login, '/login', STUDENT), 'the refusal page'));
    expect(refusal.response.status).toBe(403);
    expect(named(emitted, 'consent.denied')).toEqual([expect.objectContaining({
      reason: 'ineligible', clientId: op.clientId, accountId: 'acc-student', requestId: refusal.response.headers.get('x-request-id'),
    })]);

    const leaving = await during(async () => {
      const back = await browser.submit(refusal, '/abort');
      expect(isPage(back)).toBe(false);
    });
    expect(named(leaving.emitted, 'consent.denied')).toEqual([]);
    expect(named(leaving.emitted, 'authorization.failed')).toEqual([]);

    const trace = await app.auth.clientTrace(op.clientId);
    expect(trace.find((e) => e.event === 'consent.denied')).toMatchObject({
      reason: 'ineligible', outcome: 'refused', summary: expect.stringContaining('may not authorize this app'),
    });
  });
});

it('Cancel on the host\'s own sign-in page is consent.denied (user), from the cancel request', async () => {
  const hosted = await startApp({ signIn: 'host' });
  try {
    const heard: PlatformAuthEvent[] = [];
    hosted.auth.events.on('*', (event) => { heard.push(event); });
    const browser = new Browser(hosted.baseUrl);
    const url = buildAuthorizeUrl(hosted.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 'st' });
    const hostPage = page(await browser.navigate(url), 'the host sign-in page');
    const form = findForm(hostPage.html, '/sign-in/cancel');
    const answer = await browser.request(form.action, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form.hidden).toString(),
    });
    expect(answer.status).toBe(303);
    expect(isPage(await browser.navigate(answer.headers.get('location')!))).toBe(false);
    expect(heard.filter((e) => e.name === 'consent.denied')).toEqual([expect.objectContaining({
      reason: 'user', clientId: MEMBER.clientId, site: SITE, requestId: answer.headers.get('x-request-id'),
    })]);
    expect(heard.filter((e) => e.name === 'authorization.failed')).toEqual([]);
  } finally {
    await hosted.stop();
  }
});
