/**
 * migrateRedisKeys (adapters/redis-migrate.ts): the records 0.1.0 kept under a credential's
 * raw id are moved to its SHA-256 key with `"jti":true`, keeping their TTL, their payload
 * byte for byte (a consume mark included) and their place in the grant's index, on a single
 * Redis and on a real Cluster; a refresh token issued before the upgrade refreshes after
 * the move (and not before it: this version never looks under a raw key).
 */
import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';
import type { Cluster } from 'ioredis';

import { createRedisAdapter, migrateRedisKeys } from '../../adapters/redis.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';
import { MEMBER, STUDENT, obtainTokens, postForm } from '../support/flows.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';

const freshPrefix = () => `migrate-test:${randomUUID()}:`;

type Client = Redis | Cluster;

/** Writes a record as 0.1.0 did: under its raw id, `jti` the id, in its grant's index. */
async function writeAsBefore(client: Client, prefix: string, model: string, id: string, payload: Record<string, unknown>, ttl: number): Promise<string> {
  const key = `${prefix}${model}:{${id}}`;
  await client.set(key, JSON.stringify(payload), 'EX', ttl);
  if (typeof payload.grantId === 'string') {
    await client.sadd(`${prefix}index:grant:{${payload.grantId}}`, key);
    await client.expire(`${prefix}index:grant:{${payload.grantId}}`, ttl);
  }
  return key;
}

/** Every key under `prefix` (on each master of a Cluster). */
async function keysOf(client: Client, prefix: string): Promise<string[]> {
  const nodes = client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
  return (await Promise.all(nodes.map((node) => node.keys(`${prefix}*`)))).flat();
}

function describeMigration(name: string, connect: () => Client) {
  describe(name, () => {
    test('moves raw-keyed credentials under their hash, with TTL, payload and grant index; a second run moves nothing', async () => {
      const client = connect();
      const prefix = freshPrefix();
      const grantId = randomUUID();
      const [refresh, access, code, session] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const refreshPayload = { jti: refresh, kind: 'RefreshToken', grantId, accountId: 'acc', resource: [], n: 1234567890123456, iat: 1 };
      const refreshKey = await writeAsBefore(client, prefix, 'RefreshToken', refresh, refreshPayload, 600);
      await writeAsBefore(client, prefix, 'AccessToken', access, { jti: access, kind: 'AccessToken', grantId }, 300);
      // a code 0.1.0 consumed: its mark, appended by the consume script, stays
      const codeKey = await writeAsBefore(client, prefix, 'AuthorizationCode', code, { jti: code, kind: 'AuthorizationCode', grantId }, 60);
      await client.set(codeKey, `{"jti":${JSON.stringify(code)},"kind":"AuthorizationCode","grantId":"${grantId}","consumed":1700000000}`, 'KEEPTTL');
      await client.set(`${prefix}Session:{${session}}`, JSON.stringify({ jti: session, uid: 'u' }), 'EX', 60);
      const factory = createRedisAdapter({ client, keyPrefix: prefix });
      try {
        // before the move, this version does not find them
        expect(await factory('RefreshToken').find(refresh)).toBeUndefined();

        expect(await migrateRedisKeys({ client, keyPrefix: prefix })).toEqual({ RefreshToken: 1, AccessToken: 1, AuthorizationCode: 1 });

        expect(await factory('RefreshToken').find(refresh)).toEqual(refreshPayload);
        expect(await factory('AccessToken').find(access)).toEqual({ jti: access, kind: 'AccessToken', grantId });
        expect(await factory('AuthorizationCode').find(code)).toEqual({ jti: code, kind: 'AuthorizationCode', grantId, consumed: 1700000000 });
        expect(await factory('Session').find(session)).toEqual({ jti: session, uid: 'u' });
        const moved = `${prefix}RefreshToken:{${keyIdOf('RefreshToken', refresh)}}`;
        expect(await client.get(moved)).toBe(JSON.stringify({ ...refreshPayload, jti: true }));
        expect(await client.pttl(moved)).toBeGreaterThan(590_000);
        const keys = await keysOf(client, prefix);
        for (const id of [refresh, access, code]) expect(keys.filter((key) => key.includes(id))).toEqual([]);
        const index = await client.smembers(`${prefix}index:grant:{${grantId}}`);
        expect(index.sort()).toEqual([moved, `${prefix}AccessToken:{${keyIdOf('AccessToken', access)}}`, `${prefix}AuthorizationCode:{${keyIdOf('AuthorizationCode', code)}}`].sort());
        expect(index).not.toContain(refreshKey);

        expect(await migrateRedisKeys({ client, keyPrefix: prefix })).toEqual({});
        // revoking the grant still deletes what was moved
        await factory('RefreshToken').revokeByGrantId(grantId);
        expect(await factory('RefreshToken').find(refresh)).toBeUndefined();
        expect(await factory('AccessToken').find(access)).toBeUndefined();
      } finally {
        await factory.close();
      }
    });
  });
}

let redis: RedisHandle;
let single: Redis;
let cluster: ClusterHandle;
let clusterClient: Cluster;

beforeAll(async () => {
  redis = await startRedis();
  single = new Redis(redis.url);
  cluster = await startRedisCluster({ masters: 3 });
  clusterClient = await connectCluster(cluster);
}, 90_000);

afterAll(async () => {
  single?.disconnect();
  await clusterClient?.quit().catch(() => clusterClient.disconnect());
  await cluster?.stop();
  await redis?.stop();
});

describeMigration('migrateRedisKeys on a single Redis', () => single);
describeMigration('migrateRedisKeys on a Cluster', () => clusterClient);

describe('a refresh token issued before the upgrade', () => {
  test('is refused before the move (this version never reads a raw key), and refreshes after it', async () => {
    const prefix = freshPrefix();
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: prefix });
    const app = await startApp({ auth: { adapter } });
    try {
      const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
      // put it back where 0.1.0 kept it
      const hashed = `${prefix}RefreshToken:{${keyIdOf('RefreshToken', tokens.refresh_token!)}}`;
      const stored = (await single.get(hashed))!;
      const payload = JSON.parse(stored) as { grantId: string };
      const ttl = await single.ttl(hashed);
      await single.del(hashed);
      await single.srem(`${prefix}index:grant:{${payload.grantId}}`, hashed);
      await writeAsBefore(single, prefix, 'RefreshToken', tokens.refresh_token!, { ...payload, jti: tokens.refresh_token }, ttl);

      const refresh = () => postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: MEMBER.clientId });
      const before = await refresh();
      expect(before.status).toBe(400);
      expect(await before.json()).toMatchObject({ error: 'invalid_grant' });

      expect(await migrateRedisKeys({ url: redis.url, keyPrefix: prefix })).toMatchObject({ RefreshToken: 1 });
      const after = await refresh();
      expect(after.status).toBe(200);
      expect(await after.json()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    } finally {
      await app.stop();
      await adapter.close();
    }
  });
});
