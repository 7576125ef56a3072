/**
 * Diagnostics end to end, on one instance: request ids kept, made and echoed by every kind of
 * route; a full run of real clients (openid-client, the MCP SDK client, the sign-in pages)
 * whose events, trace and log lines hold none of the tokens, codes, secrets or passwords
 * seen on the wire; the metrics of that run through an in-memory reader; a listener that
 * throws breaks nothing; `events: false` builds nothing; a member client's trace is its
 * site's only.
 */
import { jest } from '@jest/globals';
import * as oidc from 'openid-client';

import { createAccountStore } from '../../examples/host/seed.ts';
import { MemberClientError } from '../../lib/index.ts';
import type { AccountStore, PlatformAuthEvent } from '../../lib/index.ts';
import { METRICS } from '../../lib/metrics/instruments.ts';
import { MetricsRecorder } from '../../lib/metrics/recorder.ts';
import { Browser, signIn } from '../support/browser.ts';
import type { SignInOptions } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, operator } from '../support/flows.ts';
import { eventually } from '../support/eventually.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { connect } from '../mcp/support.ts';
import { testMetrics } from '../metrics/support.ts';
import type { TestMetrics } from '../metrics/support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const OPERATOR_SECRET = 'operator-secret-for-tests-0123456789';

// ---- everything seen on the wire, to scan the events for ----------------------------------

const SECRET_KEYS = new Set(['access_token', 'refresh_token', 'id_token', 'code', 'code_verifier', 'client_secret', 'password', 'token']);
const wire = new Set<string>();
const realFetch = globalThis.fetch;

function collect(key: string, value: unknown) {
  if (typeof value === 'string' && value.length >= 6 && SECRET_KEYS.has(key)) wire.add(value);
}

function collectBody(text: string, type: string | null) {
  if (type?.includes('json')) {
    try {
      for (const [k, v] of Object.entries(JSON.parse(text) as Record<string, unknown>)) collect(k, v);
    } catch { /* not an object */ }
  } else if (type?.includes('x-www-form-urlencoded') || /^[\w%.-]+=/.test(text)) {
    for (const [k, v] of new URLSearchParams(text)) collect(k, v);
  }
}

/** Records the secrets of every request and answer: bodies, Location codes, bearer tokens, cookies. */
async function recordingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  const bearer = /^Bearer (.+)$/i.exec(headers.get('authorization') ?? '');
  if (bearer) wire.add(bearer[1]!);
  if (typeof init?.body === 'string') collectBody(init.body, headers.get('content-type'));
  else if (init?.body instanceof URLSearchParams) collectBody(init.body.toString(), 'application/x-www-form-urlencoded');
  const response = await realFetch(input, init);
  const location = response.headers.get('location');
  if (location) for (const [k, v] of new URL(location, 'http://x').searchParams) collect(k, v);
  for (const cookie of response.headers.getSetCookie()) {
    const value = cookie.split(';')[0]!.split('=').slice(1).join('=');
    if (value.length >= 16) wire.add(value);
  }
  collectBody(await response.clone().text(), response.headers.get('content-type'));
  return response;
}

// ---- the instance ------------------------------------------------------------------------

// The demo's passwords are words ("student") that ids contain too; this instance's are not.
const PASSWORDS: Record<string, string> = { 'pw-Student-7f3a9c1e2b44': 'student', 'pw-Admin-0d9e8c7b6a55': 'admin', 'pw-Wrong-11aa22bb33cc': 'wrong' };
const STUDENT_STRONG = { ...STUDENT, password: 'pw-Student-7f3a9c1e2b44' };
const ADMIN_STRONG = { ...ADMIN, password: 'pw-Admin-0d9e8c7b6a55' };

function withStrongPasswords(): AccountStore {
  const demo = createAccountStore();
  return {
    authenticate: (email, password, context) => demo.authenticate(email, PASSWORDS[password] ?? '', context),
    findById: (id) => demo.findById(id),
  };
}

let app: RunningApp;
let metrics: TestMetrics;
const events: PlatformAuthEvent[] = [];

beforeAll(async () => {
  globalThis.fetch = recordingFetch as typeof fetch;
  metrics = testMetrics();
  app = await startApp({ auth: { accounts: withStrongPasswords(), metrics: { meterProvider: metrics.meterProvider } } });
  app.auth.events.on('*', (event) => { events.push(event); });
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await app.stop();
  await metrics.shutdown();
});

async function discover(clientId: string, metadata: Partial<oidc.ClientMetadata>, auth: oidc.ClientAuth) {
  return oidc.discovery(new URL(app.baseUrl), clientId, metadata, auth, { execute: [oidc.allowInsecureRequests] });
}

/** Code flow with openid-client through the real pages; returns the tokens. */
async function codeFlow(config: oidc.Configuration, redirectUri: string, scope: string, user: SignInOptions) {
  const verifier = oidc.randomPKCECodeVerifier();
  wire.add(verifier);
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope, resource: app.baseUrl,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
  });
  const redirect = await signIn(new Browser(app.baseUrl), url.href, user);
  return oidc.authorizationCodeGrant(config, new URL(redirect), { pkceCodeVerifier: verifier, expectedState: state }, { resource: app.baseUrl });
}

describe('request ids', () => {
  // every row has its three cells: jest would take a missing one for a `done` callback
  const routes: [string, string, RequestInit | undefined][] = [
    ['the provider (discovery)', '/.well-known/openid-configuration', undefined],
    ['the provider (an error answer)', '/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=nope' }],
    ['the sign-in pages', '/oauth/interaction/unknown-uid', undefined],
    ['UserInfo', '/api/oauth/userinfo', undefined],
    ['/account/graphql', '/account/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{viewer{id}}"}' }],
    ['/mcp', '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }],
    ['the docs', '/openapi.json', undefined],
    ['/auth.md', '/auth.md', undefined],
    ['the protected-resource metadata', '/.well-known/oauth-protected-resource', undefined],
    ['a host route after the library', '/admin/api/courses', undefined],
  ];

  it.each(routes)('are kept from the request and echoed by %s', async (_, path, init) => {
    const res = await realFetch(`${app.baseUrl}${path}`, { ...init, headers: { ...init?.headers as Record<string, string>, 'x-request-id': 'trace-me-42' } });
    await res.arrayBuffer();
    expect(res.headers.get('x-request-id')).toBe('trace-me-42');
  });

  it.each(routes)('are made when none (or a malformed one) is sent, by %s', async (_, path, init) => {
    const plain = await realFetch(`${app.baseUrl}${path}`, init);
    await plain.arrayBuffer();
    expect(plain.headers.get('x-request-id')).toMatch(UUID);
    const forged = await realFetch(`${app.baseUrl}${path}`, { ...init, headers: { ...init?.headers as Record<string, string>, 'x-request-id': 'a b "c"' } });
    await forged.arrayBuffer();
    expect(forged.headers.get('x-request-id')).toMatch(UUID);
  });

  it('are the id of the request\'s events', async () => {
    const before = events.length;
    const res = await realFetch(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer not-a-token-at-all' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.status).toBe(401);
    const refusal = await eventually(async () => events.slice(before).find((e) => e.name === 'access.refused'), (e) => e !== undefined);
    expect(refusal).toMatchObject({ endpoint: 'mcp', reason: 'unknown', status: 401, requestId: res.headers.get('x-request-id') });
  });
});

describe('a full run of real clients', () => {
  let runEvents: PlatformAuthEvent[];
  /** an event of each step of the run below */
  const STEP_EVENTS: readonly PlatformAuthEvent['name'][] = [
    'signin.succeeded', 'consent.granted', 'code.issued', 'code.redeemed', 'refresh.rotated', 'token.revoked',
    'access.refused', 'refresh.reuse_detected', 'authorization.failed', 'consent.denied',
  ];

  beforeAll(async () => {
    const from = events.length;
    wire.add(STUDENT_STRONG.password).add(ADMIN_STRONG.password).add(OPERATOR_SECRET);
    // a member app: code flow, UserInfo, the Account API, MCP tools, refresh, revocation
    const member = await discover(MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None());
    const tokens = await codeFlow(member, MEMBER.redirectUri, 'openid profile email account:read', STUDENT_STRONG);
    await oidc.fetchUserInfo(member, tokens.access_token, oidc.skipSubjectCheck);
    const graph = await fetch(`${app.baseUrl}/account/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` }, body: '{"query":"{viewer{id email}}"}',
    });
    expect(graph.status).toBe(200);
    const mcp = await connect(app, { token: tokens.access_token });
    await mcp.client.callTool({ name: 'list_my_courses', arguments: {} });
    await mcp.close();
    // refresh twice, then refresh-token reuse: the first refresh token again, after its successor was used
    const refreshed = await oidc.refreshTokenGrant(member, tokens.refresh_token!);
    await oidc.refreshTokenGrant(member, refreshed.refresh_token!);
    await expect(oidc.refreshTokenGrant(member, tokens.refresh_token!)).rejects.toThrow();
    // revocation (oidc-provider revokes the other tokens of the grant with it), then the dead token
    const again = await codeFlow(member, MEMBER.redirectUri, 'openid account:read', STUDENT_STRONG);
    await oidc.tokenRevocation(member, again.access_token);
    const dead = await fetch(`${app.baseUrl}/account/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${again.access_token}` }, body: '{"query":"{viewer{id}}"}',
    });
    expect(dead.status).toBe(401);
    // an operator app with a client secret, and its host route
    const op = operator(app.baseUrl, OPERATOR_SECRET);
    const operatorConfig = await discover(op.clientId, { token_endpoint_auth_method: 'client_secret_post' }, oidc.ClientSecretPost(OPERATOR_SECRET));
    const operatorTokens = await codeFlow(operatorConfig, op.redirectUri, 'openid courses:read', ADMIN_STRONG);
    const courses = await fetch(`${app.baseUrl}/admin/api/courses`, { headers: { authorization: `Bearer ${operatorTokens.access_token}` } });
    expect(courses.status).toBe(200);
    // a failed sign-in, a denied consent, a redirect mismatch
    const wrong = { ...STUDENT, password: 'pw-Wrong-11aa22bb33cc' };
    wire.add(wrong.password);
    await expect(codeFlow(member, MEMBER.redirectUri, 'openid', wrong)).rejects.toThrow();
    await expect(codeFlow(member, MEMBER.redirectUri, 'openid', { ...STUDENT_STRONG, decision: 'deny' })).rejects.toThrow();
    const mismatch = oidc.buildAuthorizationUrl(member, { redirect_uri: 'http://127.0.0.1:5000/elsewhere', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    expect((await fetch(mismatch)).status).toBe(400);
    // some events follow their answer (a refusal's cause is looked up in storage first): read
    // until every step's event is in, rather than bet on how long that takes
    const all = (list: PlatformAuthEvent[]) => STEP_EVENTS.every((name) => list.some((e) => e.name === name))
      && list.some((e) => e.name === 'access.refused' && e.reason === 'revoked');
    runEvents = await eventually(async () => events.slice(from), all);
  });

  it('emits the events of each step, with the client, site and account where known', () => {
    const names = new Set(runEvents.map((e) => e.name));
    for (const name of STEP_EVENTS) expect(names).toContain(name);
    expect(runEvents.find((e) => e.name === 'code.redeemed')).toMatchObject({ clientId: MEMBER.clientId, accountId: 'acc-student', site: 'demo-school', requestId: expect.any(String) });
    expect(runEvents.find((e) => e.name === 'access.refused')).toMatchObject({ clientId: MEMBER.clientId, reason: 'revoked', endpoint: 'account_api' });
    expect(runEvents.find((e) => e.name === 'authorization.failed')).toMatchObject({
      clientId: MEMBER.clientId, error: 'invalid_redirect_uri', redirectUri: 'http://127.0.0.1:5000/elsewhere', registeredRedirectUris: ['http://127.0.0.1/callback'],
    });
  });

  it('carries no token, code, secret or password seen on the wire, in events, traces or log lines', async () => {
    expect(wire.size).toBeGreaterThan(15);
    const traces = await Promise.all([MEMBER.clientId, 'demo-operator-app'].map((id) => app.auth.clientTrace(id)));
    expect(traces[0]!.length).toBeGreaterThan(5);
    const text = JSON.stringify({ runEvents, traces, log: app.warnings });
    const leaked = [...wire].filter((value) => text.includes(value));
    expect(leaked).toEqual([]);
  });

  it('traces the member app in plain words, newest first', async () => {
    const trace = await app.auth.clientTrace(MEMBER.clientId);
    expect(trace.map((e) => e.at)).toEqual([...trace.map((e) => e.at)].sort().reverse());
    expect(trace.find((e) => e.event === 'refresh.reuse_detected')).toMatchObject({
      outcome: 'refused', summary: expect.stringContaining('already been replaced was used again'), action: expect.stringContaining('new refresh token'),
    });
    expect(trace.find((e) => e.event === 'authorization.failed')?.summary)
      .toBe('redirect_uri http://127.0.0.1:5000/elsewhere is not registered for this app; registered: http://127.0.0.1/callback.');
  });

  it('logs the reuse with its request id', () => {
    const reuse = runEvents.find((e) => e.name === 'refresh.reuse_detected')!;
    expect(app.warnings).toContain(`platform-auth: refresh-token reuse by client "${MEMBER.clientId}" (after_grace): every token of that grant was revoked [request ${reuse.requestId}]`);
  });

  it('records the run in the metrics', async () => {
    expect(await metrics.value(METRICS.tokensIssued.name)).toBeGreaterThanOrEqual(2);
    expect(await metrics.value(METRICS.tokensRefreshed.name, { outcome: 'rotated' })).toBeGreaterThanOrEqual(2);
    expect(await metrics.value(METRICS.tokensRevoked.name, { token_type: 'access_token', reason: 'revocation' })).toBe(1);
    expect(await metrics.value(METRICS.tokensRevoked.name, { token_type: 'grant', reason: 'refresh_reuse' })).toBe(1);
    expect(await metrics.value(METRICS.errors.name, { endpoint: 'authorization', error: 'invalid_redirect_uri' })).toBe(1);
    expect(await metrics.value(METRICS.accessRefused.name, { endpoint: 'account_api', reason: 'revoked' })).toBe(1);
    const durations = (await metrics.collect()).filter((p) => p.name === METRICS.requestDuration.name);
    expect(durations.find((p) => p.attributes.endpoint === 'token' && p.attributes['http.response.status_code'] === 200)?.value).toBeGreaterThanOrEqual(3);
    expect(durations.find((p) => p.attributes.endpoint === 'mcp')).toBeDefined();
    // the host's own routes are not timed
    expect(durations.every((p) => typeof p.attributes.endpoint === 'string' && p.attributes.endpoint !== 'host')).toBe(true);
  });
});

it('keeps serving when a listener throws, and logs it', async () => {
  const started = await startApp();
  try {
    started.auth.events.on('code.issued', () => { throw new Error('listener bug'); });
    const member = await oidc.discovery(new URL(started.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(member, {
      redirect_uri: MEMBER.redirectUri, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's',
    });
    const redirect = await signIn(new Browser(started.baseUrl), url.href, STUDENT);
    expect(new URL(redirect).searchParams.get('code')).toEqual(expect.any(String));
    expect(started.warnings.some((w) => w.includes('a listener of the code.issued event failed') && w.includes('listener bug'))).toBe(true);
  } finally {
    await started.stop();
  }
});

/** A `ping` to `/mcp` with a bearer token that is not one: refused 401, one `access.refused` event. */
function refusedMcpPing(baseUrl: string): Promise<Response> {
  return realFetch(`${baseUrl}/mcp`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer nope' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
}

it('builds no event with events: false, and still gives requests an id', async () => {
  const quiet = await startApp({ auth: { events: false } });
  try {
    const heard: PlatformAuthEvent[] = [];
    quiet.auth.events.on('*', (e) => { heard.push(e); });
    const res = await refusedMcpPing(quiet.baseUrl);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual([]);
    expect(await quiet.auth.clientTrace(MEMBER.clientId)).toEqual([]);
  } finally {
    await quiet.stop();
  }
});

it('leaves the metrics out on the API\'s no-op meter (no SDK), and still emits the event', async () => {
  // no `metrics.meterProvider` and no global SDK in this process: every point would be dropped
  const plain = await startApp();
  const recorded = jest.spyOn(MetricsRecorder.prototype, 'record');
  const errors = jest.spyOn(MetricsRecorder.prototype, 'error');
  const timed = jest.spyOn(MetricsRecorder.prototype, 'requestDone');
  try {
    const heard: PlatformAuthEvent[] = [];
    plain.auth.events.on('access.refused', (e) => { heard.push(e); });
    const res = await refusedMcpPing(plain.baseUrl);
    expect(res.status).toBe(401);
    const revoked = await realFetch(`${plain.baseUrl}/api/oauth/revoke`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'not-a-token', client_id: MEMBER.clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(heard).toHaveLength(1);
    expect(recorded).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(timed).not.toHaveBeenCalled();
  } finally {
    recorded.mockRestore();
    errors.mockRestore();
    timed.mockRestore();
    await plain.stop();
  }
});

it('shows a member client\'s trace to its own site only', async () => {
  const { client } = await app.auth.memberClients.create('demo-school', {
    name: 'Trace test', redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid', 'account:read'],
  });
  const url = new URL('/oauth/authorize', app.baseUrl);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: client.clientId, redirect_uri: 'http://127.0.0.1:5000/cb-typo', scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  }).toString();
  expect((await realFetch(url)).status).toBe(400);
  const trace = await app.auth.memberClients.trace('demo-school', client.clientId);
  expect(trace[0]).toMatchObject({
    event: 'authorization.failed', reason: 'invalid_redirect_uri',
    summary: 'redirect_uri http://127.0.0.1:5000/cb-typo is not registered for this app; registered: http://127.0.0.1/cb.',
  });
  await expect(app.auth.memberClients.trace('other-school', client.clientId)).rejects.toBeInstanceOf(MemberClientError);
  await expect(app.auth.memberClients.trace('other-school', client.clientId)).rejects.toMatchObject({ code: 'not_found' });
});
