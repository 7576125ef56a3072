/**
 * adapters/redis.ts warns once, at connect, when the single Redis it is given may evict keys
 * (`maxmemory-policy` other than `noeviction`), which the README's "Redis settings that
 * matter" asks for: such a Redis drops live sessions, grants and tokens under memory pressure
 * without a word. Real Redis servers, the adapter's own client and one passed in.
 */
import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ConnectionLogger } from '../../adapters/redis.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';

let redis: RedisHandle;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedis({ forceSpawn: true });
  admin = new Redis(redis.url);
});
afterAll(async () => {
  await admin?.quit();
  await redis?.stop();
});

function capture(): ConnectionLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info() {}, warn: (m) => warnings.push(m) };
}

/** Until `logger` has warned or `ms` passed; the adapter asks once its client is ready. */
async function warningsAfter(logger: { warnings: string[] }, ms = 2_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  while (logger.warnings.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return logger.warnings;
}

const EVICTS = /^platform-auth: Redis at 127\.0\.0\.1:\d+ evicts keys under memory pressure \(maxmemory-policy allkeys-lru\): .* Set maxmemory-policy noeviction/;

describe('with maxmemory-policy allkeys-lru and a memory limit', () => {
  beforeAll(async () => {
    await admin.config('SET', 'maxmemory', '512mb');
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
  });
  afterAll(async () => {
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '0');
  });

  it('the adapter\'s own client warns once', async () => {
    const logger = capture();
    const adapter = createRedisAdapter({ url: redis.url, keyPrefix: `${randomUUID()}:`, logger });
    try {
      expect(await warningsAfter(logger)).toEqual([expect.stringMatching(EVICTS)]);
      await adapter('Session').upsert('s1', { accountId: 'a' }, 60);
      expect(logger.warnings).toHaveLength(1);
    } finally {
      await adapter.close();
    }
  });

  it('several adapters on one client passed in warn once, not once each', async () => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const logger = capture();
    const adapters = Array.from({ length: 5 }, () => createRedisAdapter({ client, keyPrefix: `${randomUUID()}:`, logger }));
    try {
      expect(await warningsAfter(logger)).toHaveLength(1);
      await adapters[0]!('Session').upsert('s1', { accountId: 'a' }, 60);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(logger.warnings).toHaveLength(1);
    } finally {
      for (const adapter of adapters) await adapter.close();
      client.disconnect();
    }
  });

  it('a client passed in, already connected, warns too', async () => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    await new Promise((resolve) => client.once('ready', resolve));
    const logger = capture();
    const adapter = createRedisAdapter({ client, keyPrefix: `${randomUUID()}:`, logger });
    try {
      expect(await warningsAfter(logger)).toEqual([expect.stringMatching(EVICTS)]);
    } finally {
      await adapter.close();
      client.disconnect();
    }
  });
});

it('an evicting policy without a memory limit evicts nothing: nothing is said', async () => {
  await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
  const logger = capture();
  const adapter = createRedisAdapter({ url: redis.url, keyPrefix: `${randomUUID()}:`, logger });
  try {
    await adapter('Session').upsert('s1', { accountId: 'a' }, 60);
    expect(await warningsAfter(logger, 300)).toEqual([]);
  } finally {
    await adapter.close();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
  }
});

it('with noeviction, nothing is said', async () => {
  expect(await admin.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
  const logger = capture();
  const adapter = createRedisAdapter({ url: redis.url, keyPrefix: `${randomUUID()}:`, logger });
  try {
    // a call answered after the check's INFO, on the same connection
    await adapter('Session').upsert('s1', { accountId: 'a' }, 60);
    expect(await adapter('Session').find('s1')).toEqual({ accountId: 'a' });
    expect(await warningsAfter(logger, 300)).toEqual([]);
  } finally {
    await adapter.close();
  }
});
