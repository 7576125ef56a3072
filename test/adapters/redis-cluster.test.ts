/**
 * The Redis adapter on a real Redis Cluster (3 masters, spawned on free loopback ports):
 * the whole storage contract through an ioredis `Cluster` client with the settings the
 * README recommends (auto-pipelining on), without a single CROSSSLOT, and with a grant's
 * records spread over several nodes, which is what the Cluster code path of the adapter
 * (separate commands instead of MULTI, revocation outside Lua) is for.
 */
import { randomUUID } from 'node:crypto';

import type { Cluster } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import { keyIdOf } from '../../adapters/redis-keys.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { CappedList, LatestByMember } from '../../adapters/types.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { replyLosingProxy } from '../support/reply-losing-proxy.ts';
import { describeAdapterContract } from './contract.ts';

const freshPrefix = () => `platform-auth-test:${randomUUID()}:`;

let cluster: ClusterHandle;
let client: Cluster;

/** Sum of one error counter (`INFO errorstats`, e.g. CROSSSLOT) over every master. */
async function errorCount(kind: string): Promise<number> {
  const counts = await Promise.all((await cluster.masters()).map(async (port) => {
    const stats = await cluster.cli(port, 'info', 'errorstats');
    return Number(new RegExp(`errorstat_${kind}:count=(\\d+)`).exec(stats)?.[1] ?? 0);
  }));
  return counts.reduce((a, b) => a + b, 0);
}

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  client = await connectCluster(cluster);
  expect(await errorCount('CROSSSLOT')).toBe(0);
}, 60_000);

afterAll(async () => {
  await client?.quit().catch(() => client.disconnect());
  await cluster?.stop();
});

describeAdapterContract('redis cluster', async () => {
  const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
  return { factory, teardown: () => factory.close() };
});

describe('redis adapter on a Cluster', () => {
  test("a grant's records spread over several masters are all revoked; the grant index shares the Grant record's slot", async () => {
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ client, keyPrefix: prefix });
    const grantId = randomUUID();
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await factory('Grant').upsert(grantId, { jti: grantId }, 60);
    await Promise.all(ids.map((id, i) => factory(i % 2 ? 'AccessToken' : 'RefreshToken').upsert(id, { grantId }, 60)));

    const slotOf = (key: string) => client.cluster('KEYSLOT', key) as Promise<number>;
    const slots = new Set(await Promise.all(ids.map((id, i) => { const model = i % 2 ? 'AccessToken' : 'RefreshToken'; return slotOf(`${prefix}${model}:{${keyIdOf(model, id)}}`); })));
    expect(slots.size).toBeGreaterThan(1);
    expect(await slotOf(`${prefix}index:grant:{${grantId}}`)).toBe(await slotOf(`${prefix}Grant:{${grantId}}`));
    // the records really are on different nodes
    const perMaster = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
    expect(perMaster.filter((n) => n > 0).length).toBeGreaterThan(1);

    await factory('AccessToken').revokeByGrantId(grantId);
    const left = await Promise.all(ids.map((id, i) => factory(i % 2 ? 'AccessToken' : 'RefreshToken').find(id)));
    expect(left.filter(Boolean)).toHaveLength(0);
    expect(await factory('Grant').find(grantId)).toBeUndefined();
    expect(await client.exists(`${prefix}index:grant:{${grantId}}`)).toBe(0);
  });

  test('a replayed consume on a Cluster revokes the grant outside Lua and keeps the replayed code', async () => {
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    const grantId = randomUUID();
    const code = randomUUID();
    const tokens = Array.from({ length: 10 }, () => randomUUID());
    await factory('AuthorizationCode').upsert(code, { grantId }, 60);
    await Promise.all(tokens.map((id) => factory('AccessToken').upsert(id, { grantId }, 60)));
    await factory('AuthorizationCode').consume(code);
    const racers = await Promise.allSettled(Array.from({ length: 5 }, () => factory('AuthorizationCode').consume(code)));
    expect(racers.every((r) => r.status === 'rejected' && (r.reason as { error?: string }).error === 'invalid_grant')).toBe(true);
    expect((await Promise.all(tokens.map((id) => factory('AccessToken').find(id)))).filter(Boolean)).toHaveLength(0);
    expect((await factory('AuthorizationCode').find(code))?.consumed).toEqual(expect.any(Number));
  });

  test('capped lists of clients spread over several masters: one script each, newest first, trimmed', async () => {
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    const traces = factory('ClientTrace') as ReturnType<typeof factory> & CappedList;
    const ids = Array.from({ length: 6 }, () => randomUUID());
    await Promise.all(ids.map(async (id) => {
      await traces.pushCapped(id, [{ n: 1 }, { n: 2 }], 3, 60);
      await traces.pushCapped(id, [{ n: 3 }, { n: 4 }], 3, 60);
    }));
    for (const id of ids) expect(await traces.readCapped(id)).toEqual([{ n: 4 }, { n: 3 }, { n: 2 }]);
  });

  test('latest-by-member indexes on several masters: both keys of one index in one slot, one script', async () => {
    const factory = createRedisAdapter({ client, keyPrefix: freshPrefix() });
    const index = factory('ClientTraceIndex') as ReturnType<typeof factory> & LatestByMember;
    const ids = Array.from({ length: 6 }, () => randomUUID());
    await Promise.all(ids.map(async (id) => {
      await index.putLatest(id, [{ member: 'a', at: 1, payload: { n: 1 } }, { member: 'b', at: 2, payload: { n: 2 } }], 2, 60);
      await index.putLatest(id, [{ member: 'c', at: 3, payload: { n: 3 } }], 2, 60);
    }));
    for (const id of ids) expect(await index.readLatest(id)).toEqual([{ n: 3 }, { n: 2 }]);
  });

  // last: counts what every test above sent
  test('no command of the whole run was refused with CROSSSLOT (nor redirected, nor any other error)', async () => {
    expect(await errorCount('CROSSSLOT')).toBe(0);
    const stats = await Promise.all((await cluster.masters()).map((port) => cluster.cli(port, 'info', 'errorstats')));
    const kinds = new Set(stats.join('\n').match(/(?<=errorstat_)\w+/g) ?? []);
    // ERR: ioredis sends CLIENT SETINFO on every new connection, which Redis < 7.2 refuses
    kinds.delete('ERR');
    expect([...kinds]).toEqual([]);
  });
});

describe('on a Cluster, a reply lost with its connection', () => {
  // ioredis' Cluster sends again, after retryDelayOnFailover, a command whose node connection
  // closed before its reply came ("Connection is closed."): a consume Redis already ran found
  // its own mark and was taken for a replay. The README's settings turn that retry off
  // (retryDelayOnFailover: 0), and refresh the slots every second instead.
  test('a code\'s consume through the README\'s Cluster settings is answered 503: the grant and its tokens stay', async () => {
    const masters = await cluster.masters();
    const proxies = await Promise.all(masters.map((port) => replyLosingProxy(`redis://127.0.0.1:${port}`)));
    // the nodes the Cluster announces reached through the proxies
    const natMap = Object.fromEntries(masters.map((port, i) => [`127.0.0.1:${port}`, { host: '127.0.0.1', port: proxies[i]!.port }]));
    const proxied = await connectCluster(cluster, { natMap });
    const prefix = freshPrefix();
    const factory = createRedisAdapter({ client: proxied, keyPrefix: prefix });
    try {
      await factory('Grant').upsert('G', { accountId: 'a', clientId: 'c' }, 600);
      await factory('AccessToken').upsert('AT', { grantId: 'G', accountId: 'a' }, 600);
      await factory('AuthorizationCode').upsert('CODE', { grantId: 'G', accountId: 'a', clientId: 'c' }, 60);
      const codes = factory('AuthorizationCode') as unknown as { consumeAndKeep(id: string, keep: number): Promise<void> };

      for (const proxy of proxies) proxy.loseNextReply();
      const error = await codes.consumeAndKeep('CODE', 600).then(() => undefined, (e: unknown) => e);
      expect(proxies.reduce((n, proxy) => n + proxy.lost(), 0)).toBeGreaterThanOrEqual(1);
      expect(error).toBeInstanceOf(StorageUnavailableError);

      // read straight from the nodes: Redis ran the consume once and revoked nothing
      const direct = createRedisAdapter({ client, keyPrefix: prefix });
      expect(await direct('Grant').find('G')).toEqual({ accountId: 'a', clientId: 'c' });
      expect(await direct('AccessToken').find('AT')).toEqual({ grantId: 'G', accountId: 'a' });
    } finally {
      await factory.close();
      await proxied.quit().catch(() => proxied.disconnect());
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  });
});
