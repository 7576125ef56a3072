/**
 * Unused registered clients expire, over real HTTP on the demo host, with the memory adapter
 * and with Redis: with a short `unusedClientExpiry`, a client that registered and was never
 * used is gone (its authorization requests refused, its record no longer in storage) while
 * one that completed a code flow stays and keeps refreshing; member and static clients are
 * never touched. With expiry off, a client registered while it was on is kept.
 */
import { Redis } from 'ioredis';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import type { RegistrationOptions } from '../../lib/index.ts';
import { ADMIN, MEMBER, buildAuthorizeUrl, obtainTokens, postForm } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';

const UNUSED_SECONDS = 4;
const GRANT_SECONDS = 14 * 86_400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function registerClient(baseUrl: string, name: string): Promise<FlowClient> {
  const res = await fetch(`${baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  const { client_id: clientId } = await res.json() as { client_id: string };
  return { clientId, redirectUri: 'http://127.0.0.1:45123/callback' };
}

/** The status of an authorization request: 400 when the client is unknown, a redirect to the sign-in page otherwise. */
async function authorizeStatus(baseUrl: string, client: FlowClient): Promise<number> {
  const res = await fetch(buildAuthorizeUrl(baseUrl, client, { scope: 'openid', challenge: pkcePair().challenge }), { redirect: 'manual' });
  return res.status;
}

interface Storage {
  readonly adapter: ClosableAdapterFactory;
  /** the TTL, in seconds, of every `Client` key naming `clientId` (Redis); undefined when not inspectable */
  keyTtls?(clientId: string): Promise<number[]>;
  close(): Promise<void>;
}

let redis: RedisHandle | undefined;
afterAll(async () => { await redis?.stop(); });

describe.each([
  ['memory', async (): Promise<Storage> => {
    const adapter = createMemoryAdapter({ sweepIntervalMs: 500 });
    return { adapter, close: () => adapter.close() };
  }],
  ['Redis', async (): Promise<Storage> => {
    redis ??= await startRedis();
    const keyPrefix = `platform-auth-test:expiry:${Date.now()}:`;
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix });
    const raw = new Redis(redis.url);
    return {
      adapter,
      // whatever the adapter's key layout beyond the model name: every Client key naming the client
      // (other per-client records, such as its flow trace, keep their own TTLs)
      async keyTtls(clientId: string) {
        const keys = await raw.keys(`${keyPrefix}Client:*${clientId}*`);
        return Promise.all(keys.map((key) => raw.ttl(key)));
      },
      async close() {
        raw.disconnect();
        await adapter.close();
      },
    };
  }],
])('with the %s adapter', (_name, open) => {
  it('an unused registered client is gone after unusedClientExpiry; a used one, member and static clients stay', async () => {
    const storage = await open();
    const app = await startApp({ auth: { adapter: storage.adapter, registration: { variant: 'open', unusedClientExpiry: UNUSED_SECONDS } } });
    try {
      const used = await registerClient(app.baseUrl, 'Used Agent');
      const tokens = await obtainTokens(app.baseUrl, used, { scope: 'openid courses:read' }, ADMIN);
      const unused = await registerClient(app.baseUrl, 'Unused Agent');
      const registeredAt = Date.now();
      const { client: member } = await app.auth.memberClients.create('demo-school', {
        name: 'Study buddy', redirectUris: ['https://buddy.example/cb'], type: 'public', scopes: ['openid', 'account:read'],
      });
      expect(await authorizeStatus(app.baseUrl, unused)).toBe(303);
      if (storage.keyTtls) {
        const ttls = await storage.keyTtls(unused.clientId);
        expect(ttls.length).toBeGreaterThan(0);
        for (const ttl of ttls) expect(ttl).toBeLessThanOrEqual(UNUSED_SECONDS);
      }

      await sleep(registeredAt + UNUSED_SECONDS * 1000 + 700 - Date.now());

      // the unused client: unknown to the provider, and its record gone from storage
      expect(await authorizeStatus(app.baseUrl, unused)).toBe(400);
      expect(await storage.adapter('Client').find(unused.clientId)).toBeUndefined();
      if (storage.keyTtls) expect(await storage.keyTtls(unused.clientId)).toEqual([]);

      // the used one: its grant keeps it for at least the grant's lifetime, and it still refreshes
      expect(await authorizeStatus(app.baseUrl, used)).toBe(303);
      const refreshed = await postForm(`${app.baseUrl}/api/oauth/token`, {
        grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: used.clientId,
      });
      expect(refreshed.status).toBe(200);
      if (storage.keyTtls) {
        const ttls = await storage.keyTtls(used.clientId);
        expect(Math.max(...ttls)).toBeGreaterThan(GRANT_SECONDS - 60);
      }

      // clients that did not register themselves never expire this way
      expect((await app.auth.memberClients.get('demo-school', member.clientId)).name).toBe('Study buddy');
      if (storage.keyTtls) for (const ttl of await storage.keyTtls(member.clientId)) expect(ttl).toBe(-1);
      expect(await authorizeStatus(app.baseUrl, MEMBER)).toBe(303);
    } finally {
      await app.stop();
      await storage.close();
    }
  });

  it.each<[string, RegistrationOptions]>([
    ['unusedClientExpiry: false', { variant: 'open', unusedClientExpiry: false }],
    ['the restricted variant', { variant: 'restricted', vendors: [{ clientId: 'acme-lms' }] }],
  ])('a client registered while expiry was on is kept once the deployment runs with %s', async (_label, registration) => {
    const storage = await open();
    const before = await startApp({ auth: { adapter: storage.adapter, registration: { variant: 'open', unusedClientExpiry: UNUSED_SECONDS } } });
    let client: FlowClient;
    try {
      client = await registerClient(before.baseUrl, 'Kept Agent');
    } finally {
      await before.stop();
    }
    const registeredAt = Date.now();
    const after = await startApp({ auth: { adapter: storage.adapter, registration } });
    try {
      const tokens = await obtainTokens(after.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
      await sleep(registeredAt + UNUSED_SECONDS * 1000 + 700 - Date.now());
      expect(await storage.adapter('Client').find(client.clientId)).toBeDefined();
      const refreshed = await postForm(`${after.baseUrl}/api/oauth/token`, {
        grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId,
      });
      expect(refreshed.status).toBe(200);
      if (storage.keyTtls) for (const ttl of await storage.keyTtls(client.clientId)) expect(ttl).toBe(-1);
    } finally {
      await after.stop();
      await storage.close();
    }
  });
});
