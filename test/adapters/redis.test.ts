import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import type { AddressInfo } from 'node:net';

import { Cluster, Redis, ReplyError } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';
import type { ConnectionLogger } from '../../adapters/redis.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { CappedList, ClosableAdapterFactory, CompareAndSet, FindSpending, LatestByMember, SpendBudget } from '../../adapters/types.ts';
import type { TraceEntry } from '../../lib/trace/entry.ts';
import { ClientTraceStore, UNKNOWN_CLIENT_TRACE_TTL_S } from '../../lib/trace/store.ts';
import { replyLosingProxy } from '../support/reply-losing-proxy.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { describeAdapterContract } from './contract.ts';

const freshPrefix = () => `platform-auth-test:${randomUUID()}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Every call of the adapter settles within this (adapters/redis.ts, CALL_TIMEOUT_MS). */
const BOUND_MS = 3_000;
/** The settings the README gives for a client passed in (Redis settings that matter). */
const README_CLIENT_OPTIONS = {
  enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, connectTimeout: 2_000, commandTimeout: 3_000,
};

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

describe('createRedisAdapter refuses a url ioredis would read as something else, with what to change', () => {
  const quietLogger = { info() {}, warn() {} };
  const SUFFIX = '; pass a redis:// or rediss:// URL (or a Unix socket path)';

  test.each([
    ['an http URL', 'http://user:s3cret-pass@127.0.0.1:6379', 'has the scheme "http:", which ioredis would not read as meant'],
    // ioredis turns TLS on only for the exact bytes `rediss://`: these it reads as a host named rediss, in plain text
    ['an upper-case rediss scheme', 'REDISS://user:s3cret-pass@127.0.0.1:1', 'has the scheme "REDISS:", which ioredis would not read as meant'],
    ['a mixed-case rediss scheme', 'Rediss://127.0.0.1:1', 'has the scheme "Rediss:", which ioredis would not read as meant'],
    ['rediss: without //', 'rediss:user:s3cret-pass@127.0.0.1:1', 'has the scheme "rediss:", which ioredis would not read as meant'],
    // ioredis would throw an error whose `input` is the whole URL, password included
    ['leading whitespace', ' rediss://user:s3cret-pass@127.0.0.1:1', 'has leading or trailing whitespace'],
    ['a URL that does not parse', 'redis://:s3cret-pass@127.0.0.1:99999', 'is not a valid URL'],
    ['an empty string', '', 'must be a non-empty string'],
  ])('%s', (_name, url, why) => {
    let thrown: unknown;
    try {
      createRedisAdapter({ url, logger: quietLogger });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toBe(`createRedisAdapter: \`url\` ${why}${SUFFIX}`);
    // what a host's log would show of the start-up error: never the password
    expect(inspect(thrown)).not.toContain('s3cret');
  });

  test('a url left undefined (an unset environment variable) is named as such', () => {
    expect(() => createRedisAdapter({ url: process.env.PLATFORM_AUTH_SURELY_UNSET })).toThrow(
      'createRedisAdapter: `url` is undefined (an environment variable that is not set?): pass a redis:// or rediss:// URL, or `client`',
    );
  });

  test('what ioredis reads as meant is taken: redis://, host:port and localhost:port work; rediss://, a socket path, redis:6379 and user:password@host:port are taken', async () => {
    const { port } = server;
    const working = [server.url, `127.0.0.1:${port}`, `localhost:${port}`];
    for (const url of working) {
      const factory = createRedisAdapter({ url, keyPrefix: freshPrefix(), logger: quietLogger });
      try {
        await factory('Session').upsert('s', { a: 1 }, 60);
        expect(await factory('Session').find('s')).toEqual({ a: 1 });
      } finally {
        await factory.close();
      }
    }
    // taken without connecting anywhere meant to answer: TLS, a socket path, a Compose service name
    for (const url of [server.url.replace(/^redis:/, 'rediss:'), '/tmp/platform-auth-no-such.sock', 'redis:6379', 'default:pw@127.0.0.1:1']) {
      const factory = createRedisAdapter({ url, keyPrefix: freshPrefix(), logger: quietLogger });
      await factory.close();
    }
  });
});

test('credentials Redis refuses are logged as such, not as "unreachable", and never quoted', async () => {
  const admin = new Redis(server.url);
  const user = `pa-test-${randomUUID()}`;
  await admin.call('ACL', 'SETUSER', user, 'on', '>right-password-0123', '~*', '+@all');
  const logger = captureLogger();
  const factory = createRedisAdapter({ url: server.url.replace('redis://', `redis://${user}:wrong-password-4567@`), keyPrefix: freshPrefix(), logger });
  try {
    await expect(factory('Session').find('s')).rejects.toBeInstanceOf(StorageUnavailableError);
    await eventually(async () => { if (logger.lines.length === 0) throw new Error('no line yet'); });
    expect(logger.lines).toEqual([
      expect.stringMatching(/^warn: platform-auth: Redis at 127\.0\.0\.1:\d+ refused the credentials \(WRONGPASS\): check the user name and password in the url; requests that need storage are answered 503 until it accepts them\. Retrying\.$/),
    ]);
    expect(logger.lines.join('\n')).not.toContain('wrong-password-4567');
  } finally {
    await factory.close();
    await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  }
});

test('a Redis that asks for a password the url does not give (NOAUTH) is logged as refused credentials too', async () => {
  const guarded = await startRedis({ forceSpawn: true });
  const admin = new Redis(guarded.url);
  await admin.config('SET', 'requirepass', 'only-the-admin-knows-0123');
  const logger = captureLogger();
  const factory = createRedisAdapter({ url: guarded.url, keyPrefix: freshPrefix(), logger });
  try {
    await expect(factory('Session').find('s')).rejects.toBeInstanceOf(StorageUnavailableError);
    await eventually(async () => { if (logger.lines.length === 0) throw new Error('no line yet'); });
    expect(logger.lines).toEqual([expect.stringMatching(/^warn: platform-auth: Redis at 127\.0\.0\.1:\d+ refused the credentials \(NOAUTH\): check the user name and password in the url; /)]);
  } finally {
    await factory.close();
    admin.disconnect();
    await guarded.stop();
  }
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

      const recordTtl = await inspect.ttl(`${prefix}AccessToken:{${keyIdOf('AccessToken', id)}}`);
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
      expect(await inspect.sismember(`${prefix}index:grant:{${grantId}}`, `${prefix}AccessToken:{${keyIdOf('AccessToken', id)}}`)).toBe(0);
    } finally {
      await factory.close();
    }
  });

  test('no key, stored value or command holds a token: credentials are kept under their SHA-256, jti as true', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    // a client of its own in monitor mode (as redis-round-trips.test.ts's argsDuring): ends with the test
    const monitor = new Redis(server.url, { monitor: true, retryStrategy: () => null });
    monitor.on('error', () => {});
    const commands: string[] = [];
    try {
      await new Promise((resolve) => monitor.once('monitoring', resolve));
      monitor.on('monitor', (_time: string, args: string[]) => { if (args.some((a) => a.startsWith(prefix))) commands.push(args.join(' ')); });
      const grantId = randomUUID();
      const tokens = Object.fromEntries(['AccessToken', 'RefreshToken', 'AuthorizationCode', 'ClientCredentials'].map((model) => [model, `${model}-${randomUUID()}`]));
      for (const [model, id] of Object.entries(tokens)) {
        const payload = { jti: id, kind: model, grantId, accountId: 'acc', iat: 1, exp: 2 };
        await factory(model).upsert(id, payload, 60);
        // given back as written, jti included
        expect(await factory(model).find(id)).toEqual(payload);
        const key = `${prefix}${model}:{sha256:${keyIdOf(model, id).slice('sha256:'.length)}}`;
        expect(JSON.parse((await inspect.get(key))!)).toEqual({ ...payload, jti: true });
      }
      await factory('AuthorizationCode').consume(tokens.AuthorizationCode!);
      await factory('RefreshToken').destroy(tokens.RefreshToken!);
      // a Grant keeps its id: it is no credential
      await factory('Grant').upsert(grantId, { jti: grantId, accountId: 'acc' }, 60);
      expect(await inspect.exists(`${prefix}Grant:{${grantId}}`)).toBe(1);
      const keys = await inspect.keys(`${prefix}*`);
      const values = await Promise.all(keys.map(async (key) => ((await inspect.type(key)) === 'string' ? inspect.get(key) : (await inspect.smembers(key)).join(' '))));
      await factory('AccessToken').revokeByGrantId(grantId);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(commands.length).toBeGreaterThan(5);
      for (const token of Object.values(tokens)) {
        expect(keys.filter((key) => key.includes(token))).toEqual([]);
        expect(values.filter((value) => value?.includes(token))).toEqual([]);
        expect(commands.filter((command) => command.includes(token))).toEqual([]);
      }
    } finally {
      monitor.disconnect();
      await factory.close();
    }
  });

  test('a credential is never given back with jti true: found by uid it is refused; compareAndSet writes it as upsert does', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      const id = `tok-${randomUUID()}`;
      await factory('AccessToken').upsert(id, { jti: id, uid: 'u-1' }, 60);
      // the index holds the id hashed: the jti cannot be given back (oidc-provider never asks so)
      await expect(factory('AccessToken').findByUid('u-1')).rejects.toThrow(/found by its id, not by uid/);
      const tokens = factory('RefreshToken') as ReturnType<typeof factory> & CompareAndSet;
      await tokens.upsert(id, { jti: id, n: 1 }, 60);
      expect(await tokens.compareAndSet(id, (await tokens.find(id))!, { jti: id, n: 2 }, 60)).toBe(true);
      expect(await tokens.find(id)).toEqual({ jti: id, n: 2 });
      expect(await inspect.get(`${prefix}RefreshToken:{${keyIdOf('RefreshToken', id)}}`)).toBe('{"jti":true,"n":2}');
    } finally {
      await factory.close();
    }
  });

  test('a capped list: newest first, trimmed, with its lifetime, apart from the record of the same id', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      const traces = factory('ClientTrace') as ReturnType<typeof factory> & CappedList;
      await traces.upsert('app', { whole: true }, 60);
      await traces.pushCapped('app', [{ n: 1 }, { n: 2 }, { n: 3 }], 4, 30);
      await traces.pushCapped('app', [{ n: 4 }, { n: 5 }], 4, 120);
      expect(await traces.readCapped('app')).toEqual([{ n: 5 }, { n: 4 }, { n: 3 }, { n: 2 }]);
      const key = `${prefix}list:ClientTrace:{app}`;
      expect(await inspect.type(key)).toBe('list');
      expect(await inspect.llen(key)).toBe(4);
      // each push renews the lifetime
      expect(await inspect.ttl(key)).toBeGreaterThan(115);
      expect(await inspect.ttl(key)).toBeLessThanOrEqual(120);
      // the record of the same id is another key, untouched
      expect(await traces.find('app')).toEqual({ whole: true });
      // nothing to push writes nothing; an unknown list is empty
      await traces.pushCapped('other', [], 4, 30);
      expect(await inspect.exists(`${prefix}list:ClientTrace:{other}`)).toBe(0);
      expect(await traces.readCapped('other')).toEqual([]);
      await expect(traces.pushCapped('app', [{ n: 6 }], 0, 30)).rejects.toThrow(RangeError);
    } finally {
      await factory.close();
    }
  });

  test('a capped list\'s lifetime is extended by a push, never shortened', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      const traces = factory('ClientTrace') as ReturnType<typeof factory> & CappedList;
      const key = `${prefix}list:ClientTrace:{app}`;
      await traces.pushCapped('app', [{ n: 1 }], 4, 30);
      expect(await inspect.ttl(key)).toBeGreaterThan(25);
      expect(await inspect.ttl(key)).toBeLessThanOrEqual(30);
      await traces.pushCapped('app', [{ n: 2 }], 4, 1000);
      expect(await inspect.ttl(key)).toBeGreaterThan(995);
      // a shorter lifetime asked for later leaves the longer one
      await traces.pushCapped('app', [{ n: 3 }], 4, 30);
      expect(await inspect.ttl(key)).toBeGreaterThan(995);
      expect(await traces.readCapped('app')).toEqual([{ n: 3 }, { n: 2 }, { n: 1 }]);
      // a list without a lifetime (none set by hand) gets one
      await inspect.persist(key);
      await traces.pushCapped('app', [{ n: 4 }], 4, 30);
      expect(await inspect.ttl(key)).toBeGreaterThan(25);
      expect(await inspect.ttl(key)).toBeLessThanOrEqual(30);
    } finally {
      await factory.close();
    }
  });

  test('a trace holding only unknown clients\' entries lives an hour; a known client\'s entry gives it trace.ttlSeconds, kept after', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    const WEEK = 7 * 86_400;
    const at = (n: number) => new Date(1_700_000_000_000 + n).toISOString();
    const unknown = (n: number): TraceEntry => ({ at: at(n), event: 'metadata_document.failed', outcome: 'refused', summary: `#${n}` });
    const known = (n: number): TraceEntry => ({ at: at(n), event: 'refresh.rotated', outcome: 'ok', summary: `#${n}` });
    try {
      const store = new ClientTraceStore({ adapter: factory, entries: 5, ttlSeconds: WEEK });
      const key = (id: string) => `${prefix}list:ClientTrace:{${id}}`;
      await store.append('https://evil.example/a', [unknown(1), unknown(2)]);
      expect(await inspect.ttl(key('https://evil.example/a'))).toBeGreaterThan(3590);
      expect(await inspect.ttl(key('https://evil.example/a'))).toBeLessThanOrEqual(UNKNOWN_CLIENT_TRACE_TTL_S);
      // someone signed in with it after all (its token refreshed): the client is known now
      await store.append('https://evil.example/a', [known(3)]);
      expect(await inspect.ttl(key('https://evil.example/a'))).toBeGreaterThan(WEEK - 10);
      // a failure of its document after that does not shorten the trace's lifetime
      await store.append('https://evil.example/a', [unknown(4)]);
      expect(await inspect.ttl(key('https://evil.example/a'))).toBeGreaterThan(WEEK - 10);
      expect((await store.read('https://evil.example/a')).map((e) => e.summary)).toEqual(['#4', '#3', '#2', '#1']);
      // trace.ttlSeconds below an hour bounds both
      const short = new ClientTraceStore({ adapter: factory, entries: 5, ttlSeconds: 600 });
      await short.append('https://evil.example/b', [unknown(5)]);
      expect(await inspect.ttl(key('https://evil.example/b'))).toBeGreaterThan(590);
      expect(await inspect.ttl(key('https://evil.example/b'))).toBeLessThanOrEqual(600);
    } finally {
      await factory.close();
    }
  });

  test('a latest-by-member index: each member once with its newest payload, capped, with its lifetime', async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      const index = factory('ClientTraceIndex') as ReturnType<typeof factory> & LatestByMember;
      await index.upsert('recent', { whole: true }, 60);
      await index.putLatest('recent', [
        { member: 'a', at: 1000, payload: { n: 'a1' } },
        { member: 'b', at: 2000, payload: { n: 'b2' } },
        { member: 'c', at: 3000, payload: { n: 'c3' } },
      ], 3, 30);
      // a newer payload replaces; an older one (another instance's late write) is ignored
      await index.putLatest('recent', [{ member: 'a', at: 4000, payload: { n: 'a4' } }, { member: 'c', at: 2500, payload: { n: 'c-old' } }], 3, 120);
      expect(await index.readLatest('recent')).toEqual([{ n: 'a4' }, { n: 'c3' }, { n: 'b2' }]);
      // past the cap the oldest member goes, from both keys
      await index.putLatest('recent', [{ member: 'd', at: 5000, payload: { n: 'd5' } }], 3, 120);
      expect(await index.readLatest('recent')).toEqual([{ n: 'd5' }, { n: 'a4' }, { n: 'c3' }]);
      const [ranks, payloads] = [`${prefix}latest:ClientTraceIndex:{recent}`, `${prefix}latest:ClientTraceIndex:payloads:{recent}`];
      expect(await inspect.zcard(ranks)).toBe(3);
      expect((await inspect.hkeys(payloads)).sort()).toEqual(['a', 'c', 'd']);
      for (const key of [ranks, payloads]) {
        expect(await inspect.ttl(key)).toBeGreaterThan(115);
        expect(await inspect.ttl(key)).toBeLessThanOrEqual(120);
      }
      // the record of the same id is another key, untouched
      expect(await index.find('recent')).toEqual({ whole: true });
      await index.putLatest('other', [], 3, 30);
      expect(await inspect.exists(`${prefix}latest:ClientTraceIndex:{other}`)).toBe(0);
      expect(await index.readLatest('other')).toEqual([]);
      await expect(index.putLatest('recent', [{ member: 'e', at: 6000, payload: {} }], 0, 30)).rejects.toThrow(RangeError);
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
      const key = `${prefix}AuthorizationCode:{${keyIdOf('AuthorizationCode', id)}}`;
      expect(await inspect.ttl(key)).toBeGreaterThan(95);
      const found = JSON.parse((await inspect.get(key))!);
      expect(found).toEqual({ ...payload, consumed: expect.any(Number) });
    } finally {
      await factory.close();
    }
  });

  test('calls made while the connection is being established share one wait: no listener per call', async () => {
    // a listener pair per waiting call passed EventEmitter's limit of 10 at a busy start
    // (MaxListenersExceededWarning on the adapter's client); Jest keeps process warnings to
    // itself, so the listeners are counted: for 25 calls at once no more than for one (give or
    // take the one ioredis itself adds while connecting)
    const readyListenersFor = async (calls: number) => {
      const once = jest.spyOn(Redis.prototype, 'once');
      const factory = createRedisAdapter({ url: server.url, keyPrefix: freshPrefix() });
      try {
        // made at once, before the adapter's own client is connected (a busy host at start-up)
        const sessions = factory('Session');
        await Promise.all(Array.from({ length: calls }, (_, i) => sessions.upsert(`s${i}`, { i }, 60)));
        expect(await Promise.all(Array.from({ length: calls }, (_, i) => sessions.find(`s${i}`)))).toEqual(Array.from({ length: calls }, (_, i) => ({ i })));
        return once.mock.calls.filter(([event]) => event === 'ready').length;
      } finally {
        once.mockRestore();
        await factory.close();
      }
    };
    const one = await readyListenersFor(1);
    expect(one).toBeGreaterThanOrEqual(1);
    expect(await readyListenersFor(25)).toBeLessThanOrEqual(one + 1);
  });

  test('a client passed in with the README settings and used before it is connected: the first calls wait for it', async () => {
    // a host builds the client inline (createRedisAdapter({ client: new Redis(url, {...}) })) and
    // serves at once: without an offline queue, calls made while it connects failed (503)
    const client = new Redis(server.url, README_CLIENT_OPTIONS);
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    try {
      expect(client.status).toBe('connecting');
      const sessions = factory('Session');
      await Promise.all(Array.from({ length: 5 }, (_, i) => sessions.upsert(`s${i}`, { i }, 60)));
      expect(await sessions.find('s4')).toEqual({ i: 4 });
    } finally {
      await factory.close();
      client.disconnect();
    }
  });

  test('a client passed in with lazyConnect: the adapter connects it, and the first calls wait for it', async () => {
    const client = new Redis(server.url, { ...README_CLIENT_OPTIONS, lazyConnect: true });
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    try {
      expect(client.status).toBe('wait');
      const sessions = factory('Session');
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => sessions.upsert(`s${i}`, { i }, 60)));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    } finally {
      await factory.close();
      client.disconnect();
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

  // the adapter's own client does not auto-pipeline; a host's client may (the README's Cluster
  // settings do), and then commands issued behind a stuck pipeline wait in it unsent
  const pausedClients: [string, () => { factory: ClosableAdapterFactory; client?: Redis }][] = [
    ['the adapter\'s own client', () => ({ factory: createRedisAdapter({ url: dedicated.url, keyPrefix: freshPrefix(), logger: captureLogger() }) })],
    ['a client passed in, auto-pipelining', () => {
      const client = new Redis(dedicated.url, { ...README_CLIENT_OPTIONS, enableAutoPipelining: true });
      client.on('error', () => {});
      return { factory: createRedisAdapter({ client, keyPrefix: freshPrefix() }), client };
    }],
  ];

  test.each(pausedClients)('a Redis that accepts connections but does not answer (%s): every call, even one issued while others are stuck, rejects within the 3 s bound; calls work again after it resumes', async (_name, open) => {
    const { factory, client } = open();
    /** Starts `count` different calls now; each resolves to [its error, how long it took]. */
    const wave = (count: number) => Array.from({ length: count }, (_, i) => {
      const started = Date.now();
      const calls = [
        () => factory('Session').find('s'),
        () => factory('AccessToken').upsert(`t${i}`, { grantId: 'g' }, 60),
        () => factory('AuthorizationCode').consume(`c${i}`),
        () => factory('Session').findByUid(`u${i}`),
        () => factory('AccessToken').revokeByGrantId(`g${i}`),
      ];
      return calls[i % calls.length]!().then(() => undefined, (e: unknown) => e)
        .then((error) => [error, Date.now() - started] as const);
    });
    try {
      await eventually(() => factory('Session').upsert('s', { a: 1 }, 60));
      dedicated.pause();
      // the first wave sticks, unanswered; the second is issued while it is stuck (an
      // auto-pipeline holds it unsent), the third after the first wave has timed out
      const first = wave(20);
      await sleep(1_500);
      const second = wave(20);
      await sleep(2_000);
      const third = wave(20);
      const results = await Promise.all([...first, ...second, ...third]);
      for (const [error, elapsed] of results) {
        expect(error).toBeInstanceOf(StorageUnavailableError);
        // the documented bound (3 s) with generous slack for a loaded machine: without the
        // per-call deadline these took 5 to 10 s
        expect(elapsed).toBeLessThan(BOUND_MS + 1_500);
      }
      dedicated.resume();
      expect(await eventually(() => factory('Session').find('s'))).toEqual({ a: 1 });
      const after = await Promise.all(Array.from({ length: 20 }, (_, i) => factory('Session').upsert(`after${i}`, { i }, 60)));
      expect(after).toHaveLength(20);
      expect(await factory('Session').find('after7')).toEqual({ i: 7 });
    } finally {
      dedicated.resume();
      await factory.close();
      client?.disconnect();
    }
  });

  test.each(pausedClients)('a request\'s calls in a row on a Redis that stopped answering (%s): the first waits the bound, the next fail at once; all work again once it answers', async (_name, open) => {
    const { factory, client } = open();
    try {
      await eventually(() => factory('Session').upsert('s', { a: 1 }, 60));
      dedicated.pause();
      // as a resume does: the interaction, then the session saved twice, one after another
      const started = Date.now();
      const took: number[] = [];
      for (const call of [() => factory('Interaction').find('i'), () => factory('Session').upsert('s', { a: 2 }, 60), () => factory('Session').upsert('s', { a: 3 }, 60)]) {
        const at = Date.now();
        await expect(call()).rejects.toBeInstanceOf(StorageUnavailableError);
        took.push(Date.now() - at);
      }
      // the whole request within the bound (with slack for a loaded machine), not once per call
      expect(Date.now() - started).toBeLessThan(BOUND_MS + 1_500);
      expect(took[0]).toBeGreaterThanOrEqual(BOUND_MS - 200);
      dedicated.resume();
      // answered again at once: the store asks Redis while stalled, it does not wait for a call;
      // and the writes refused at once were never sent (Redis did not apply them on resuming)
      const back = Date.now();
      expect(await eventually(() => factory('Session').find('s'))).toEqual({ a: 1 });
      expect(Date.now() - back).toBeLessThan(1_500);
    } finally {
      dedicated.resume();
      await factory.close();
      client?.disconnect();
    }
  });

  test('a client passed in: once the adapter is closed and its client ended, a stalled adapter stops asking Redis (no PING loop left)', async () => {
    const client = new Redis(dedicated.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500 });
    client.on('error', () => {});
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    let pings = 0;
    const ping = client.ping.bind(client);
    Object.assign(client, { ping: (...args: []) => { pings += 1; return ping(...args); } });
    try {
      await eventually(() => factory('Session').upsert('s', { a: 1 }, 60));
      dedicated.pause();
      await expect(factory('Session').find('s')).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(pings).toBeGreaterThan(0); // stalled: it asks whether Redis answers again
      await factory.close();
      client.disconnect();
      await sleep(300);
      const before = pings;
      await sleep(1_500);
      expect(pings - before).toBe(0);
    } finally {
      dedicated.resume();
      client.disconnect();
    }
  });

  test('a stall is ended by the store\'s own PING when no late reply comes (a client whose commandTimeout dropped the stuck command)', async () => {
    const client = new Redis(dedicated.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500 });
    client.on('error', () => {});
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    try {
      await eventually(() => factory('Session').upsert('s', { a: 1 }, 60));
      dedicated.pause();
      await expect(factory('Session').find('s')).rejects.toBeInstanceOf(StorageUnavailableError);
      // stalled: refused at once, sent nowhere
      const at = Date.now();
      await expect(factory('Session').upsert('s', { a: 2 }, 60)).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(Date.now() - at).toBeLessThan(100);
      dedicated.resume();
      const back = Date.now();
      expect(await eventually(() => factory('Session').find('s'), 3_000)).toEqual({ a: 1 });
      expect(Date.now() - back).toBeLessThan(1_500);
    } finally {
      dedicated.resume();
      await factory.close();
      client.disconnect();
    }
  });

  test('a client passed in and shared by several adapters: close() leaves none of their listeners on it', async () => {
    const client = new Redis(dedicated.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 3_000 });
    client.on('error', () => {});
    try {
      await eventually(() => client.ping());
      const before = client.listenerCount('ready');
      for (let i = 0; i < 12; i += 1) {
        const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
        await factory('Session').find('x');
        await factory.close();
      }
      expect(client.listenerCount('ready') - before).toBe(0);
    } finally {
      client.disconnect();
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

      // memory full (maxmemory reached, noeviction): the write inside the upsert script is refused
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      const full = await factory('AccessToken').upsert('v', { grantId: 'g' }, 60).then(() => undefined, (e: unknown) => e);
      expect(full).toBeInstanceOf(StorageUnavailableError);
      expect((full as StorageUnavailableError).error_detail).toBe('redis: OOM');
      await admin.config('SET', 'maxmemory', '0');

      // a record that is not JSON is a bug or corruption, not an outage: a 500, not a 503
      await admin.set(`${prefix}AuthorizationCode:{${keyIdOf('AuthorizationCode', 'bad')}}`, 'not json', 'EX', 60);
      const corrupt = await factory('AuthorizationCode').consume('bad').then(() => undefined, (e: unknown) => e);
      expect(corrupt).toBeInstanceOf(Error);
      expect(corrupt).not.toBeInstanceOf(StorageUnavailableError);
      await expect(factory('AuthorizationCode').find('bad')).rejects.toThrow(SyntaxError);
    } finally {
      await admin.replicaof('NO', 'ONE').catch(() => {});
      await admin.config('SET', 'maxmemory', '0').catch(() => {});
      await admin.quit();
      await factory.close();
    }
  });
});

/**
 * How failures are classified, over a fake client that fails every command with a given
 * error: the errors ioredis produces (names and messages as in ioredis 5) for a Redis or
 * Cluster that cannot serve now are 503s; bugs and corrupt data stay what they are (500s).
 */
describe('redis adapter: a rate budget\'s write refused (a full Redis)', () => {
  let server: RedisHandle;
  let admin: Redis;
  let factory: ClosableAdapterFactory;

  beforeAll(async () => {
    // a server of its own: its memory limit must not reach other tests
    server = await startRedis({ forceSpawn: true });
    admin = new Redis(server.url);
    factory = createRedisAdapter({ url: server.url, keyPrefix: `full-${randomUUID()}:`, logger: { info() {}, warn() {} } });
  });

  afterAll(async () => {
    await factory?.close();
    admin?.disconnect();
    await server?.stop();
  });

  test('fails the refresh read that spends, and no other read of its batch; a spend alone is a 503', async () => {
    const tokens = factory('RefreshToken') as ReturnType<ClosableAdapterFactory> & FindSpending & SpendBudget;
    await tokens.upsert('rt-full', { grantId: 'g-full', clientId: 'app' }, 600);
    await factory('AccessToken').upsert('at-full', { grantId: 'g-other', clientId: 'app' }, 600);
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    try {
      const spend = { model: 'RefreshRate', clientId: 'app', now: Date.now(), tolerance: 60_000, step: 1000 };
      // asked for in one turn: one script (FIND_MANY) for both reads
      const [refresh, other] = await Promise.allSettled([tokens.findSpending('rt-full', spend), factory('AccessToken').find('at-full')]);
      expect(refresh).toMatchObject({ status: 'rejected', reason: expect.any(StorageUnavailableError) });
      expect((refresh as PromiseRejectedResult).reason.error_detail).toBe('redis: OOM');
      expect(other).toEqual({ status: 'fulfilled', value: expect.objectContaining({ grantId: 'g-other' }) });
      // alone, in its own script
      await expect(tokens.findSpending('rt-full', spend)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect((factory('RefreshRate') as unknown as SpendBudget).spendBudget('g-full', spend.now, spend.tolerance, spend.step)).rejects.toMatchObject({ error_detail: 'redis: OOM' });
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(await tokens.findSpending('rt-full', { model: 'RefreshRate', clientId: 'app', now: Date.now(), tolerance: 60_000, step: 1000 })).toMatchObject({ spent: { spent: true } });
  });
});

describe('redis adapter error classification', () => {
  /** A Cluster-like client whose every command rejects with `error` (or resolves `reply`). */
  function failingClient(error: unknown, reply?: unknown): Cluster {
    const answer = () => (error === undefined ? Promise.resolve(reply) : Promise.reject(error));
    return {
      options: {},
      isCluster: true,
      status: 'ready',
      defineCommand() {},
      get: answer,
      set: answer,
      del: answer,
      smembers: answer,
      platformAuthConsume: answer,
      platformAuthIndexGrant: answer,
      platformAuthDeleteIfEquals: answer,
    } as unknown as Cluster;
  }

  async function failureOf(error: unknown, call: (factory: ClosableAdapterFactory) => Promise<unknown> = (f) => f('AccessToken').find('x')) {
    const factory = createRedisAdapter({ client: failingClient(error), keyPrefix: 'p:' });
    return call(factory).then(() => undefined, (e: unknown) => e);
  }

  /** an ioredis error class: `name` is the constructor's name, as ioredis' errors define it */
  const named = (name: string, message: string) => Object.defineProperty(new Error(message), 'name', { value: name });
  const reply = (message: string) => new ReplyError(message) as Error;

  test.each([
    // Cluster redirections ioredis hands over from an auto-pipeline during a failover/resharding
    ['MOVED', reply('MOVED 3999 127.0.0.1:6381'), 'redis: MOVED'],
    ['ASK', reply('ASK 3999 127.0.0.1:6381'), 'redis: ASK'],
    ['TRYAGAIN', reply('TRYAGAIN Multiple keys request during rehashing of slot'), 'redis: TRYAGAIN'],
    ['CLUSTERDOWN', reply('CLUSTERDOWN The cluster is down'), 'redis: CLUSTERDOWN'],
    ['CLUSTERDOWN (hash slot not served)', reply('CLUSTERDOWN Hash slot not served'), 'redis: CLUSTERDOWN'],
    ['READONLY', reply("READONLY You can't write against a read only replica."), 'redis: READONLY'],
    ['LOADING', reply('LOADING Redis is loading the dataset in memory'), 'redis: LOADING'],
    ['MASTERDOWN', reply('MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no'), 'redis: MASTERDOWN'],
    // a command's refusal inside a script: as Redis 7 passes it on, and wrapped as Redis 6 did
    ['OOM inside a script (Redis 7)', reply("OOM command not allowed when used memory > 'maxmemory'. script: 2f4e1d8a, on @user_script:3."), 'redis: OOM'],
    ['OOM inside a script (Redis 6)', reply("ERR Error running script (call to f_0a9a51ee96320953ec7bde8e63f3f060b9dac00c): @user_script:41: @user_script: 41: -OOM command not allowed when used memory > 'maxmemory'."), 'redis: OOM'],
    ['READONLY inside a script (Redis 6)', reply("ERR Error running script (call to f_8f55ae4a3be429c6d38c5d5db3e80edf89197b64): @user_script:2: @user_script: 2: -READONLY You can't write against a read only replica."), 'redis: READONLY'],
    ['EXECABORT with MOVED inside', Object.assign(reply('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [reply('MOVED 3999 127.0.0.1:6381'), reply('MOVED 3999 127.0.0.1:6381')],
    }), 'redis: MOVED'],
    ['EXECABORT with ASK and TRYAGAIN inside', Object.assign(reply('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [reply('ASK 12 127.0.0.1:6381'), reply('TRYAGAIN Multiple keys request during rehashing of slot')],
    }), 'redis: ASK'],
    // connection errors surfacing from Cluster pipelines
    ['ClusterAllFailedError', named('ClusterAllFailedError', 'Failed to refresh slots cache.'), 'redis: ClusterAllFailedError'],
    ['no startup node', new Error('None of startup nodes is available'), 'redis: None of startup nodes is available'],
    ['MaxRetriesPerRequestError', named('MaxRetriesPerRequestError',
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.'), 'redis: MaxRetriesPerRequestError'],
    ['connection closed', new Error('Connection is closed.'), 'redis: Connection is closed.'],
    ['aborted on close', named('AbortError', 'Command aborted due to connection close'), 'redis: AbortError'],
    ['cluster not ready', new Error("Cluster isn't ready and enableOfflineQueue options is false"), "redis: Cluster isn't ready and enableOfflineQueue options is false"],
    ['too many redirections', new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 3999 127.0.0.1:6381'), expect.stringMatching(/^redis: Too many Cluster redirections/)],
    ['slots moved under a pipeline', new Error('All keys in the pipeline should belong to the same slots allocation group'), expect.stringMatching(/^redis: All keys in the pipeline/)],
    ['command timed out', new Error('Command timed out'), 'redis: Command timed out'],
    ['socket error', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7000'), { code: 'ECONNREFUSED' }), 'redis: ECONNREFUSED'],
  ])('%s is a StorageUnavailableError (503)', async (_, error, detail) => {
    for (const call of [
      (f: ClosableAdapterFactory) => f('AccessToken').find('x'),
      (f: ClosableAdapterFactory) => f('AccessToken').upsert('x', { grantId: 'g' }, 60),
      (f: ClosableAdapterFactory) => f('AuthorizationCode').consume('x'),
      (f: ClosableAdapterFactory) => f('AccessToken').revokeByGrantId('g'),
    ]) {
      const failure = await failureOf(error, call);
      expect(failure).toBeInstanceOf(StorageUnavailableError);
      expect(failure).toMatchObject({ statusCode: 503, error: 'temporarily_unavailable', error_detail: detail });
      expect((failure as Error).cause).toBe(error);
    }
  });

  test.each([
    ['CROSSSLOT (a bug in the key layout)', reply("CROSSSLOT Keys in request don't hash to the same slot")],
    ['a script error', reply('ERR user_script:4: Script attempted to access nonexistent global variable')],
    ['a script error (Redis 6)', reply('ERR Error running script (call to f_0a9a51ee96320953ec7bde8e63f3f060b9dac00c): @user_script:4: user_script:4: attempt to compare nil with number')],
    ['a wrong type inside a script (Redis 6)', reply('ERR Error running script (call to f_0a9a51ee96320953ec7bde8e63f3f060b9dac00c): @user_script:2: @user_script: 2: -WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['a wrong type', reply('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['EXECABORT with a bug inside, even next to a MOVED', Object.assign(reply('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [reply('MOVED 3999 127.0.0.1:6381'), reply('ERR wrong number of arguments')],
    })],
    ["ioredis' own CROSSSLOT", new Error('All the keys in a pipeline command should belong to the same slot')],
    ['a TypeError', new TypeError('Cannot read properties of undefined')],
    ['a RangeError', new RangeError('Invalid array length')],
  ])('%s stays as it is (500)', async (_, error) => {
    expect(await failureOf(error)).toBe(error);
  });

  test('a record that is not JSON is a SyntaxError, not an outage', async () => {
    const factory = createRedisAdapter({ client: failingClient(undefined, 'not json'), keyPrefix: 'p:' });
    await expect(factory('AccessToken').find('x')).rejects.toThrow(SyntaxError);
  });

  test('oidc-provider errors pass through (a replayed consume is invalid_grant)', async () => {
    const factory = createRedisAdapter({ client: failingClient(undefined, [2]), keyPrefix: 'p:' });
    await expect(factory('AuthorizationCode').consume('x')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('real ioredis failures: a Cluster with no reachable node, retries exhausted', async () => {
    const port = await closedPort();
    const cluster = new Cluster([{ host: '127.0.0.1', port }], {
      enableOfflineQueue: true,
      clusterRetryStrategy: () => null,
      redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 500 },
    });
    cluster.on('error', () => {});
    const redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => 50, lazyConnect: true });
    redis.on('error', () => {});
    try {
      const fromCluster = await createRedisAdapter({ client: cluster, keyPrefix: 'p:' })('Session').find('x').then(() => undefined, (e: unknown) => e);
      expect(fromCluster).toBeInstanceOf(StorageUnavailableError);
      // the call waits for the client's connection attempt (ready()), then meets its end
      expect((fromCluster as StorageUnavailableError).error_detail).toMatch(/^redis: (None of startup nodes is available|ClusterAllFailedError|Connection is closed\.)/);
      const fromRedis = await createRedisAdapter({ client: redis, keyPrefix: 'p:' })('Session').find('x').then(() => undefined, (e: unknown) => e);
      expect(fromRedis).toBeInstanceOf(StorageUnavailableError);
      expect((fromRedis as StorageUnavailableError).error_detail).toBe('redis: MaxRetriesPerRequestError');
    } finally {
      cluster.disconnect();
      redis.disconnect();
    }
  });

  test('a caller-supplied client that never answers is bounded too', async () => {
    // a client whose commands never settle (no commandTimeout, a hung node)
    const hung = failingClient(undefined);
    (hung as unknown as { get: () => Promise<never> }).get = () => new Promise<never>(() => {});
    const bounded = createRedisAdapter({ client: hung, keyPrefix: 'p:' });
    const started = Date.now();
    const error = await bounded('Session').find('x').then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as StorageUnavailableError).error_detail).toBe('redis: timeout');
    // the calls under way are checked every 100 ms, each given its bound less one check
    expect(Date.now() - started).toBeGreaterThanOrEqual(BOUND_MS - 150);
    expect(Date.now() - started).toBeLessThan(BOUND_MS + 500);
  });

  test('calls under way share one deadline check instead of a timer each', async () => {
    const hung = failingClient(undefined, null);
    let answer: (() => void) | undefined;
    (hung as unknown as { get: () => Promise<null> }).get = () => new Promise<null>((resolve) => {
      const previous = answer;
      answer = () => { previous?.(); resolve(null); };
    });
    const adapter = createRedisAdapter({ client: hung, keyPrefix: 'p:' })('Session');
    const timeouts = jest.spyOn(globalThis, 'setTimeout');
    const intervals = jest.spyOn(globalThis, 'setInterval');
    const cleared = jest.spyOn(globalThis, 'clearInterval');
    try {
      const finds = Array.from({ length: 50 }, (_, i) => adapter.find(`id-${i}`));
      expect(timeouts).not.toHaveBeenCalled();
      expect(intervals).toHaveBeenCalledTimes(1);
      answer!();
      expect(await Promise.all(finds)).toEqual(Array.from({ length: 50 }, () => undefined));
      // with nothing under way, the check stops at its next turn
      await sleep(250);
      expect(cleared).toHaveBeenCalledTimes(1);
      expect(intervals).toHaveBeenCalledTimes(1);
    } finally {
      timeouts.mockRestore();
      intervals.mockRestore();
      cleared.mockRestore();
    }
  });
});

describe('redis adapter when a reply is lost with its connection', () => {
  // ioredis sends again, on the new connection, a command whose reply it never got: a
  // consume that Redis already ran found its own mark and was taken for a replay
  const clients: [string, (url: string) => { factory: ClosableAdapterFactory; client?: Redis }][] = [
    ['the adapter\'s own client', (url) => ({ factory: createRedisAdapter({ url, keyPrefix: freshPrefix(), logger: captureLogger() }) })],
    ['a client passed in with the README\'s settings', (url) => {
      const client = new Redis(url, README_CLIENT_OPTIONS);
      client.on('error', () => {});
      return { factory: createRedisAdapter({ client, keyPrefix: freshPrefix() }), client };
    }],
  ];

  test.each(clients)('%s: a code\'s consume is answered 503, not taken for a replay: the grant and its tokens stay', async (_name, open) => {
    const proxy = await replyLosingProxy(server.url);
    const { factory, client } = open(proxy.url);
    try {
      await factory('Grant').upsert('G', { accountId: 'a', clientId: 'c' }, 600);
      await factory('AccessToken').upsert('AT', { grantId: 'G', accountId: 'a' }, 600);
      await factory('AuthorizationCode').upsert('CODE', { grantId: 'G', accountId: 'a', clientId: 'c' }, 60);
      const codes = factory('AuthorizationCode') as unknown as { consumeAndKeep(id: string, keep: number): Promise<void> };

      proxy.loseNextReply();
      const error = await codes.consumeAndKeep('CODE', 600).then(() => undefined, (e: unknown) => e);
      expect(proxy.lost()).toBe(1);
      expect(error).toBeInstanceOf(StorageUnavailableError);

      // Redis ran it once: the code is consumed, nothing of the grant was revoked
      const grant = await eventually(() => factory('Grant').find('G'));
      expect(grant).toEqual({ accountId: 'a', clientId: 'c' });
      expect(await factory('AccessToken').find('AT')).toEqual({ grantId: 'G', accountId: 'a' });
      expect((await factory('AuthorizationCode').find('CODE'))?.consumed).toEqual(expect.any(Number));
    } finally {
      await factory.close();
      await client?.quit().catch(() => undefined);
      await proxy.close();
    }
  });

  test.each(clients)('%s: a refresh token\'s consume is answered 503, and its grant stays', async (_name, open) => {
    const proxy = await replyLosingProxy(server.url);
    const { factory, client } = open(proxy.url);
    try {
      await factory('Grant').upsert('G', { accountId: 'a', clientId: 'c' }, 600);
      await factory('RefreshToken').upsert('RT', { grantId: 'G', accountId: 'a' }, 600);
      proxy.loseNextReply();
      await expect(factory('RefreshToken').consume('RT')).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(await eventually(() => factory('Grant').find('G'))).toEqual({ accountId: 'a', clientId: 'c' });
    } finally {
      await factory.close();
      await client?.quit().catch(() => undefined);
      await proxy.close();
    }
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
