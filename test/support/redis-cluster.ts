/**
 * A real Redis Cluster for tests: `masters` redis-server processes in cluster mode (and
 * `replicasPerMaster` replicas of each, for failover tests) on free loopback ports, joined
 * by `redis-cli --cluster create`, nothing kept on disk. `stop()` kills them all and removes
 * their directories; a crashed test run kills them on exit.
 *
 * Each node gets its cluster bus on a port of its own (`cluster-port`, Redis ≥ 7), so no
 * port + 10000 has to be free. A short `cluster-node-timeout` makes a killed master fail
 * over in a few seconds.
 *
 * @module
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Cluster } from 'ioredis';
import type { ClusterOptions as IoredisClusterOptions } from 'ioredis';

export interface ClusterOptions {
  /** @default 3 */
  masters?: number;
  /** @default 0 */
  replicasPerMaster?: number;
  /** `cluster-node-timeout`: how long a node may be silent before it is failed over. @default 1500 */
  nodeTimeoutMs?: number;
}

export interface ClusterHandle {
  /** Every node, for ioredis' `new Cluster(startupNodes)`. */
  readonly startupNodes: { host: string; port: number }[];
  /** Ports of the nodes that are masters now, as a live node sees it. */
  masters(): Promise<number[]>;
  /**
   * A manual failover (`CLUSTER FAILOVER` on a replica of the master on `port`): the replica
   * takes over and the old master, still running, becomes its replica and answers MOVED for
   * the slots it had. Resolves with the new master's port once every node agrees.
   */
  failover(port: number): Promise<number>;
  /** Kills one node (SIGKILL by default: a crash, not a clean shutdown). */
  killNode(port: number, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Stops one node (SIGSTOP): it keeps its connections open and answers nothing, as a node
   * that hangs does; until resumeNode, waitUntilHealthy leaves it out, as a dead one.
   */
  pauseNode(port: number): void;
  resumeNode(port: number): void;
  /** `redis-cli --cluster reshard`: moves `slots` slots, keys included, from one master to another. */
  reshard(fromPort: number, toPort: number, slots: number): Promise<void>;
  /** Waits until every live node says `cluster_state:ok` and no slot is served by `deadPort`. */
  waitUntilHealthy(options?: { timeoutMs?: number; deadPort?: number }): Promise<void>;
  /** `redis-cli -p port args…`: the raw reply text. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** Kills every node (idempotent) and removes their directories. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 20_000;
const CLI_TIMEOUT_MS = 5_000;

interface Node {
  port: number;
  dir: string;
  child: ChildProcess;
}

export async function startRedisCluster(options: ClusterOptions = {}): Promise<ClusterHandle> {
  const { masters = 3, replicasPerMaster = 0, nodeTimeoutMs = 1_500 } = options;
  const count = masters * (1 + replicasPerMaster);
  // a client port and a bus port per node, all held at once so that none is handed out twice
  const ports = await freePorts(count * 2);
  const nodes: Node[] = [];
  /** ports of the nodes stopped by pauseNode */
  const paused = new Set<number>();
  const killAll = () => {
    for (const node of nodes) node.child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const handle: ClusterHandle = {
    startupNodes: [],
    async masters() {
      const live = nodes.find((node) => isRunning(node.child) && !paused.has(node.port));
      if (!live) throw new Error('no cluster node is running');
      return parseNodes(await handle.cli(live.port, 'cluster', 'nodes'))
        .filter((node) => node.flags.includes('master') && !node.flags.includes('fail') && node.slots > 0)
        .map((node) => node.port);
    },
    async failover(port) {
      const view = parseNodes(await handle.cli(port, 'cluster', 'nodes'));
      const master = view.find((node) => node.port === port);
      const replica = view.find((node) => node.masterId === master?.id && !node.flags.includes('fail'));
      if (!master || !replica) throw new Error(`no live replica of a master on port ${port}`);
      const reply = await handle.cli(replica.port, 'cluster', 'failover');
      if (!reply.startsWith('OK')) throw new Error(`CLUSTER FAILOVER on ${replica.port}: ${reply}`);
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (Date.now() < deadline) {
        const views = await Promise.all(nodes.filter((node) => isRunning(node.child)).map((node) => handle.cli(node.port, 'cluster', 'nodes')));
        const switched = views.every((text) => {
          const parsed = parseNodes(text);
          return parsed.find((node) => node.port === replica.port)?.flags.includes('master')
            && parsed.find((node) => node.port === port)?.flags.includes('slave');
        });
        if (switched) {
          await handle.waitUntilHealthy();
          return replica.port;
        }
        await sleep(50);
      }
      throw new Error(`the failover of ${port} to ${replica.port} did not complete`);
    },
    async killNode(port, signal = 'SIGKILL') {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no cluster node on port ${port}`);
      await kill(node.child, signal);
    },
    pauseNode(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no cluster node on port ${port}`);
      node.child.kill('SIGSTOP');
      paused.add(port);
    },
    resumeNode(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node || !paused.delete(port)) return;
      node.child.kill('SIGCONT');
    },
    async reshard(fromPort, toPort, slots) {
      const live = nodes.find((node) => isRunning(node.child) && !paused.has(node.port))!;
      const ids = parseNodes(await handle.cli(live.port, 'cluster', 'nodes'));
      const idOf = (port: number) => ids.find((node) => node.port === port)!.id;
      const run = () => new Promise<string>((resolve) => {
        execFile('redis-cli', ['--cluster', 'reshard', `${HOST}:${live.port}`, '--cluster-from', idOf(fromPort), '--cluster-to', idOf(toPort),
          '--cluster-slots', String(slots), '--cluster-yes', '--cluster-pipeline', '1'], { timeout: 60_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
          resolve(error ? `${error.message}\n${stdout.slice(-2_000)}\n${stderr}` : '');
        });
      });
      // redis-cli checks the cluster first and refuses while its nodes do not agree yet (the
      // configuration of a reshard just done spreads by gossip): asked again until they do
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        const failure = await run();
        if (!failure) return;
        if (!failure.includes('fix your cluster problems') || Date.now() > deadline) throw new Error(`redis-cli --cluster reshard failed: ${failure}`);
        await sleep(200);
      }
    },
    async waitUntilHealthy({ timeoutMs = START_TIMEOUT_MS, deadPort } = {}) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        try {
          const live = nodes.filter((node) => isRunning(node.child) && !paused.has(node.port));
          const infos = await Promise.all(live.map((node) => handle.cli(node.port, 'cluster', 'info')));
          const views = await Promise.all(live.map((node) => handle.cli(node.port, 'cluster', 'nodes')));
          last = infos.map((info) => /cluster_state:\w+/.exec(info)?.[0]).join(', ');
          const ok = infos.every((info) => info.includes('cluster_state:ok'))
            && views.every((view) => {
              const parsed = parseNodes(view);
              // every node knows every node, and the dead one serves no slot any more
              return parsed.length === count
                && !parsed.some((node) => node.port === deadPort && node.slots > 0)
                && parsed.filter((node) => node.flags.includes('master') && !node.flags.includes('fail')).reduce((sum, node) => sum + node.slots, 0) === 16_384;
            });
          if (ok && (await replicasInSync(live))) return;
        } catch (error) {
          last = String(error);
        }
        await sleep(100);
      }
      throw new Error(`the cluster did not become healthy within ${timeoutMs} ms (${last})`);
    },
    cli(port, ...args) {
      return new Promise((resolve, reject) => {
        execFile('redis-cli', ['-h', HOST, '-p', String(port), ...args], { timeout: CLI_TIMEOUT_MS }, (error, stdout, stderr) => {
          if (error) reject(new Error(`redis-cli ${args.join(' ')}: ${error.message} ${stderr}`));
          else resolve(stdout);
        });
      });
    },
    async stop() {
      process.off('exit', killAll);
      await Promise.all(nodes.map((node) => kill(node.child, 'SIGKILL')));
      for (const node of nodes) rmSync(node.dir, { recursive: true, force: true });
      nodes.length = 0;
    },
  };

  /** Replicas whose link to their master is down cannot take over: wait for them. */
  async function replicasInSync(live: Node[]): Promise<boolean> {
    if (replicasPerMaster === 0) return true;
    const infos = await Promise.all(live.map((node) => handle.cli(node.port, 'info', 'replication')));
    return infos.every((info) => !info.includes('role:slave') || info.includes('master_link_status:up'));
  }

  try {
    for (let i = 0; i < count; i += 1) {
      nodes.push(spawnNode(ports[2 * i]!, ports[2 * i + 1]!, nodeTimeoutMs));
    }
    await Promise.all(nodes.map((node) => waitForPing(handle, node)));
    const addresses = nodes.map((node) => `${HOST}:${node.port}`);
    await new Promise<void>((resolve, reject) => {
      execFile('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'],
        { timeout: START_TIMEOUT_MS }, (error, stdout, stderr) => {
          if (error) reject(new Error(`redis-cli --cluster create failed: ${error.message}\n${stdout}\n${stderr}`));
          else resolve();
        });
    });
    await handle.waitUntilHealthy();
  } catch (error) {
    await handle.stop();
    throw error;
  }
  handle.startupNodes.push(...nodes.map((node) => ({ host: HOST, port: node.port })));
  return handle;
}

function spawnNode(port: number, busPort: number, nodeTimeoutMs: number): Node {
  const dir = mkdtempSync(join(tmpdir(), 'platform-auth-redis-cluster-'));
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', HOST, '--dir', dir,
    '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'),
    '--cluster-port', String(busPort), '--cluster-node-timeout', String(nodeTimeoutMs),
    // a replica always takes over, however long it has been cut off from its master
    '--cluster-replica-validity-factor', '0',
    '--save', '', '--appendonly', 'no',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.resume();
  child.on('error', () => {});
  return { port, dir, child };
}

async function waitForPing(handle: ClusterHandle, node: Node): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isRunning(node.child)) throw new Error(`redis-server on port ${node.port} exited (${node.child.exitCode ?? node.child.signalCode})`);
    if ((await handle.cli(node.port, 'ping').catch(() => '')).trim() === 'PONG') return;
    await sleep(50);
  }
  throw new Error(`redis-server on port ${node.port} did not answer PING within ${START_TIMEOUT_MS} ms`);
}

interface NodeLine {
  id: string;
  /** the id of its master, for a replica */
  masterId: string | undefined;
  port: number;
  flags: string[];
  slots: number;
}

/** `CLUSTER NODES`: `<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot>…` */
function parseNodes(text: string): NodeLine[] {
  return text.trim().split('\n').filter(Boolean).map((line) => {
    const [id, address, flags, masterId, , , , , ...slots] = line.trim().split(' ');
    const slotCount = slots.filter((slot) => !slot.startsWith('[')).reduce((sum, slot) => {
      const [from, to] = slot.split('-').map(Number);
      return sum + (to === undefined ? 1 : to - from! + 1);
    }, 0);
    return {
      id: id!,
      masterId: masterId === '-' ? undefined : masterId,
      port: Number(/:(\d+)/.exec(address!)![1]),
      flags: flags!.split(','),
      slots: slotCount,
    };
  });
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, HOST, resolve);
      });
    }
    return servers.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/**
 * The ioredis settings the README recommends for a Cluster: fail fast instead of queueing
 * (no offline queue, no command sent again after its connection closed, by the node's client
 * or by the Cluster's, a command timeout), the slots asked for every second, auto-pipelining
 * on, keep reconnecting in the background, no ioredis `keyPrefix` (the adapter's own
 * hash-tagged prefix is used instead).
 */
export const CLUSTER_CLIENT_OPTIONS: IoredisClusterOptions = {
  enableOfflineQueue: false,
  enableAutoPipelining: true,
  clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
  retryDelayOnFailover: 0,
  slotsRefreshInterval: 1_000,
  redisOptions: { maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, commandTimeout: 3_000, connectTimeout: 2_000 },
};

/** An ioredis Cluster client of `cluster` with CLUSTER_CLIENT_OPTIONS, once it is ready. */
export async function connectCluster(cluster: ClusterHandle, overrides: IoredisClusterOptions = {}): Promise<Cluster> {
  const client = new Cluster(cluster.startupNodes, { ...CLUSTER_CLIENT_OPTIONS, ...overrides });
  // node errors during a failover are expected: without a listener ioredis prints them
  client.on('error', () => {});
  client.on('node error', () => {});
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the Cluster client did not become ready')), START_TIMEOUT_MS);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
