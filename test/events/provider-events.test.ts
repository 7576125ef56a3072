/**
 * The events derived from oidc-provider's own, driven over HTTP: the refresh grace, code
 * replay, refresh-token reuse by another client, token failures with oidc-provider's reason,
 * Variant B registration, server errors and storage outages.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterFactory } from '../../adapters/types.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let brokenAccounts = false;
let storageDown = false;
const events: PlatformAuthEvent[] = [];

/** The memory adapter, with a switch that makes every call fail as an unreachable store would. */
function switchableAdapter(): AdapterFactory & { close(): Promise<void> } {
  const inner = createMemoryAdapter();
  const factory = (name: string) => {
    const adapter = inner(name);
    return new Proxy(adapter, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (storageDown) return Promise.reject(new StorageUnavailableError('test: ECONNREFUSED'));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  };
  return Object.assign(factory, { close: () => inner.close() });
}

const adapter = switchableAdapter();

beforeAll(async () => {
  const accounts = createAccountStore();
  app = await startApp({
    auth: {
      adapter,
      registration: { variant: 'open' },
      accounts: {
        authenticate: (email, password, context) => accounts.authenticate(email, password, context),
        async findById(id) {
          if (brokenAccounts) throw new TypeError('the account directory is misconfigured');
          return accounts.findById(id);
        },
      },
    },
  });
  app.auth.events.on('*', (event) => { events.push(event); });
});
afterAll(async () => {
  await app.stop();
  await adapter.close();
});

/** The events of what `run` does. */
async function during(run: () => Promise<unknown>): Promise<PlatformAuthEvent[]> {
  const from = events.length;
  await run();
  await new Promise((resolve) => setTimeout(resolve, 30));
  return events.slice(from);
}

async function tokens(): Promise<TokenSet> {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
  return (await exchangeCode(app.baseUrl, MEMBER, code, verifier)).json() as Promise<TokenSet>;
}

const refresh = (refreshToken: string, clientId: string = MEMBER.clientId) => postForm(`${app.baseUrl}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId,
});

const named = (list: PlatformAuthEvent[], name: PlatformAuthEvent['name']) => list.filter((e) => e.name === name);

it('tells a retry within the refresh grace from a rotation', async () => {
  const { refresh_token: first } = await tokens();
  const seen = await during(async () => {
    expect((await refresh(first)).status).toBe(200);
    // the same token again, before its successor was used: a retry
    expect((await refresh(first)).status).toBe(200);
  });
  expect(seen.map((e) => e.name)).toEqual(['refresh.rotated', 'refresh.grace_used']);
  expect(seen[1]).toMatchObject({ clientId: MEMBER.clientId, accountId: 'acc-student', site: 'demo-school' });
});

it('reports a code redeemed twice', async () => {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid' }, STUDENT);
  const seen = await during(async () => {
    expect((await exchangeCode(app.baseUrl, MEMBER, code, verifier)).status).toBe(200);
    expect((await exchangeCode(app.baseUrl, MEMBER, code, verifier)).status).toBe(400);
  });
  expect(seen.map((e) => e.name)).toEqual(['code.redeemed', 'code.replayed']);
  expect(seen[1]).toMatchObject({ clientId: MEMBER.clientId });
});

it('reports a rotated refresh token presented by another client as reuse', async () => {
  const { refresh_token: first } = await tokens();
  expect((await refresh(first)).status).toBe(200);
  const seen = await during(async () => {
    expect((await refresh(first, 'acme-lms')).status).toBe(400);
  });
  expect(named(seen, 'refresh.reuse_detected')).toEqual([expect.objectContaining({ reason: 'other_client', clientId: MEMBER.clientId, accountId: 'acc-student' })]);
});

it('gives a failed token request oidc-provider\'s reason when it is one of its fixed texts', async () => {
  const { code } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid' }, STUDENT);
  const seen = await during(() => exchangeCode(app.baseUrl, MEMBER, code, 'x'.repeat(43)));
  expect(named(seen, 'token.failed')).toEqual([expect.objectContaining({
    clientId: MEMBER.clientId, grantType: 'authorization_code', error: 'invalid_grant', detail: 'code_verifier does not match code_challenge',
  })]);
});

it('reports registrations accepted and refused (Variant B)', async () => {
  const register = (body: unknown) => fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const seen = await during(async () => {
    const ok = await register({ client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none', scope: 'openid courses:read' });
    expect(ok.status).toBe(201);
    expect((await register({ client_name: 'Agent', redirect_uris: ['ftp://nope'] })).status).toBe(400);
  });
  const accepted = named(seen, 'registration.accepted');
  expect(accepted).toEqual([expect.objectContaining({ clientId: expect.any(String) })]);
  expect(named(seen, 'registration.refused')).toEqual([expect.objectContaining({ error: expect.stringMatching(/^invalid_/), description: expect.any(String) })]);
});

it('reports a provider server_error by route and error class, without its message', async () => {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid' }, STUDENT);
  brokenAccounts = true;
  const seen = await during(() => exchangeCode(app.baseUrl, MEMBER, code, verifier)).finally(() => { brokenAccounts = false; });
  expect(named(seen, 'server.error')).toEqual([expect.objectContaining({ route: 'token', error: 'TypeError', clientId: MEMBER.clientId })]);
  expect(JSON.stringify(seen)).not.toContain('misconfigured');
});

it('reports each request answered 503 while storage is down', async () => {
  const { access_token: token } = await tokens();
  storageDown = true;
  const ids: (string | null)[] = [];
  const seen = await during(async () => {
    const res = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    const refused = await refresh('whatever');
    expect(refused.status).toBe(503);
    ids.push(res.headers.get('x-request-id'), refused.headers.get('x-request-id'));
  }).finally(() => { storageDown = false; });
  expect(named(seen, 'storage.unavailable').map((e) => e.requestId)).toEqual(ids);
  // with the adapter's reason, also where oidc-provider answered the failure itself (the refresh)
  expect(named(seen, 'storage.unavailable').map((e) => (e as { reason?: string }).reason)).toEqual(['test: ECONNREFUSED', 'test: ECONNREFUSED']);
  // and the log says why (this file's first outage)
  expect(app.warnings.filter((w) => w.includes('storage is unavailable'))).toEqual([expect.stringContaining('storage is unavailable (test: ECONNREFUSED)')]);
  // an outage is no refusal of the token, and no failure of the client
  expect(named(seen, 'access.refused')).toEqual([]);
  expect(named(seen, 'token.failed')).toEqual([]);
});
