import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ConnectionLogger } from '../../adapters/redis.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { describeAdapterContract } from './contract.ts';

const freshPrefix = () => `platform-auth-test:${randomUUID()}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function captureLogger(): ConnectionLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info: ${m}`), warn: (m) => lines.push(`warn: ${m}`) };
}

/** Retries `call` until it stops failing (ioredis reconnects with a backoff of up to 2 s). */
async function eventually<T>(call: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

let server: RedisHandle;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

describeAdapterContract('redis', async () => {
  const factory = createRedisAdapter({ url: server.url, keyPrefix: freshPrefix() });
  return { factory, teardown: () => factory.close() };
});

describe('redis adapter', () => {
  /** A separate connection to look at what the adapter wrote. */
  let inspect: Redis;

  beforeAll(() => {
    inspect = new Redis(server.url);
  });

  afterAll(async () => {
    await inspect.quit();
  });

  test('the key prefix isolates two factories on the same Redis', async () => {
    const a = createRedisAdapter({ url: server.url, keyPrefix: freshPrefix() });
    const b = createRedisAdapter({ url: server.url, keyPrefix: freshPrefix() });
    try {
      const id = randomUUID();
      const grantId = randomUUID();
      await a('AccessToken').upsert(id, { owner: 'a', grantId }, 60);
      expect(await b('AccessToken').find(id)).toBeUndefined();

      await b('AccessToken').upsert(id, { owner: 'b', grantId }, 60);
      await b('Grant').upsert(grantId, { owner: 'b' }, 60);
      await a('Grant').upsert(grantId, { owner: 'a' }, 60);
      await b('AccessToken').revokeByGrantId(grantId);

      expect(await b('AccessToken').find(id)).toBeUndefined();
      expect(await b('Grant').find(grantId)).toBeUndefined();
      expect(await a('AccessToken').find(id)).toEqual({ owner: 'a', grantId });
      expect(await a('Grant').find(grantId)).toEqual({ owner: 'a' });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('keys follow the documented layout and carry the TTLs', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      const id = randomUUID();
      const longId = randomUUID();
      const grantId = randomUUID();
      const sessionId = randomUUID();
      const sessionUid = randomUUID();
      await factory('AccessToken').upsert(id, { grantId }, 60);
      await factory('RefreshToken').upsert(longId, { grantId }, 600);
      await factory('AccessToken').upsert(randomUUID(), { grantId }, 30);
      await factory('Session').upsert(sessionId, { uid: sessionUid }, 120);
      await factory('Client').upsert('client-1', { client_id: 'client-1' });

      const recordTtl = await inspect.ttl(`${prefix}AccessToken:{${id}}`);
      expect(recordTtl).toBeGreaterThan(55);
      expect(recordTtl).toBeLessThanOrEqual(60);
      // the grant index lives as long as its longest-lived member, never shorter
      const indexTtl = await inspect.ttl(`${prefix}index:grant:{${grantId}}`);
      expect(indexTtl).toBeGreaterThan(595);
      expect(await inspect.scard(`${prefix}index:grant:{${grantId}}`)).toBe(3);
      expect(await inspect.get(`${prefix}index:uid:Session:{${sessionUid}}`)).toBe(sessionId);
      expect(await inspect.ttl(`${prefix}index:uid:Session:{${sessionUid}}`)).toBeGreaterThan(115);
      // no expiresIn: no TTL
      expect(await inspect.ttl(`${prefix}Client:{client-1}`)).toBe(-1);
      expect(JSON.parse((await inspect.get(`${prefix}Client:{client-1}`))!)).toEqual({ client_id: 'client-1' });

      await factory('Client').destroy('client-1');
      await factory('AccessToken').destroy(id);
      expect(await inspect.exists(`${prefix}Client:{client-1}`)).toBe(0);
      expect(await inspect.sismember(`${prefix}index:grant:{${grantId}}`, `${prefix}AccessToken:{${id}}`)).toBe(0);
    } finally {
      await factory.close();
    }
  });

  test('consume keeps the TTL and every other byte of the payload', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      const id = randomUUID();
      // shapes cjson would not round-trip: empty arrays, 16-digit numbers, a stored null
      const payload = { grantId: randomUUID(), resource: [], n: 1234567890123456, consumed: null, s: 'a/b"c' };
      await factory('AuthorizationCode').upsert(id, payload, 100);
      await factory('AuthorizationCode').consume(id);
      const key = `${prefix}AuthorizationCode:{${id}}`;
      expect(await inspect.ttl(key)).toBeGreaterThan(95);
      const found = JSON.parse((await inspect.get(key))!);
      expect(found).toEqual({ ...payload, consumed: expect.any(Number) });
    } finally {
      await factory.close();
    }
  });

  test('close() leaves a client it was given open', async () => {
    const client = new Redis(server.url);
    try {
      const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
      await factory('Session').upsert('s', { a: 1 }, 60);
      expect(await factory('Session').find('s')).toEqual({ a: 1 });
      await factory.close();
      expect(client.status).toBe('ready');
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });

  test('close() closes the client it created; later calls reject', async () => {
    const factory = createRedisAdapter({ url: server.url, keyPrefix: freshPrefix() });
    await factory('Session').upsert('s', { a: 1 }, 60);
    await factory.close();
    await factory.close();
    await expect(factory('Session').find('s')).rejects.toThrow();
  });

  test('invalid options are refused', () => {
    expect(() => createRedisAdapter({})).toThrow(TypeError);
    const prefixed = new Redis(server.url, { lazyConnect: true, keyPrefix: 'x:' });
    expect(() => createRedisAdapter({ client: prefixed })).toThrow(/keyPrefix/);
    prefixed.disconnect();
  });
});

describe('redis adapter when Redis goes away', () => {
  let dedicated: RedisHandle;

  beforeAll(async () => {
    // stopped and restarted below: never the shared REDIS_URL
    dedicated = await startRedis({ forceSpawn: true });
  });

  afterAll(async () => {
    await dedicated?.stop();
  });

  // jest fails the running test on any unhandled rejection, so passing also means none
  test('calls reject fast with StorageUnavailableError while Redis is down, and work again once it is back', async () => {
    const logger = captureLogger();
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: dedicated.url, keyPrefix: prefix, logger });
    try {
      const tokens = factory('AccessToken');
      await tokens.upsert('before', { a: 1, grantId: 'g' }, 60);
      expect(await tokens.find('before')).toEqual({ a: 1, grantId: 'g' });

      await dedicated.stop();

      const calls = [
        () => tokens.find('before'),
        () => tokens.upsert('during', { b: 1, grantId: 'g' }, 60),
        () => tokens.consume('before'),
        () => tokens.destroy('before'),
        () => tokens.revokeByGrantId('g'),
        () => factory('Session').findByUid('u'),
        () => factory('DeviceCode').findByUserCode('c'),
      ];
      for (const call of calls) {
        const started = Date.now();
        const error = await call().then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(StorageUnavailableError);
        expect(error).toMatchObject({ statusCode: 503, error: 'temporarily_unavailable', expose: true, allow_redirect: false });
        expect((error as StorageUnavailableError).error_detail).toMatch(/^redis: /);
        expect(Date.now() - started).toBeLessThan(2_000);
      }
      // the outage goes on while ioredis keeps retrying in the background
      await sleep(1_000);
      const started = Date.now();
      await expect(tokens.find('before')).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(Date.now() - started).toBeLessThan(2_000);

      // an adapter started, and closed, during the outage neither hangs nor leaks a handle
      const lateLogger = captureLogger();
      const lateComer = createRedisAdapter({ url: dedicated.url, keyPrefix: freshPrefix(), logger: lateLogger });
      await expect(lateComer('Session').find('s')).rejects.toBeInstanceOf(StorageUnavailableError);
      await lateComer.close();
      expect(lateLogger.lines).toEqual([expect.stringMatching(/^warn: .*unreachable \(ECONNREFUSED\)/)]);

      await dedicated.restart();

      await eventually(() => tokens.find('before'));
      await tokens.upsert('after', { c: 1 }, 60);
      expect(await tokens.find('after')).toEqual({ c: 1 });

      // one line when lost, one when back: not one per reconnection attempt
      expect(logger.lines).toEqual([
        expect.stringMatching(/^warn: platform-auth: Redis at 127\.0\.0\.1:\d+ is unreachable/),
        expect.stringMatching(/^info: platform-auth: Redis at 127\.0\.0\.1:\d+ is reachable again/),
      ]);
      expect(logger.lines.join('\n')).not.toContain(prefix);
    } finally {
      await factory.close();
    }
    // closing is not an outage
    expect(logger.lines).toHaveLength(2);
  });

  test('a Redis that accepts connections but does not answer times out instead of hanging', async () => {
    const factory = createRedisAdapter({ url: dedicated.url, keyPrefix: freshPrefix(), logger: captureLogger() });
    try {
      await eventually(() => factory('Session').upsert('s', { a: 1 }, 60));
      dedicated.pause();
      const started = Date.now();
      const error = await factory('Session').find('s').then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      // commandTimeout is 5 s
      expect(Date.now() - started).toBeLessThan(8_000);
      dedicated.resume();
      expect(await eventually(() => factory('Session').find('s'))).toEqual({ a: 1 });
    } finally {
      dedicated.resume();
      await factory.close();
    }
  });

  test('"not now" replies (READONLY after a failover) are outages; other errors are not', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: dedicated.url, keyPrefix: prefix, logger: captureLogger() });
    const admin = new Redis(dedicated.url);
    try {
      await eventually(() => factory('AccessToken').upsert('t', { grantId: 'g' }, 60));
      // a replica of a master that does not exist: reads work, writes are refused
      await admin.replicaof('127.0.0.1', String(1));
      const error = await factory('AccessToken').upsert('u', { grantId: 'g' }, 60).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as StorageUnavailableError).error_detail).toBe('redis: READONLY');
      await expect(factory('AccessToken').consume('t')).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(await factory('AccessToken').find('t')).toEqual({ grantId: 'g' });
      await admin.replicaof('NO', 'ONE');

      // a record that is not JSON is a bug or corruption, not an outage: a 500, not a 503
      await admin.set(`${prefix}AuthorizationCode:{bad}`, 'not json', 'EX', 60);
      const corrupt = await factory('AuthorizationCode').consume('bad').then(() => undefined, (e: unknown) => e);
      expect(corrupt).toBeInstanceOf(Error);
      expect(corrupt).not.toBeInstanceOf(StorageUnavailableError);
      await expect(factory('AuthorizationCode').find('bad')).rejects.toThrow(SyntaxError);
    } finally {
      await admin.replicaof('NO', 'ONE').catch(() => {});
      await admin.quit();
      await factory.close();
    }
  });
});
