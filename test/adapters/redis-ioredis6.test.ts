/**
 * A client from ioredis 6, what `npm install ioredis` gives a host today (RESP3 by default),
 * passed as `client`: TypeScript takes it (this file compiles under `npm run typecheck`), and
 * the adapter contract holds on it as on the adapter's own ioredis 5, on a single Redis and on
 * a real Cluster (3 masters) with the README's Cluster settings; and with ioredis'
 * `stringNumbers` (integer replies as strings), whose replayed code was accepted.
 */
import { randomUUID } from 'node:crypto';

import { Cluster as Cluster6, Redis as Redis6 } from 'ioredis6';
import type { ClusterOptions as ClusterOptions6, RedisOptions as RedisOptions6 } from 'ioredis6';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { RedisAdapterOptions } from '../../adapters/redis.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode } from '../support/flows.ts';
import { startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';
import { describeAdapterContract } from './contract.ts';

/** The README's fail-fast settings for a client of one's own. */
const REDIS6_OPTIONS: RedisOptions6 = {
  enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, connectTimeout: 2_000, commandTimeout: 3_000,
};
/** The README's Cluster settings. */
const CLUSTER6_OPTIONS: ClusterOptions6 = {
  enableOfflineQueue: false,
  enableAutoPipelining: true,
  clusterRetryStrategy: (times: number) => Math.min(100 * times, 2_000),
  retryDelayOnFailover: 0,
  slotsRefreshInterval: 1_000,
  redisOptions: REDIS6_OPTIONS,
};

const ready = (client: Redis6 | Cluster6) => new Promise((resolve) => client.once('ready', resolve));

let server: RedisHandle;
let cluster: ClusterHandle;
beforeAll(async () => {
  server = await startRedis();
  cluster = await startRedisCluster({ masters: 3 });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await cluster?.stop();
});

/** The contract's adapter over `client` once it is ready, torn down with it. */
async function adapterOn(client: Redis6 | Cluster6, name: string) {
  await ready(client);
  const factory = createRedisAdapter({ client, keyPrefix: `${name}:${randomUUID()}:` });
  return {
    factory,
    teardown: async () => {
      await factory.close();
      client.disconnect();
    },
  };
}

describeAdapterContract('redis Cluster, through an ioredis 6 Cluster client', () => adapterOn(new Cluster6(cluster.startupNodes, CLUSTER6_OPTIONS), 'ioredis6c'));

describeAdapterContract('redis, through an ioredis 6 client with stringNumbers', () => adapterOn(new Redis6(server.url, { ...REDIS6_OPTIONS, stringNumbers: true }), 'ioredis6s'));

it('with stringNumbers, a replayed code is invalid_grant and ends its grant (it was accepted)', async () => {
  const client = new Redis6(server.url, { ...REDIS6_OPTIONS, stringNumbers: true });
  await ready(client);
  const adapter = createRedisAdapter({ client, keyPrefix: `ioredis6r:${randomUUID()}:` });
  const app = await startApp({ auth: { adapter } });
  try {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid' }, STUDENT);
    const first = await exchangeCode(app.baseUrl, MEMBER, code, verifier);
    const tokens = (await first.json()) as { access_token: string };
    const replay = await exchangeCode(app.baseUrl, MEMBER, code, verifier);
    const userinfo = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect({ first: first.status, replay: replay.status, error: ((await replay.json()) as { error?: string }).error, userinfo: userinfo.status })
      .toEqual({ first: 200, replay: 400, error: 'invalid_grant', userinfo: 401 });
  } finally {
    await app.stop();
    await adapter.close();
    client.disconnect();
  }
});

describeAdapterContract('redis, through an ioredis 6 client speaking RESP3', async () => {
  // the fail-fast settings the README gives for a client of one's own
  const client = new Redis6(server.url, REDIS6_OPTIONS);
  const adapter = await adapterOn(client, 'ioredis6');
  expect(client.options.protocol).toBe(3);
  return adapter;
});

it('takes an ioredis 6 Redis and Cluster as `client` in TypeScript, and refuses its keyPrefix', () => {
  const redis = new Redis6({ lazyConnect: true, keyPrefix: 'theirs:' });
  const cluster = new Cluster6([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
  const options: RedisAdapterOptions[] = [{ client: redis }, { client: cluster }];
  expect(() => createRedisAdapter(options[0]!)).toThrow(/must not set ioredis `keyPrefix`/);
  redis.disconnect();
  cluster.disconnect();
});
