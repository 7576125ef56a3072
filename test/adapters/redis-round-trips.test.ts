/**
 * What the Redis adapter sends per request on a single Redis: one command per record write
 * (a script instead of MULTI/SET/index/EXEC) and one per token read (the token and its grant
 * together), counted with MONITOR; and the boundary of the grant read with a token, which
 * must never answer a later request.
 */
import { hash, randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';
import type { ClosableAdapterFactory, PutRecords } from '../../adapters/types.ts';
import type { TraceEntry } from '../../lib/trace/entry.ts';
import { ClientTraceStore } from '../../lib/trace/store.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, obtainCode, obtainTokens, operator } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const turn = () => new Promise((resolve) => setImmediate(resolve));

let server: RedisHandle;

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

/** Top-level commands the server received while `run` ran (not those a script issued). */
async function commandsDuring(run: () => Promise<unknown>): Promise<string[]> {
  return (await argsDuring(run)).map(([name]) => name!);
}

/** The same, each with its arguments; a script's name is `script`. */
async function argsDuring(run: () => Promise<unknown>): Promise<string[][]> {
  // a client of its own in monitor mode, not `connection.monitor()`: that promise rejects
  // ("Command queue state error") when a feed line comes in the same read as MONITOR's OK,
  // and leaves both clients connected; once afterAll stops the server they reconnect forever
  // and their timers keep the jest worker from exiting
  const monitor = new Redis(server.url, { monitor: true, retryStrategy: () => null });
  const seen: string[][] = [];
  try {
    // feed lines that answer nothing (one read with MONITOR's OK, or arriving while the
    // monitor disconnects): ioredis reports each as a "Command queue state error"
    monitor.on('error', () => {});
    await new Promise((resolve, reject) => {
      monitor.once('monitoring', resolve);
      monitor.once('end', () => reject(new Error('the MONITOR connection ended before monitoring')));
    });
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // a script's first run may go as EVAL (ioredis loads it), later ones as EVALSHA
      const name = args[0]!.toLowerCase();
      // the eviction check of a client connecting meanwhile (warnIfEvicting) is no command of `run`
      if (name === 'info') return;
      if (!source.includes('lua')) seen.push([name === 'eval' || name === 'evalsha' ? 'script' : name, ...args.slice(1)]);
    });
    await sleep(50);
    await run();
    await sleep(100);
  } finally {
    monitor.disconnect();
  }
  return seen;
}

/** A command as `script <model of its first key>` (a script) or its name: which record a script is about. */
function scriptOf(args: string[]): string {
  if (args[0] !== 'script') return args[0]!;
  // EVALSHA sha numkeys key… (EVAL: the body instead of the sha); the key: prefix:Model:{id}
  const model = /:([A-Za-z]+):\{/.exec(args[3] ?? '')?.[1];
  return `script ${model ?? '?'}`;
}

/** The refresh's commands: its token read (its grant's refresh count in it), then its writes in one script. */
const REFRESH_COMMANDS = ['script RefreshToken', 'script RefreshToken'];

describe('redis adapter: commands per operation (single Redis)', () => {
  let factory: ClosableAdapterFactory;
  let prefix: string;

  beforeEach(() => {
    prefix = `rt:${randomUUID()}:`;
    factory = createRedisAdapter({ url: server.url, keyPrefix: prefix });
  });

  afterEach(async () => {
    await factory.close();
  });

  test('a token with a grant index, a uid and a TTL is written in one command', async () => {
    const tokens = factory('AccessToken');
    await tokens.find('warm-up');
    const seen = await commandsDuring(() => tokens.upsert('t1', { grantId: 'g1', uid: 'u1', accountId: 'a' }, 60));
    expect(seen).toEqual(['script']);
    expect(await tokens.find('t1')).toMatchObject({ grantId: 'g1', uid: 'u1' });
    expect(await tokens.findByUid('u1')).toMatchObject({ grantId: 'g1' });
    // the index written by the same script still revokes it
    await tokens.revokeByGrantId('g1');
    expect(await tokens.find('t1')).toBeUndefined();
  });

  test('a record is destroyed with its indexes in one command; an index that names a newer record stays', async () => {
    const tokens = factory('AccessToken');
    const sessions = factory('Session');
    await tokens.upsert('t-d', { grantId: 'g-d', uid: 'u-d' }, 60);
    await tokens.upsert('t-other', { grantId: 'g-d' }, 60);
    // a session whose uid was taken over by a newer id (Session.resetIdentifier)
    await sessions.upsert('s-old', { uid: 'su' }, 60);
    await sessions.upsert('s-new', { uid: 'su' }, 60);
    // before: a GET for the indexes the record names, then MULTI, DEL, the index deletions, EXEC
    expect(await commandsDuring(() => tokens.destroy('t-d'))).toEqual(['script']);
    expect(await commandsDuring(() => sessions.destroy('s-old'))).toEqual(['script']);
    const probe = new Redis(server.url);
    try {
      expect(await probe.exists(`${prefix}AccessToken:{${keyIdOf('AccessToken', 't-d')}}`, `${prefix}index:uid:AccessToken:{u-d}`)).toBe(0);
      expect(await probe.smembers(`${prefix}index:grant:{g-d}`)).toEqual([`${prefix}AccessToken:{${keyIdOf('AccessToken', 't-other')}}`]);
      expect(await sessions.findByUid('su')).toEqual({ uid: 'su' });
      expect(await probe.get(`${prefix}index:uid:Session:{su}`)).toBe('s-new');
      // a record that is not JSON is deleted all the same; an absent one is nothing to do
      await probe.set(`${prefix}Session:{s-bad}`, 'not json');
      await sessions.destroy('s-bad');
      expect(await probe.exists(`${prefix}Session:{s-bad}`)).toBe(0);
      await expect(sessions.destroy('s-absent')).resolves.toBeUndefined();
    } finally {
      probe.disconnect();
    }
  });

  test('a lookup by uid or user code is one command; an entry whose record changed finds nothing', async () => {
    const sessions = factory('Session');
    const devices = factory('DeviceCode');
    await sessions.upsert('s1', { uid: 'su1', accountId: 'a' }, 60);
    await devices.upsert('d1', { userCode: 'UC-1', grantId: 'g-uc' }, 60);
    let found: unknown[] = [];
    // before: a GET of the index entry, then a GET of the record it names
    const seen = await commandsDuring(async () => {
      found = [await sessions.findByUid('su1'), await devices.findByUserCode('UC-1')];
    });
    expect(seen).toEqual(['script', 'script']);
    expect(found).toEqual([{ uid: 'su1', accountId: 'a' }, { userCode: 'UC-1', grantId: 'g-uc' }]);
    // the record behind an entry now has another uid: the stale entry answers nothing
    await sessions.upsert('s1', { uid: 'su2', accountId: 'a' }, 60);
    expect(await sessions.findByUid('su1')).toBeUndefined();
    expect(await sessions.findByUid('su2')).toEqual({ uid: 'su2', accountId: 'a' });
    expect(await sessions.findByUid('none')).toBeUndefined();
    // an entry whose record is gone
    const probe = new Redis(server.url);
    try {
      await probe.del(`${prefix}DeviceCode:{d1}`);
    } finally {
      probe.disconnect();
    }
    expect(await devices.findByUserCode('UC-1')).toBeUndefined();
  });

  test('the records written in one turn go out as one command, after what was asked before them', async () => {
    const access = factory('AccessToken');
    const refresh = factory('RefreshToken');
    await access.find('warm-up');
    const seen = await commandsDuring(() => Promise.all([
      access.upsert('a1', { grantId: 'g2', accountId: 'acc' }, 60),
      refresh.upsert('r1', { grantId: 'g2', uid: 'u2' }, 120),
      access.upsert('a2', { accountId: 'acc' }),
    ]));
    expect(seen).toEqual(['script']);
    expect(await access.find('a1')).toEqual({ grantId: 'g2', accountId: 'acc' });
    expect(await refresh.findByUid('u2')).toEqual({ grantId: 'g2', uid: 'u2' });
    expect(await access.find('a2')).toEqual({ accountId: 'acc' });
    const probe = new Redis(server.url);
    try {
      expect(await probe.ttl(`${prefix}RefreshToken:{${keyIdOf('RefreshToken', 'r1')}}`)).toBeGreaterThan(60);
      expect(await probe.ttl(`${prefix}AccessToken:{${keyIdOf('AccessToken', 'a2')}}`)).toBe(-1);
    } finally {
      probe.disconnect();
    }
    // both indexed by their grant, in the one script
    await access.revokeByGrantId('g2');
    expect(await access.find('a1')).toBeUndefined();
    expect(await refresh.find('r1')).toBeUndefined();

    // a write asked for in the turn that closes the adapter still lands
    const closing = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    await closing('Session').find('warm-up');
    const written = closing('Session').upsert('last', { at: 1 }, 60);
    await Promise.all([written, closing.close()]);
    expect(await factory('Session').find('last')).toEqual({ at: 1 });

    // a read asked for after a write of the same turn is sent after it, and sees it
    const [, read] = await Promise.all([access.upsert('a3', { accountId: 'b' }, 60), access.find('a3')]);
    expect(read).toEqual({ accountId: 'b' });
  });

  test('a grant revoked for each model in a row is one command; a command in between starts another', async () => {
    const models = ['AccessToken', 'AuthorizationCode', 'RefreshToken'].map((name) => factory(name));
    await models[0]!.upsert('t-g3', { grantId: 'g3' }, 60);
    await models[2]!.upsert('r-g3', { grantId: 'g3' }, 60);
    // as oidc-provider's revoke helper does: every model's revokeByGrantId, at once
    const seen = await commandsDuring(() => Promise.all(models.map((m) => m.revokeByGrantId('g3'))));
    expect(seen).toEqual(['script']);
    expect(await models[0]!.find('t-g3')).toBeUndefined();
    expect(await models[2]!.find('r-g3')).toBeUndefined();

    // a record written between two revocations of its grant is deleted by the second
    const [, , , after] = await Promise.all([
      models[0]!.revokeByGrantId('g4'),
      models[0]!.upsert('t-g4', { grantId: 'g4' }, 60),
      models[2]!.revokeByGrantId('g4'),
      Promise.resolve().then(() => models[0]!.find('t-g4')),
    ]);
    expect(after).toBeUndefined();
  });

  test('records asked for before a grant\'s revocation go in its command, first', async () => {
    const access = factory('AccessToken');
    const kept = factory('RevokedAccessToken');
    const { putRecords } = factory as unknown as PutRecords;
    await access.upsert('t-g5', { grantId: 'g5' }, 60);
    const seen = await commandsDuring(async () => {
      // as a revocation does: what is left of the token asked for, then its grant revoked
      const written = putRecords([{ model: 'RevokedAccessToken', id: 'h-g5', payload: { clientId: 'c' }, expiresIn: 60 }]);
      await Promise.all([written, access.revokeByGrantId('g5')]);
    });
    expect(seen).toEqual(['script']);
    expect(await access.find('t-g5')).toBeUndefined();
    expect(await kept.find('h-g5')).toEqual({ clientId: 'c' });

    // written first: a record of the revoked grant asked for before it is deleted with it
    await Promise.all([access.upsert('t-g6', { grantId: 'g6' }, 60), access.revokeByGrantId('g6')]);
    expect(await access.find('t-g6')).toBeUndefined();

    // a revocation that fails fails the writes it carried
    const failing = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    const failingAccess = failing('AccessToken');
    await failingAccess.find('warm-up');
    await failing.close();
    const outcomes = await Promise.allSettled([
      (failing as unknown as PutRecords).putRecords([{ model: 'RevokedAccessToken', id: 'h-g7', payload: {}, expiresIn: 60 }]),
      failingAccess.revokeByGrantId('g7'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  test('a token and its grant are read in one command; the grant read serves only this turn', async () => {
    const tokens = factory('RefreshToken');
    const grants = factory('Grant');
    await grants.upsert('g2', { accountId: 'a', clientId: 'c' }, 60);
    await tokens.upsert('t2', { grantId: 'g2', accountId: 'a' }, 60);

    const seen = await commandsDuring(async () => {
      const token = await tokens.find('t2');
      // oidc-provider's next read, with no I/O in between
      expect(await grants.find(token!.grantId as string)).toMatchObject({ clientId: 'c' });
    });
    expect(seen).toEqual(['script']);

    // read with the token, then revoked by another instance: a later turn reads Redis again
    await tokens.find('t2');
    const other = createRedisAdapter({ url: server.url, keyPrefix: prefix });
    try {
      await other('Grant').destroy('g2');
    } finally {
      await other.close();
    }
    await turn();
    expect(await grants.find('g2')).toBeUndefined();
  });

  test('a token, its grant and the grant\'s context are read in one command; a revoked grant\'s context is not served', async () => {
    const tokens = factory('AccessToken');
    const grants = factory('Grant');
    const contexts = factory('GrantContext');
    await grants.upsert('g5', { accountId: 'a', clientId: 'c' }, 60);
    await contexts.upsert('g5', { grantId: 'g5', orgId: 'site-1' }, 60);
    await tokens.upsert('t5', { grantId: 'g5', accountId: 'a' }, 60);
    await grants.upsert('g6', { accountId: 'a', clientId: 'c' }, 60);
    await tokens.upsert('t6', { grantId: 'g6', accountId: 'a' }, 60);

    const seen = await commandsDuring(async () => {
      const token = await tokens.find('t5');
      // the token's claims read the site of an operator or MCP client's grant next
      expect(await grants.find(token!.grantId as string)).toMatchObject({ clientId: 'c' });
      expect(await contexts.find(token!.grantId as string)).toEqual({ grantId: 'g5', orgId: 'site-1' });
      // a member client's grant has none: read as absent, from the same command
      await tokens.find('t6');
      expect(await contexts.find('g6')).toBeUndefined();
    });
    expect(seen).toEqual(['script', 'script']);

    await tokens.find('t5');
    await tokens.revokeByGrantId('g5');
    expect(await contexts.find('g5')).toBeUndefined();
  });

  test('the reads asked for in one turn go out as one command; each sees the writes asked for before it, none after', async () => {
    const access = factory('AccessToken');
    const refresh = factory('RefreshToken');
    const grants = factory('Grant');
    const links = factory('AccountGrantLink');
    await grants.upsert('g7', { accountId: 'a', clientId: 'c' }, 60);
    await access.upsert('t7', { grantId: 'g7', accountId: 'a' }, 60);
    await links.upsert('g7', { accountId: 'a', exp: 1 }, 60);

    let found: unknown[] = [];
    const seen = await argsDuring(async () => {
      // as oidc-provider's introspection without a hint: the token as either kind at once
      found = await Promise.all([access.find('t7'), refresh.find('t7'), links.find('g7'), links.find('absent')]);
      // the token's grant came with it: no command of its own
      expect(await grants.find('g7')).toMatchObject({ clientId: 'c' });
    });
    expect(found).toEqual([{ grantId: 'g7', accountId: 'a' }, undefined, { accountId: 'a', exp: 1 }, undefined]);
    expect(seen.map(([name]) => name)).toEqual(['script']);
    expect(seen[0]!.filter((arg) => arg.startsWith(prefix))).toEqual([
      `${prefix}AccessToken:{${keyIdOf('AccessToken', 't7')}}`, `${prefix}RefreshToken:{${keyIdOf('RefreshToken', 't7')}}`, `${prefix}AccountGrantLink:{g7}`, `${prefix}AccountGrantLink:{absent}`, prefix,
    ]);

    // alone, a read is the command it always was
    expect(await commandsDuring(() => links.find('g7'))).toEqual(['get']);

    // a read asked for before a write of the same turn does not see it; one asked for after does
    await links.upsert('g8', { accountId: 'a', exp: 1 }, 60);
    const [before, , after] = await Promise.all([
      links.find('g8'), links.upsert('g8', { accountId: 'a', exp: 2 }, 60), links.find('g8'),
    ]);
    expect(before).toEqual({ accountId: 'a', exp: 1 });
    expect(after).toEqual({ accountId: 'a', exp: 2 });

    // a failed batch fails each of its reads as storage being unavailable
    const client = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    await new Promise((resolve) => client.once('ready', resolve));
    const failing = createRedisAdapter({ client, keyPrefix: prefix });
    client.disconnect();
    const outcomes = await Promise.allSettled([failing('AccessToken').find('t7'), failing('AccountGrantLink').find('g7')]);
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as Error).name)).toEqual(['StorageUnavailableError', 'StorageUnavailableError']);
  });

  test('a grant destroyed in the same turn is not served from the token read', async () => {
    const tokens = factory('AccessToken');
    const grants = factory('Grant');
    await grants.upsert('g3', { accountId: 'a' }, 60);
    await tokens.upsert('t3', { grantId: 'g3' }, 60);
    await tokens.find('t3');
    await grants.destroy('g3');
    expect(await grants.find('g3')).toBeUndefined();
    await tokens.find('t3');
    await tokens.revokeByGrantId('g3');
    expect(await grants.find('g3')).toBeUndefined();
  });

  test('records of several models are written in one command, with their TTLs', async () => {
    const put = (factory as unknown as PutRecords).putRecords;
    const seen = await commandsDuring(() => put([
      { model: 'RefreshToken', id: 'r1', payload: { grantId: 'g9', rotatedAt: 1 }, expiresIn: 60 },
      { model: 'RefreshTokenUse', id: 'p9', payload: { grantId: 'g9' } },
      { model: 'RefreshToken', id: 'gone', payload: { grantId: 'g9' }, expiresIn: 0 },
    ]));
    expect(seen.filter((c) => c === 'script')).toHaveLength(1);
    expect(await factory('RefreshToken').find('r1')).toEqual({ grantId: 'g9', rotatedAt: 1 });
    expect(await factory('RefreshTokenUse').find('p9')).toEqual({ grantId: 'g9' });
    expect(await factory('RefreshToken').find('gone')).toBeUndefined();
    const inspect = new Redis(server.url);
    try {
      expect(await inspect.ttl(`${prefix}RefreshToken:{${keyIdOf('RefreshToken', 'r1')}}`)).toBeGreaterThan(50);
      expect(await inspect.ttl(`${prefix}RefreshTokenUse:{p9}`)).toBe(-1);
    } finally {
      inspect.disconnect();
    }
  });

  test('a trace append is one command carrying only the new entries; a read sends the list and record reads together', async () => {
    const store = new ClientTraceStore({ adapter: factory, entries: 50, ttlSeconds: 60 });
    const entry = (n: number): TraceEntry => ({ at: new Date(1_700_000_000_000 + n).toISOString(), event: 'refresh.rotated', outcome: 'ok', summary: `entry-${n}` });
    await store.append('popular-app', Array.from({ length: 40 }, (_, n) => entry(n)));
    const seen = await argsDuring(() => store.append('popular-app', [entry(40)]));
    // no read of the trace, no compare-and-set of the whole of it
    expect(seen.map(([name]) => name)).toEqual(['script']);
    const sent = seen[0]!.join(' ');
    expect(sent).toContain('entry-40');
    expect(sent).not.toContain('entry-39');
    // the list and the record an older version would have written, together
    const reads = await commandsDuring(async () => {
      expect((await store.read('popular-app')).map((e) => e.summary).slice(0, 2)).toEqual(['entry-40', 'entry-39']);
    });
    expect(reads.sort()).toEqual(['get', 'lrange']);
  });

  test('a write of the list of traced clients is one command carrying only the clients given', async () => {
    const store = new ClientTraceStore({ adapter: factory, entries: 50, ttlSeconds: 60 });
    const client = (n: number) => ({ clientId: `app-${n}`, at: new Date(1_700_000_000_000 + n).toISOString(), outcome: 'ok' as const, summary: `summary-${n}` });
    await store.touch(Array.from({ length: 100 }, (_, n) => client(n)));
    const seen = await argsDuring(() => store.touch([client(100)]));
    expect(seen.map(([name]) => name)).toEqual(['script']);
    const sent = seen[0]!.join(' ');
    expect(sent).toContain('summary-100');
    expect(sent).not.toContain('summary-99');
    expect((await store.tracedClients()).map((c) => c.clientId).slice(0, 2)).toEqual(['app-100', 'app-99']);
  });

  test('a grant revoked while its token read was on its way is not served from that read', async () => {
    const tokens = factory('AccessToken');
    const grants = factory('Grant');
    for (const round of [1, 2, 3, 4, 5]) {
      const grantId = `g-late-${round}`;
      await grants.upsert(grantId, { accountId: 'a' }, 60);
      await tokens.upsert(`t-late-${round}`, { grantId }, 60);
      // the read goes out first; the revocation after it; both replies may come in one socket read
      const reading = tokens.find(`t-late-${round}`);
      await tokens.revokeByGrantId(grantId);
      expect(await grants.find(grantId)).toBeUndefined();
      await reading;
    }
    // and a read asked for after a write sees it, and serves it
    await grants.upsert('g-after', { accountId: 'b' }, 60);
    await tokens.upsert('t-after', { grantId: 'g-after' }, 60);
    await tokens.find('t-after');
    const seen = await commandsDuring(async () => {
      await tokens.find('t-after');
      expect(await grants.find('g-after')).toEqual({ accountId: 'b' });
    });
    expect(seen).toEqual(['script']);
  });

  test('a token whose grant is gone reads as the token, and the grant as absent', async () => {
    const tokens = factory('AccessToken');
    const grants = factory('Grant');
    await tokens.upsert('t4', { grantId: 'missing-grant' }, 60);
    expect(await tokens.find('t4')).toMatchObject({ grantId: 'missing-grant' });
    expect(await grants.find('missing-grant')).toBeUndefined();
    expect(await tokens.find('nope')).toBeUndefined();
  });
});

describe('a refresh and a code exchange on a single Redis', () => {
  let app: RunningApp;
  let factory: ClosableAdapterFactory;

  beforeAll(async () => {
    factory = createRedisAdapter({ url: server.url, keyPrefix: `rt-app:${randomUUID()}:` });
    // diagnostics off: their trace appends are batched per client (lib/trace/recorder.ts), not per request
    app = await startApp({ auth: { adapter: factory, events: false } });
  });

  afterAll(async () => {
    await app?.stop();
    await factory?.close();
  });

  test('costs two commands: a read that counts the refresh, then the rotation with both new tokens in one script', async () => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    let status = 0;
    let body: { refresh_token?: string } = {};
    const seen = await argsDuring(async () => {
      const response = await fetch(`${app.baseUrl}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: MEMBER.clientId }),
      });
      status = response.status;
      body = await response.json() as { refresh_token?: string };
    });
    expect(status).toBe(200);
    // the one script left both in place: the presented token marked, its successor stored
    expect(await factory('RefreshToken').find(tokens.refresh_token!)).toMatchObject({ rotatedAt: expect.any(Number) });
    expect(await factory('RefreshToken').find(body.refresh_token!)).toMatchObject({ rotations: 1 });
    // before: 2 GET and three MULTI/SET/EVALSHA/EXEC blocks plus a SET, 15 commands; then
    // 5, with the access and the refresh token written by a command each; then 4, with the
    // rotation (mark and generation's use) a command of its own before the successor's; then
    // 3, with the access token written after the successor's confirmed write; then 2, with the
    // access token asked for in the same turn. The grant's refresh count (refreshTokenRateLimit)
    // is made by the read's script: a command of its own cost a refresh 14% on Redis
    expect(seen.map(scriptOf)).toEqual(REFRESH_COMMANDS);
    const grantId = (await factory('RefreshToken').find(body.refresh_token!))!.grantId as string;
    expect(await factory('RefreshRate').find(grantId)).toEqual({ tat: expect.any(Number) });
    // a successor's rotation also records that a successor of its predecessor was used: in the same script
    let next: { refresh_token?: string } = {};
    const again = await argsDuring(async () => {
      const response = await fetch(`${app.baseUrl}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: body.refresh_token!, client_id: MEMBER.clientId }),
      });
      next = await response.json() as { refresh_token?: string };
    });
    expect(next.refresh_token).toEqual(expect.any(String));
    expect(await factory('RefreshTokenUse').find(hash('sha256', tokens.refresh_token!, 'base64url').slice(0, 22))).toBeDefined();
    expect(again.map(scriptOf)).toEqual(REFRESH_COMMANDS);
  });

  test('an operator client\'s refresh, whose access token reads its grant\'s site, is two commands too', async () => {
    const op = operator(app.baseUrl, app.operatorSecret);
    const tokens = await obtainTokens(app.baseUrl, op, { scope: 'openid courses:read', resource: app.baseUrl }, ADMIN);
    let status = 0;
    const seen = await argsDuring(async () => {
      const response = await fetch(`${app.baseUrl}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: op.clientId, client_secret: op.clientSecret }),
      });
      status = response.status;
      await response.text();
    });
    expect(status).toBe(200);
    // the grant's context comes with the token's read (a GET of its own split the write in two);
    // a count awaited between the read and the rotation cost a GET of the context for the site
    // check and another for the access token, and split the writes: six commands
    expect(seen.map(scriptOf)).toEqual(REFRESH_COMMANDS);
  });

  test('a revocation writes what is left of the token in the command that revokes its grant', async () => {
    // diagnostics on (they are what keeps the record)
    const withEvents = await startApp({ auth: { adapter: factory } });
    try {
      const issued = await obtainTokens(withEvents.baseUrl, MEMBER, { scope: 'openid account:read', resource: withEvents.baseUrl }, STUDENT);
      let status = 0;
      const seen = await argsDuring(async () => {
        const response = await fetch(`${withEvents.baseUrl}/api/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: issued.access_token, token_type_hint: 'access_token', client_id: MEMBER.clientId }),
        });
        status = response.status;
        await response.text();
      });
      expect(status).toBe(200);
      const mentions = (model: string) => seen.filter((args) => args.some((a) => a.includes(`:${model}:{`)));
      // one command carries the record and the grant's revocation; before, the record was a command of its own
      const kept = mentions('RevokedAccessToken');
      expect(kept).toHaveLength(1);
      expect(kept[0]!.some((a) => a.includes(':index:grant:{'))).toBe(true);
      // the token's read (with its grant), then that command, which deletes the token with
      // every other record of its grant (lib/provider/revoked-with-grant.ts: the token's own
      // deletion was a command of its own before it, and before that a GET and a MULTI); the
      // trace's writes (the client's list, the list of traced clients) are batched apart
      const forRequest = seen.filter((args) => !args.some((a) => a.includes('ClientTrace')));
      expect(forRequest.map(([name]) => name)).toEqual(['script', 'script']);
      // written by then, under the token's hash
      expect(await factory('RevokedAccessToken').find(hash('sha256', issued.access_token, 'base64url'))).toMatchObject({ clientId: MEMBER.clientId });
    } finally {
      await withEvents.stop();
    }
  });

  test('an introspection without a hint is one command: the token read as both kinds at once, with its grant', async () => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    const introspect = async (token: string) => {
      const response = await fetch(`${app.baseUrl}/api/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: MEMBER.clientId }),
      });
      return { status: response.status, body: await response.json() as { active?: boolean; token_type?: string } };
    };
    const cases = [[tokens.access_token, { token_type: 'Bearer' }], [tokens.refresh_token!, { scope: 'openid account:read' }]] as const;
    for (const [token, type] of cases) {
      let answer: Awaited<ReturnType<typeof introspect>> | undefined;
      const seen = await argsDuring(async () => {
        answer = await introspect(token);
      });
      expect(answer).toMatchObject({ status: 200, body: { active: true, ...type } });
      // oidc-provider looks an opaque token up as an access and as a refresh token at once:
      // two commands before the store sent the reads of a turn together
      expect(seen.map(([name]) => name)).toEqual(['script']);
      expect(seen[0]!.filter((arg) => arg.includes(keyIdOf('AccessToken', token)))).toHaveLength(2);
      // under the token's hash (adapters/redis-keys.ts): the command never holds the token
      expect(seen[0]!.filter((arg) => arg.includes(token))).toEqual([]);
    }
  });

  test('a code exchange consumes the code and keeps it for replay detection in one command', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    let status = 0;
    const seen = await commandsDuring(async () => {
      const response = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
      status = response.status;
      await response.text();
    });
    expect(status).toBe(200);
    // the code's read with its grant, its consume-and-keep, the two tokens' write, the grant's
    // last use; before, six: the consume, a read and a write again instead of the one
    expect(seen.filter((c) => c !== 'multi' && c !== 'exec')).toEqual(seen);
    expect(seen.length).toBeLessThanOrEqual(4);
  });
});

describe('the sign-in and consent pages on a single Redis', () => {
  let app: RunningApp;
  let factory: ClosableAdapterFactory;

  beforeAll(async () => {
    factory = createRedisAdapter({ url: server.url, keyPrefix: `rt-pages:${randomUUID()}:` });
    app = await startApp({ auth: { adapter: factory, events: false } });
  });

  afterAll(async () => {
    await app?.stop();
    await factory?.close();
  });

  /** Posts the page's form (no redirect followed) while MONITOR watches; the commands and the answer. */
  async function submitWatched(browser: Browser, page: PageResult, actionSuffix: string, fields: Record<string, string> = {}) {
    const form = findForm(page.html, actionSuffix);
    let location = '';
    let status = 0;
    const seen = await argsDuring(async () => {
      const response = await browser.request(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form.hidden, ...fields }).toString(),
      });
      status = response.status;
      location = response.headers.get('location') ?? '';
      await response.text();
    });
    return { seen, status, location };
  }

  const reads = (seen: string[][], model: string) => seen.filter(([name, key]) => name === 'get' && key!.includes(`:${model}:{`));
  // a session is found by uid with one script naming the model (adapters/redis.ts, findByUid)
  const sessionLookups = (seen: string[][]) => seen.filter(([name, ...args]) => name === 'script' && args.includes('Session'));

  test('a sign-in and a consent each read the interaction once: the result is saved on it, not read again', async () => {
    const browser = new Browser(app.baseUrl);
    const { verifier, challenge } = pkcePair();
    const signInPage = await browser.navigate(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl, challenge, state: randomState() }));
    if (!isPage(signInPage)) throw new Error('expected the sign-in page');

    const login = await submitWatched(browser, signInPage, '/login', { email: STUDENT.email, password: STUDENT.password });
    expect(login.status).toBe(303);
    // before: read by interactionDetails, then again by interactionResult
    expect(reads(login.seen, 'Interaction')).toHaveLength(1);

    const consentPage = await browser.navigate(login.location);
    if (!isPage(consentPage)) throw new Error('expected the consent page');
    const consent = await submitWatched(browser, consentPage, '/confirm');
    expect(consent.status).toBe(303);
    // before: the interaction and its session read twice each
    expect(reads(consent.seen, 'Interaction')).toHaveLength(1);
    expect(sessionLookups(consent.seen)).toHaveLength(1);

    // the results saved that way finish the flow: a code, and tokens for it
    const done = await browser.navigate(consent.location);
    if (isPage(done)) throw new Error(`expected the redirect to the client, got a page (${done.response.status})`);
    const code = new URL(done.redirect).searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const tokens = await exchangeCode(app.baseUrl, MEMBER, code!, verifier, app.baseUrl);
    expect(tokens.status).toBe(200);
  });
});

describe('a refresh on a second instance (same Redis, same issuer), which did not see the consent', () => {
  let first: RunningApp;
  let second: RunningApp;
  let factory: ClosableAdapterFactory;

  beforeAll(async () => {
    factory = createRedisAdapter({ url: server.url, keyPrefix: `rt2-app:${randomUUID()}:` });
    first = await startApp({ auth: { adapter: factory, events: false } });
    second = await startApp({ baseUrl: first.baseUrl, auth: { adapter: factory, events: false } });
  });

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await factory?.close();
  });

  test('costs the token its two commands, as on the first; the grant\'s chain is looked at once, after them', async () => {
    const tokens = await obtainTokens(first.baseUrl, MEMBER, { scope: 'openid account:read', resource: first.baseUrl }, STUDENT);
    const origin = `http://127.0.0.1:${second.port}`;
    const refresh = async (token: string) => {
      const response = await fetch(`${origin}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId }),
      });
      expect(response.status).toBe(200);
      return (await response.json() as { refresh_token: string }).refresh_token;
    };
    let next = '';
    const named = (args: string[]) => (args[0] === 'script' ? scriptOf(args) : `${args[0]} ${args[1]!.replace(/^.*?:[0-9a-f-]{36}:/, '').replace(/\{.*$/, '')}`);
    const firstSeen = await argsDuring(async () => {
      next = await refresh(tokens.refresh_token!);
    });
    // the token's read and its writes; then, not waited for, this instance looks whether the
    // grant is in its account's chain (GrantIndex.adopt): found, it asks no more
    expect(firstSeen.map(named)).toEqual([...REFRESH_COMMANDS, 'get AccountGrantLink:']);
    const secondSeen = await argsDuring(async () => {
      await refresh(next);
    });
    expect(secondSeen.map(named)).toEqual(REFRESH_COMMANDS);
  });
});
