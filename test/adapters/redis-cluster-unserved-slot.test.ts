/**
 * A Cluster slot that no node serves (unassigned while a lost master is replaced, with
 * `cluster-require-full-coverage no`) is a storage outage, a 503, with the README's Cluster
 * client settings (auto-pipelining on) too. ioredis' auto-pipelining reads the slot's nodes
 * without a check and throws a TypeError there, which the adapter took for a programming
 * error (a 500); without auto-pipelining the same call is answered CLUSTERDOWN.
 */
import { randomUUID } from 'node:crypto';

import type { Cluster } from 'ioredis';

import { createRedisAdapter } from '../../adapters/redis.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { connectCluster, startRedisCluster } from '../support/redis-cluster.ts';
import type { ClusterHandle } from '../support/redis-cluster.ts';

let cluster: ClusterHandle;
const clients: Cluster[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  await cluster?.stop();
});

test.each([true, false])('a read on a slot no node serves rejects with StorageUnavailableError (enableAutoPipelining %s)', async (autoPipelining) => {
  const prefix = `unserved-${randomUUID()}:`;
  const id = randomUUID();
  const ports = cluster.startupNodes.map((n) => n.port);
  const slot = Number((await cluster.cli(ports[0]!, 'cluster', 'keyslot', `${prefix}Session:{${id}}`)).trim());
  for (const port of ports) {
    await cluster.cli(port, 'config', 'set', 'cluster-require-full-coverage', 'no');
    // every node forgets the slot: its owner's and the others' view of it
    await cluster.cli(port, 'cluster', 'delslots', String(slot)).catch(() => '');
  }
  try {
    const client = await connectCluster(cluster, { enableAutoPipelining: autoPipelining });
    clients.push(client);
    const adapter = createRedisAdapter({ client, keyPrefix: prefix });
    const outcome = await adapter('Session').find(id).then(
      () => 'resolved',
      (error: Error) => (error instanceof StorageUnavailableError ? 'StorageUnavailableError' : `${error.name}: ${error.message}`),
    );
    expect(outcome).toBe('StorageUnavailableError');
  } finally {
    await cluster.cli(ports[0]!, 'cluster', 'addslots', String(slot)).catch(() => '');
  }
}, 60_000);
