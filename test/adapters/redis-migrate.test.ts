/**
 * migrateRedisKeys (adapters/redis-migrate.ts): the records 0.1.0 kept under a credential's
 * raw id are moved to its SHA-256 key with `"jti":true`, keeping their TTL, their payload
 * byte for byte (a consume mark included) and their place in the grant's index, on a single
 * Redis and on a real Cluster; a refresh token issued before the upgrade refreshes after
 * the move (and not before it: this version never looks under a raw key), and one 0.1.0
 * rotated (consumed: 0.1.0 had no grace) is reuse after it, as it was there.
 */
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';

import { jest } from '@jest/globals';

import { Cluster, Redis } from 'ioredis';

import { createRedisAdapter, migrateRedisKeys } from '../../adapters/redis.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';
import { freePort } from '../support/free-port.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, obtainTokens, postForm } from '../support/flows.ts';
import { CLUSTER_CLIENT_OPTIONS, connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
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

describe('migrateRedisKeys checks its url as createRedisAdapter does, before connecting anywhere', () => {
  test('an unset variable is named; a scheme ioredis would misread is refused without quoting the url', async () => {
    await expect(migrateRedisKeys({ url: process.env.PLATFORM_AUTH_SURELY_UNSET })).rejects.toThrow(
      'migrateRedisKeys: `url` is undefined (an environment variable that is not set?): pass a redis:// or rediss:// URL, or `client`',
    );
    const refused = await migrateRedisKeys({ url: 'REDISS://user:s3cret-pass@127.0.0.1:1' }).then(() => undefined, (error: unknown) => error as Error);
    expect(refused?.message).toBe('migrateRedisKeys: `url` has the scheme "REDISS:", which ioredis would not read as meant; pass a redis:// or rediss:// URL (or a Unix socket path)');
  });
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
  test('one 0.1.0 rotated (consumed, no grace there) is reuse after the move, within the grace too: its grant ends', async () => {
    const prefix = freshPrefix();
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: prefix });
    const app = await startApp({ auth: { adapter } });
    try {
      const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
      const refresh = (token: string) => postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId });
      const successor = await (await refresh(tokens.refresh_token!)).json() as { access_token: string; refresh_token: string };
      // the rotated token as 0.1.0 left it: consumed by the storage (no grace, so no rotation
      // mark), under its raw id
      const hashed = `${prefix}RefreshToken:{${keyIdOf('RefreshToken', tokens.refresh_token!)}}`;
      const { rotatedAt: _rotatedAt, ...payload } = JSON.parse((await single.get(hashed))!) as { grantId: string; rotatedAt?: number };
      const ttl = await single.ttl(hashed);
      await single.del(hashed);
      await single.srem(`${prefix}index:grant:{${payload.grantId}}`, hashed);
      await writeAsBefore(single, prefix, 'RefreshToken', tokens.refresh_token!, { ...payload, jti: tokens.refresh_token, consumed: Math.floor(Date.now() / 1000) }, ttl);

      expect(await migrateRedisKeys({ url: redis.url, keyPrefix: prefix })).toMatchObject({ RefreshToken: 1 });
      // seconds later, well within the default grace: reuse, not a retry
      const replay = await refresh(tokens.refresh_token!);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
      // the whole grant ended: the successor's tokens too
      expect((await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${successor.access_token}` } })).status).toBe(401);
      expect((await refresh(successor.refresh_token)).status).toBe(400);
    } finally {
      await app.stop();
      await adapter.close();
    }
  });
});

describe('migrateRedisKeys against live traffic and faults', () => {
  /** Puts a record this version wrote back where 0.1.0 kept it: raw key, raw jti, raw key in the grant index. */
  async function backToRaw(prefix: string, model: string, id: string): Promise<string> {
    const hashed = `${prefix}${model}:{${keyIdOf(model, id)}}`;
    const stored = (await single.get(hashed))!;
    const pttl = await single.pttl(hashed);
    const { grantId } = JSON.parse(stored) as { grantId?: string };
    const raw = `${prefix}${model}:{${id}}`;
    await single.del(hashed);
    await single.set(raw, stored.replace('"jti":true', `"jti":${JSON.stringify(id)}`), 'PX', pttl);
    if (grantId) {
      await single.srem(`${prefix}index:grant:{${grantId}}`, hashed);
      await single.sadd(`${prefix}index:grant:{${grantId}}`, raw);
    }
    return raw;
  }

  /** A client whose chosen command fails (or does something first): a fault, or a concurrent request, at that point. */
  function withHook(client: Redis, name: string, hook: (args: unknown[]) => Promise<void>): Redis {
    return new Proxy(client, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === name && typeof value === 'function') {
          return async (...args: unknown[]) => {
            await hook(args);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  test('a run cut off after writing a hashed record, then run again once this version consumed it: the consume mark stays (the code is not redeemed twice)', async () => {
    const prefix = freshPrefix();
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: prefix });
    const app = await startApp({ auth: { adapter } });
    const client = new Redis(redis.url);
    try {
      const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
      // a code issued by 0.1.0 before the upgrade
      await backToRaw(prefix, 'AuthorizationCode', code);

      // the migration is cut (connection lost, process killed) after the SET of the hashed key, before the DEL of the raw one
      const cut = withHook(client, 'eval', async (args) => { if (String(args[0]).includes("then return redis.call('DEL'")) throw new Error('connection lost'); });
      await expect(migrateRedisKeys({ client: cut, keyPrefix: prefix })).rejects.toThrow('connection lost');

      // the new version serves the code from its hashed key meanwhile: redeemed, consumed
      const first = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
      expect(first.status).toBe(200);

      // the operator re-runs the migration, as the README says ("it moves only what is left")
      expect(await migrateRedisKeys({ client, keyPrefix: prefix })).toEqual({ AuthorizationCode: 1 });

      // the raw copy must not write over the consumed record: a second exchange is a replay
      const second = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
      expect(second.status).toBe(400);
    } finally {
      client.disconnect();
      await app.stop();
      await adapter.close();
    }
  });

  test('a stringNumbers client: the record is moved, counted, and its raw key leaves the grant index', async () => {
    const prefix = freshPrefix();
    const client = new Redis(redis.url, { stringNumbers: true });
    try {
      const token = `rt-${randomUUID()}`;
      const grantId = randomUUID();
      const raw = `${prefix}RefreshToken:{${token}}`;
      await single.set(raw, JSON.stringify({ jti: token, kind: 'RefreshToken', grantId }), 'EX', 600);
      await single.sadd(`${prefix}index:grant:{${grantId}}`, raw);
      await single.expire(`${prefix}index:grant:{${grantId}}`, 600);

      const report = await migrateRedisKeys({ client, keyPrefix: prefix });
      const index = await single.smembers(`${prefix}index:grant:{${grantId}}`);
      expect({ report, rawLeftInIndex: index.includes(raw) }).toEqual({ report: { RefreshToken: 1 }, rawLeftInIndex: false });
    } finally {
      client.disconnect();
    }
  });

  test('a record gone (expired, revoked) while it is read is not written back without a TTL', async () => {
    const prefix = freshPrefix();
    const client = new Redis(redis.url);
    try {
      const token = `at-${randomUUID()}`;
      const raw = `${prefix}AccessToken:{${token}}`;
      await single.set(raw, JSON.stringify({ jti: token, kind: 'AccessToken' }), 'EX', 60);
      // GET and PTTL go out together: the key goes in between (its TTL ran out; a revocation deleted it)
      const racing = withHook(client, 'eval', async (args) => { if (String(args[0]).includes('PTTL')) await single.del(raw); });
      await migrateRedisKeys({ client: racing, keyPrefix: prefix });
      const target = `${prefix}AccessToken:{${keyIdOf('AccessToken', token)}}`;
      // the record that was gone stays gone (it came back without a TTL when read in two commands)
      expect({ exists: await single.exists(target), pttl: await single.pttl(target) }).toEqual({ exists: 0, pttl: -2 });
    } finally {
      client.disconnect();
    }
  });

  test('a grant revoked while its 0.1.0 record is moved: neither the record nor its index comes back', async () => {
    const prefix = freshPrefix();
    const client = new Redis(redis.url);
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: prefix });
    try {
      const token = `rt-${randomUUID()}`;
      const grantId = randomUUID();
      const raw = `${prefix}RefreshToken:{${token}}`;
      const index = `${prefix}index:grant:{${grantId}}`;
      await single.set(raw, JSON.stringify({ jti: token, kind: 'RefreshToken', grantId }), 'EX', 600);
      await single.sadd(index, raw);
      await single.expire(index, 600);
      // the revocation (this version, e.g. a member disconnecting the app) lands between the SET and the SADD
      let once = true;
      const racing = withHook(client, 'eval', async (args) => {
        if (String(args[0]).includes('EXISTS') && once) { once = false; await adapter('RefreshToken').revokeByGrantId(grantId); }
      });
      await migrateRedisKeys({ client: racing, keyPrefix: prefix });
      const target = `${prefix}RefreshToken:{${keyIdOf('RefreshToken', token)}}`;
      expect({ record: await single.exists(target), indexTtl: await single.ttl(index) }).toEqual({ record: 0, indexTtl: -2 });
    } finally {
      client.disconnect();
      await adapter.close();
    }
  });

  test('grant indexes no longer name 0.1.0 records that had expired (raw tokens in a value)', async () => {
    const prefix = freshPrefix();
    const client = new Redis(redis.url);
    try {
      const token = `at-${randomUUID()}`;
      const grantId = randomUUID();
      const raw = `${prefix}AccessToken:{${token}}`;
      const index = `${prefix}index:grant:{${grantId}}`;
      // 0.1.0 indexed the access token; the token expired (the record is gone), the index lives on for the refresh token
      await single.sadd(index, raw);
      await single.expire(index, 600);
      await migrateRedisKeys({ client, keyPrefix: prefix });
      expect((await single.smembers(index)).filter((member) => member.includes(token))).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});

describe('migrateRedisKeys while a Cluster reshards', () => {
  test('walks again until nothing is left: records moved to a master walked already are moved too', async () => {
    const prefix = freshPrefix();
    const tokens = Array.from({ length: 60 }, () => `at-${randomUUID()}`);
    for (const token of tokens) await clusterClient.set(`${prefix}AccessToken:{${token}}`, JSON.stringify({ jti: token, kind: 'AccessToken' }), 'EX', 600);
    const masters = clusterClient.nodes('master');
    const first = masters[0]!.options.port!;
    const last = masters[masters.length - 1]!.options.port!;
    let resharded = false;
    // an operator's reshard runs while the migration walks the first master
    const watched = new Proxy(clusterClient, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'eval') {
          return async (...args: unknown[]) => {
            if (!resharded) {
              resharded = true;
              await cluster.reshard(last, first, 3000);
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const report = await migrateRedisKeys({ client: watched as Cluster, keyPrefix: prefix });
    const left = (await keysOf(clusterClient, prefix)).filter((key) => key.includes('{at-'));
    expect({ report, left }).toEqual({ report: { AccessToken: 60 }, left: [] });
  }, 120_000);
});

describe('migrateRedisKeys tells what it walked, and fails without secrets', () => {
  /** A logger that keeps its lines. */
  const lines = () => {
    const logged: string[] = [];
    return { logged, logger: { info: (message: string) => logged.push(message) } };
  };

  /** `count` AccessTokens written as 0.1.0 did, on the Cluster (spread over its masters). */
  async function rawOnCluster(prefix: string, count: number): Promise<string[]> {
    const tokens = Array.from({ length: count }, () => `at-${randomUUID()}`);
    for (const token of tokens) await clusterClient.set(`${prefix}AccessToken:{${token}}`, JSON.stringify({ jti: token, kind: 'AccessToken' }), 'EX', 600);
    return tokens;
  }

  test.each([
    ['plain', {}],
    ["with the README's fail-fast options", CLUSTER_CLIENT_OPTIONS],
  ])('a Cluster client passed before it is ready (%s) is waited for: every key is moved', async (_, clusterOptions) => {
    const prefix = freshPrefix();
    const tokens = await rawOnCluster(prefix, 30);
    const client = new Cluster(cluster.startupNodes, clusterOptions);
    const { logged, logger } = lines();
    try {
      const report = await migrateRedisKeys({ client, keyPrefix: prefix, logger });
      const left = (await keysOf(clusterClient, prefix)).filter((key) => key.includes('{at-'));
      expect({ report, left }).toEqual({ report: { AccessToken: tokens.length }, left: [] });
      expect(logged).toEqual([`migrateRedisKeys: 30 scanned keys matched "${prefix}<Model>:{…}" on 3 masters: 30 under 0.1.0's raw ids, 0 already hashed; moved 30`]);
    } finally {
      await client.quit().catch(() => client.disconnect());
    }
  }, 60_000);

  test('a url to a Cluster node is refused, naming `client: new Cluster([...])`, before anything is written', async () => {
    const prefix = freshPrefix();
    const tokens = await rawOnCluster(prefix, 30);
    const before = (await keysOf(clusterClient, prefix)).sort();
    const refused = await migrateRedisKeys({ url: `redis://127.0.0.1:${cluster.startupNodes[0]!.port}`, keyPrefix: prefix, logger: lines().logger })
      .then(() => undefined, (error: unknown) => error as Error);
    expect(refused?.message).toBe(`migrateRedisKeys: Redis at 127.0.0.1:${cluster.startupNodes[0]!.port} is a Redis Cluster node: one connection (a \`url\`, or a \`Redis\` client) reaches one node only; pass \`client: new Cluster([{ host, port }, …])\` (import { Cluster } from 'ioredis') instead. Nothing was moved`);
    expect((await keysOf(clusterClient, prefix)).sort()).toEqual(before);
    expect(before).toHaveLength(tokens.length);
  });

  test('a wrong user with a real password: the error names host, port and WRONGPASS, never the password or the command', async () => {
    const password = `real-${randomUUID()}`;
    const { port } = new URL(redis.url);
    const error = await migrateRedisKeys({ url: `redis://ops:${password}@127.0.0.1:${port}`, logger: lines().logger })
      .then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).toBe(`migrateRedisKeys: Redis at 127.0.0.1:${port} refused the credentials (WRONGPASS): check the user name and password in the url`);
    const printed = inspect(error, { depth: 10 });
    expect(printed).not.toContain(password);
    expect(printed).not.toContain('args');
    expect(printed).not.toContain('auth');
  });

  test('an unreachable Redis: one clean error naming host, port and the code, no ioredis "Unhandled error event" lines', async () => {
    const port = await freePort();
    const printed = jest.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const error = await migrateRedisKeys({ url: `redis://ops:s3cret-pass@127.0.0.1:${port}`, logger: lines().logger })
        .then(() => undefined, (e: unknown) => e as Error);
      expect(error?.message).toBe(`migrateRedisKeys: Redis at 127.0.0.1:${port} is unreachable (ECONNREFUSED)`);
      expect(inspect(error, { depth: 10 })).not.toContain('s3cret-pass');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(printed.mock.calls.map((call) => String(call[0]))).toEqual([]);
    } finally {
      printed.mockRestore();
    }
  });

  test('the keys scanned are logged: a wrong keyPrefix is "0 scanned keys matched", a second run counts the hashed ones', async () => {
    const prefix = freshPrefix();
    const token = `rt-${randomUUID()}`;
    await single.set(`${prefix}RefreshToken:{${token}}`, JSON.stringify({ jti: token, kind: 'RefreshToken' }), 'EX', 600);
    const wrong = lines();
    expect(await migrateRedisKeys({ client: single, keyPrefix: 'learn-prod:', logger: wrong.logger })).toEqual({});
    expect(wrong.logged).toEqual(['migrateRedisKeys: 0 scanned keys matched "learn-prod:<Model>:{…}" on 1 node: nothing to move under this keyPrefix (is it the adapter\'s?)']);
    const right = lines();
    expect(await migrateRedisKeys({ client: single, keyPrefix: prefix, logger: right.logger })).toEqual({ RefreshToken: 1 });
    const again = lines();
    expect(await migrateRedisKeys({ client: single, keyPrefix: prefix, logger: again.logger })).toEqual({});
    expect([...right.logged, ...again.logged]).toEqual([
      `migrateRedisKeys: 1 scanned keys matched "${prefix}<Model>:{…}" on 1 node: 1 under 0.1.0's raw ids, 0 already hashed; moved 1`,
      `migrateRedisKeys: 1 scanned keys matched "${prefix}<Model>:{…}" on 1 node: 0 under 0.1.0's raw ids, 1 already hashed; moved 0`,
    ]);
  });
});
