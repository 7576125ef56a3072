/**
 * A client from ioredis 6, what `npm install ioredis` gives a host today (RESP3 by default),
 * passed as `client`: TypeScript takes it (this file compiles under `npm run typecheck`), and
 * the adapter contract holds on it as on the adapter's own ioredis 5.
 */
import { randomUUID } from 'node:crypto';

import { Cluster as Cluster6, Redis as Redis6 } from 'ioredis6';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { RedisAdapterOptions } from '../../adapters/redis.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { describeAdapterContract } from './contract.ts';

let server: RedisHandle;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

describeAdapterContract('redis, through an ioredis 6 client speaking RESP3', async () => {
  // the fail-fast settings the README gives for a client of one's own
  const client = new Redis6(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 3_000 });
  await new Promise((resolve) => client.once('ready', resolve));
  expect(client.options.protocol).toBe(3);
  const factory = createRedisAdapter({ client, keyPrefix: `ioredis6:${randomUUID()}:` });
  return {
    factory,
    teardown: async () => {
      await factory.close();
      client.disconnect();
    },
  };
});

it('takes an ioredis 6 Redis and Cluster as `client` in TypeScript, and refuses its keyPrefix', () => {
  const redis = new Redis6({ lazyConnect: true, keyPrefix: 'theirs:' });
  const cluster = new Cluster6([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
  const options: RedisAdapterOptions[] = [{ client: redis }, { client: cluster }];
  expect(() => createRedisAdapter(options[0]!)).toThrow(/must not set ioredis `keyPrefix`/);
  redis.disconnect();
  cluster.disconnect();
});
