/**
 * The per-client trace across instances sharing one real Redis: each failure of the issue is
 * driven with a real client on one instance, and the client's trace, read on another, shows
 * the right entry in plain words:
 * a redirect mismatch, a metadata document on a host that is not allowed, a token for
 * another origin at /mcp, a missing scope, a revoked token, refresh-token reuse.
 *
 * A and B are two instances of one deployment (same issuer, same secrets); C is another
 * deployment (its own origin) on the same Redis and key prefix, whose tokens are "for
 * another origin" at A and B and theirs at C. C has open registration, so metadata documents
 * are fetched from any host there, unless its address is refused.
 */
import * as oidc from 'openid-client';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { createSecrets } from '../../lib/keys/secrets.ts';
import type { PlatformAuthOptions, TraceEntry } from '../../lib/index.ts';
import { Browser, signIn } from '../support/browser.ts';
import { STUDENT } from '../support/flows.ts';
import { eventually } from '../support/eventually.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { connect } from '../mcp/support.ts';

const SITE = 'demo-school';
const silent = { info() {}, warn() {}, error() {} };

let redis: RedisHandle;
const adapters: ClosableAdapterFactory[] = [];
let a: RunningApp;
let b: RunningApp;
let c: RunningApp;
/** a member client the site's operator created (stored in Redis: every instance knows it) */
let clientId: string;
const REDIRECT = 'http://127.0.0.1:8765/cb';

beforeAll(async () => {
  redis = await startRedis();
  const { jwks, cookieKeys } = await createSecrets();
  const keyPrefix = `platform-auth-test:diagnostics:${Date.now()}:`;
  const start = (extra: Partial<PlatformAuthOptions> & { baseUrl?: string } = {}) => {
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix, logger: silent });
    adapters.push(adapter);
    const { baseUrl, ...auth } = extra;
    return startApp({
      ...(baseUrl ? { baseUrl } : {}),
      operatorSecret: 'operator-secret-shared-by-all-0123456789',
      auth: { adapter, jwks: jwks as never, cookieKeys, clientIdMetadataDocuments: { allowedHosts: ['tools.example'] }, ...auth },
    });
  };
  a = await start();
  // C: open registration, so metadata documents are fetched from any host that is not refused
  [b, c] = await Promise.all([start({ baseUrl: a.baseUrl }), start({ registration: { variant: 'open' }, clientIdMetadataDocuments: {} })]);
  ({ client: { clientId } } = await a.auth.memberClients.create(SITE, {
    name: 'Study buddy', redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid', 'profile', 'account:read'],
  }));
});

afterAll(async () => {
  await Promise.all([a, b, c].map((app) => app?.stop()));
  await Promise.all(adapters.map((adapter) => adapter.close()));
  await redis?.stop();
});

/** openid-client, configured from `app`'s discovery, as the member client. */
function configFor(app: RunningApp) {
  return oidc.discovery(new URL(app.baseUrl), clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

/** A sign-in at `app` with openid-client and the real pages. */
async function signInAt(app: RunningApp, scope: string) {
  const config = await configFor(app);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT, scope, resource: app.baseUrl,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
  });
  const redirect = await signIn(new Browser(app.baseUrl), url.href, STUDENT);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(redirect), { pkceCodeVerifier: verifier, expectedState: state }, { resource: app.baseUrl });
  return { config, tokens };
}

/** Waits until `read()` holds an entry of `event` after `since`, and returns it. */
async function entryOf(read: () => Promise<TraceEntry[]>, event: string, since: string, match: (entry: TraceEntry) => boolean = () => true): Promise<TraceEntry> {
  const pick = (entries: TraceEntry[]) => entries.find((entry) => entry.event === event && entry.at >= since && match(entry));
  const entries = await eventually(read, (read) => pick(read) !== undefined);
  const found = pick(entries);
  if (!found) throw new Error(`no ${event} entry since ${since} in ${JSON.stringify(entries, null, 2)}`);
  return found;
}

const now = () => new Date(Date.now() - 5).toISOString();
/** the operator's view of the trace, on the instance `app` */
const traceAt = (app: RunningApp) => () => app.auth.memberClients.trace(SITE, clientId);

it('a redirect_uri that is not registered (at A, read at B)', async () => {
  const since = now();
  const config = await configFor(a);
  const url = oidc.buildAuthorizationUrl(config, {
    // loopback redirect URIs may change port (RFC 8252 §7.3), never path
    redirect_uri: 'http://127.0.0.1:5000/callback', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256',
  });
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(400);
  const entry = await entryOf(traceAt(b), 'authorization.failed', since);
  expect(entry).toEqual({
    at: expect.any(String),
    event: 'authorization.failed',
    outcome: 'refused',
    reason: 'invalid_redirect_uri',
    summary: 'redirect_uri http://127.0.0.1:5000/callback is not registered for this app; registered: http://127.0.0.1/cb.',
    action: expect.stringContaining('register this one for the app'),
    requestId: res.headers.get('x-request-id'),
    site: SITE,
  });
});

it('a metadata document on a host that is not allowed (at B, read by the staff at A)', async () => {
  const since = now();
  const documentClient = 'https://evil.example/clients/agent.json';
  const url = new URL('/oauth/authorize', b.baseUrl);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: documentClient, redirect_uri: 'http://127.0.0.1/callback', scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(400);
  const entry = await entryOf(() => a.auth.clientTrace(documentClient), 'metadata_document.failed', since);
  expect(entry).toMatchObject({
    outcome: 'refused',
    reason: 'host_not_allowed',
    summary: 'The metadata document was not fetched: documents from evil.example are not accepted here.',
    action: expect.stringContaining('allow this host'),
  });
});

it('a metadata document on a refused address (at C, open registration, read by the staff at B)', async () => {
  const since = now();
  const documentClient = 'https://localhost/clients/agent.json';
  const url = new URL('/oauth/authorize', c.baseUrl);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: documentClient, redirect_uri: 'http://127.0.0.1/callback', scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  }).toString();
  expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
  const entry = await entryOf(() => b.auth.clientTrace(documentClient), 'metadata_document.failed', since);
  expect(entry).toMatchObject({
    reason: 'refused_address',
    summary: 'The host of the metadata document, localhost, resolves to a private or special-use address, which this server never fetches from.',
  });
});

describe('with a member token', () => {
  let signedIn: Awaited<ReturnType<typeof signInAt>>;
  beforeAll(async () => { signedIn = await signInAt(a, 'openid profile account:read'); });

  it('a token for another origin at /mcp (issued by A, presented to C, read at B)', async () => {
    const since = now();
    const mcp = await connect(c, { token: signedIn.tokens.access_token }).catch((error: unknown) => error);
    expect(mcp).toBeInstanceOf(Error);
    const entry = await entryOf(traceAt(b), 'access.refused', since);
    expect(entry).toMatchObject({
      outcome: 'refused',
      reason: 'other_audience',
      summary: 'A request to /mcp used an access token issued for another resource (another origin), not for this server.',
      action: expect.stringContaining('resource set to its origin'),
    });
  });

  it('refresh-token reuse (at A, read at B)', async () => {
    const since = now();
    const first = await oidc.refreshTokenGrant(signedIn.config, signedIn.tokens.refresh_token!);
    await oidc.refreshTokenGrant(signedIn.config, first.refresh_token!);
    await expect(oidc.refreshTokenGrant(signedIn.config, signedIn.tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const entry = await entryOf(traceAt(b), 'refresh.reuse_detected', since);
    expect(entry).toMatchObject({
      outcome: 'refused',
      reason: 'after_grace',
      summary: 'A refresh token that had already been replaced was used again, so every token of that sign-in was revoked (refresh-token reuse).',
    });
    expect((await traceAt(b)()).filter((e) => e.at >= since && e.event === 'refresh.rotated')).toHaveLength(2);
  });
});

it('a token without the scope a tool needs (at A\'s /mcp, with the MCP client, read at B)', async () => {
  const since = now();
  const { tokens } = await signInAt(a, 'openid profile');
  const mcp = await connect(a, { token: tokens.access_token });
  try {
    await expect(mcp.client.callTool({ name: 'list_my_courses', arguments: {} })).rejects.toThrow();
    expect(mcp.seen.at(-1)).toMatchObject({ status: 403 });
  } finally {
    await mcp.close();
  }
  const entry = await entryOf(traceAt(b), 'access.refused', since, (e) => e.reason === 'missing_scope');
  expect(entry).toMatchObject({
    outcome: 'refused',
    summary: 'A request to /mcp needs the scope account:read, which the access token does not have.',
    action: 'Sign in again asking for account:read; the app must have been given it.',
  });
});

it('a revoked token (revoked at A, presented to B, read at A)', async () => {
  const { config, tokens } = await signInAt(a, 'openid account:read');
  const since = now();
  await oidc.tokenRevocation(config, tokens.access_token);
  const res = await fetch(`${b.baseUrl.replace(/:\d+$/, `:${b.port}`)}/account/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` }, body: '{"query":"{viewer{id}}"}',
  });
  expect(res.status).toBe(401);
  expect((await traceAt(a)()).find((e) => e.event === 'token.revoked' && e.at >= since)).toMatchObject({
    summary: 'An access token of this app was revoked.',
  });
  const entry = await entryOf(traceAt(a), 'access.refused', since, (e) => e.reason === 'revoked');
  expect(entry).toMatchObject({
    outcome: 'refused',
    summary: 'A request to /account/graphql used an access token that was revoked.',
    requestId: res.headers.get('x-request-id'),
  });
});

it('shares one trace between the instances once their writes are done', async () => {
  // each instance writes a client's entries at most every TRACE_WRITE_INTERVAL_MS: read until
  // the three agree (or 5 s), rather than betting on how long a loaded machine takes
  const read = () => Promise.all([a, b, c].map((app) => app.auth.clientTrace(clientId)));
  const same = ([x, y, z]: Awaited<ReturnType<typeof read>>) => (x?.length ?? 0) > 10
    && JSON.stringify(x) === JSON.stringify(y) && JSON.stringify(x) === JSON.stringify(z);
  const [atA, atB, atC] = await eventually(read, same);
  expect(atA!.length).toBeGreaterThan(10);
  expect(atB).toEqual(atA);
  expect(atC).toEqual(atA);
  expect(atA!.map((e) => e.at)).toEqual([...atA!.map((e) => e.at)].sort().reverse());
});

it('lists the traced clients for a staff view, on any instance', async () => {
  // the list of traced clients is written at most every TRACE_INDEX_INTERVAL_MS by each instance
  // (read with the client's newest entry, which the list must have caught up with)
  const read = async () => ({ listed: await c.auth.tracedClients(), newest: (await a.auth.clientTrace(clientId))[0] });
  const wanted = [clientId, 'https://evil.example/clients/agent.json'];
  const { listed, newest } = await eventually(read, ({ listed, newest }) => wanted.every((id) => listed.some((t) => t.clientId === id))
    && listed.find((t) => t.clientId === clientId)?.at === newest?.at);
  expect(listed.map((t) => t.clientId)).toEqual(expect.arrayContaining(wanted));
  expect(listed.find((t) => t.clientId === clientId)).toEqual({
    clientId, at: newest!.at, outcome: expect.any(String), summary: expect.any(String),
  });
});
