/**
 * One error answer, counted once in `platform_auth.errors` and described fully by its event:
 * a refresh token reused by another client (the provider refuses it, then the library finds
 * the reuse; it counted twice and its event had no site), reuse after the grace, and a storage
 * outage, which counts as `platform_auth.storage.unavailable` alone, at every endpoint alike
 * (the revocation and introspection endpoints counted it as an error too).
 */
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { METRICS } from '../../lib/metrics/instruments.ts';
import { eventually } from '../support/eventually.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { switchableAdapter } from '../support/switchable-adapter.ts';
import type { StorageSwitch } from '../support/switchable-adapter.ts';
import { testMetrics } from './support.ts';
import type { TestMetrics } from './support.ts';

const control: StorageSwitch = { failure: 'none' };
const adapter = switchableAdapter(control);
let app: RunningApp;
let metrics: TestMetrics;
const events: PlatformAuthEvent[] = [];

beforeAll(async () => {
  metrics = testMetrics();
  app = await startApp({ auth: { adapter, metrics: { meterProvider: metrics.meterProvider } } });
  app.auth.events.on('*', (e) => { events.push(e); });
});
afterAll(async () => { await app.stop(); await adapter.close(); await metrics.shutdown(); });

const refresh = (rt: string, clientId: string) => postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: rt, client_id: clientId });

async function foreignReuse() {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
  const t = await (await exchangeCode(app.baseUrl, MEMBER, code, verifier)).json() as TokenSet;
  expect((await refresh(t.refresh_token, MEMBER.clientId)).status).toBe(200);
  const from = events.length;
  const res = await refresh(t.refresh_token, 'acme-lms');
  expect(res.status).toBe(400);
  const seen = await eventually(async () => events.slice(from), (l) => l.some((e) => e.name === 'refresh.reuse_detected'));
  return { res, seen };
}

it('other_client reuse carries the member client\'s site, as after_grace reuse does', async () => {
  const { res, seen } = await foreignReuse();
  const reuse = seen.find((e) => e.name === 'refresh.reuse_detected')!;
  expect(reuse).toMatchObject({ reason: 'other_client', clientId: MEMBER.clientId, accountId: 'acc-student', requestId: res.headers.get('x-request-id') });
  expect(reuse.site).toBe('demo-school');
});

it('other_client reuse: the one 400 invalid_grant answer counts once in platform_auth.errors', async () => {
  const before = await metrics.value(METRICS.errors.name, { endpoint: 'token', error: 'invalid_grant' });
  await foreignReuse();
  const after = await metrics.value(METRICS.errors.name, { endpoint: 'token', error: 'invalid_grant' });
  expect(after - before).toBe(1);
});

it('after_grace reuse: the one 400 invalid_grant answer counts once in platform_auth.errors', async () => {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
  const t = await (await exchangeCode(app.baseUrl, MEMBER, code, verifier)).json() as TokenSet;
  const r1 = await (await refresh(t.refresh_token, MEMBER.clientId)).json() as TokenSet;
  expect((await refresh(r1.refresh_token, MEMBER.clientId)).status).toBe(200);
  const before = await metrics.value(METRICS.errors.name, { endpoint: 'token', error: 'invalid_grant' });
  const from = events.length;
  expect((await refresh(t.refresh_token, MEMBER.clientId)).status).toBe(400);
  const after = await metrics.value(METRICS.errors.name, { endpoint: 'token', error: 'invalid_grant' });
  expect(events.slice(from).map((e) => e.name)).toEqual(['refresh.reuse_detected']);
  expect(after - before).toBe(1);
});

it('reuse refused for another reason first (invalid_scope): the grant is revoked, its event says so, and the one answer counts once', async () => {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
  const t = await (await exchangeCode(app.baseUrl, MEMBER, code, verifier)).json() as TokenSet;
  const r1 = await (await refresh(t.refresh_token, MEMBER.clientId)).json() as TokenSet;
  expect((await refresh(r1.refresh_token, MEMBER.clientId)).status).toBe(200);
  const count = (error: string) => metrics.value(METRICS.errors.name, { endpoint: 'token', error });
  const before = { scope: await count('invalid_scope'), grant: await count('invalid_grant') };
  const from = events.length;
  const res = await postForm(`${app.baseUrl}/api/oauth/token`, {
    grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: MEMBER.clientId, scope: 'openid account:read courses:write',
  });
  expect(res.status).toBe(400);
  const seen = await eventually(async () => events.slice(from), (l) => l.some((e) => e.name === 'refresh.reuse_detected'));
  expect(seen.map((e) => e.name)).toEqual(['token.failed', 'refresh.reuse_detected']);
  expect(seen[1]).toMatchObject({ reason: 'other_refusal', clientId: MEMBER.clientId, accountId: 'acc-student', site: 'demo-school', requestId: res.headers.get('x-request-id') });
  expect({ scope: await count('invalid_scope') - before.scope, grant: await count('invalid_grant') - before.grant }).toEqual({ scope: 1, grant: 0 });
});

const tu = (endpoint: string) => metrics.value(METRICS.errors.name, { endpoint, error: 'temporarily_unavailable' });

it('a 503 for a storage outage counts as storage.unavailable, not as an error answer, at the token, revocation and introspection endpoints alike', async () => {
  const before = { token: await tu('token'), revocation: await tu('revocation'), introspection: await tu('introspection') };
  const unavailableBefore = await metrics.value(METRICS.storageUnavailable.name);
  control.failure = 'unavailable';
  let statuses: number[];
  try {
    const token = await postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43), client_id: MEMBER.clientId });
    const revoke = await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: 'x'.repeat(43), client_id: MEMBER.clientId });
    const introspect = await postForm(`${app.baseUrl}/api/oauth/introspect`, { token: 'x'.repeat(43), client_id: MEMBER.clientId });
    statuses = [token.status, revoke.status, introspect.status];
  } finally {
    control.failure = 'none';
  }
  expect(statuses).toEqual([503, 503, 503]);
  expect(events.filter((e) => e.name === 'storage.unavailable')).toHaveLength(3);
  const delta = { token: await tu('token') - before.token, revocation: await tu('revocation') - before.revocation, introspection: await tu('introspection') - before.introspection };
  expect(delta).toEqual({ token: 0, revocation: 0, introspection: 0 });
  expect(await metrics.value(METRICS.storageUnavailable.name) - unavailableBefore).toBe(3);
});
