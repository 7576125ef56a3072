/**
 * What a request costs in CPU instructions, counted by valgrind's callgrind: the same count
 * for the same code whatever else the machine is doing, where `npm run bench`'s ratios move by
 * ±10–30% on a busy or throttled machine (bench/README, "Instructions instead of seconds").
 *
 *   node bench/instructions.ts revocation|introspection|refresh|login|hello [--servers ours,oidc-provider]
 *     [--adapter redis|memory] [--count N] [--warm N] [--repeat N] [--connections N] [--measure instructions|cache|promises|allocations|kernel|commands|cpu]
 *
 * Each server runs alone in a child under callgrind with instrumentation off; after `--warm`
 * units (the JIT settles), it is switched on for `--count` units, off again, and the count
 * dumped. Instructions are not time: cache misses and the kernel's share are left out, and
 * work done per interval (the trace's writes every 250 ms, timers) is charged to fewer units
 * than at full speed, since a unit takes about 50 times longer under callgrind. Compare
 * servers with the same such work, or read it as an upper bound.
 *
 * Needs valgrind (`apt-get install -y valgrind`); not run by `npm test` or CI.
 *
 * `--measure promises` counts instead the promises the server creates per unit, with an async
 * hook loaded into the child (./lib/promise-count.ts), at full speed and without valgrind, in
 * seconds rather than minutes: the same number for the same code, which under oidc-provider's
 * AsyncLocalStorage is a large share of what a layer costs a cheap request (bench/README,
 * "Instructions instead of seconds").
 *
 * `--measure cache` runs callgrind with its cache simulation and counts estimated cycles:
 * the instructions, plus the simulated first-level misses at 10 cycles and last-level misses
 * at 200 (./lib/callgrind-totals.ts), each listed. What instructions leave out and this VM
 * cannot measure otherwise (it has no hardware counters); still a simulation, of a cache the
 * server does not share with the load generator.
 *
 * `--measure allocations` estimates instead the bytes the server allocates per unit, with V8's
 * sampling heap profiler loaded into the child (./lib/allocation-sample.ts), also at full speed,
 * and lists the functions that allocated most: what the garbage collector has to clear.
 *
 * `--measure commands` counts the Redis commands the server sends per unit (`--adapter
 * redis`), read from Redis' MONITOR feed at full speed, by command and model, with what its
 * scripts run inside Redis (./lib/redis-commands.ts): the round trips a unit costs in storage.
 *
 * `--measure cpu` reads instead the CPU time the server spends per unit at full speed from
 * /proc, split into user space and the kernel, and the main thread's share of each (the rest
 * is V8's helper threads and libuv's pool): the server CPU of `npm run bench` for one unit of
 * work, beside the deterministic counts, with the same load generator in front.
 *
 * `--measure kernel` counts the minor page faults of the child per unit, with its major
 * faults and every thread's context switches, read from /proc (Linux) at full speed: the
 * kernel's share of a request that is not a system call, which neither callgrind nor
 * `strace -c` sees.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startRedis } from '../test/support/redis-server.ts';
import { addTotals, estimatedCycles, parseCallgrindTotals } from './lib/callgrind-totals.ts';
import type { CallgrindTotals } from './lib/callgrind-totals.ts';
import { commandLine } from './lib/command-line.ts';
import { kernelCounters } from './lib/kernel-counters.ts';
import type { KernelCounters } from './lib/kernel-counters.ts';
import { countRedisCommands } from './lib/redis-commands.ts';
import { memberTokens } from './lib/token-pool.ts';
import { spawnServer } from './lib/server-process.ts';
import type { ServerProcess, SpawnOptions } from './lib/server-process.ts';
import { signingKeys } from './lib/signing-keys.ts';
import type { AdapterKind, ServerTarget } from './lib/types.ts';
import { createAgent, send } from './load/http-client.ts';
import { memberFlow, runLoginFlow } from './load/login-flow.ts';
import { bareProvider } from './servers/bare-provider.ts';
import { koaHello } from './servers/koa-hello.ts';
import { ours, oursNoAuthorizationRate, oursNoDiagnostics, oursNoGrace, oursNoRefreshRate, oursNoThrottle } from './servers/ours.ts';

const SERVERS: readonly ServerTarget[] = [ours, bareProvider, oursNoGrace, oursNoThrottle, oursNoAuthorizationRate, oursNoRefreshRate, oursNoDiagnostics, koaHello];
/** concurrent connections (virtual users), as `npm run bench` runs by default; `--connections` */
const DEFAULT_CONNECTIONS = 10;
/** loaded into each server child with `--import` for `--measure promises` */
const PROMISE_COUNT_MODULE = new URL('./lib/promise-count.ts', import.meta.url).href;
/** loaded into each server child with `--import` for `--measure allocations` */
const ALLOCATION_SAMPLE_MODULE = new URL('./lib/allocation-sample.ts', import.meta.url).href;
/** functions listed under each server's line with `--measure allocations` */
const TOP_ALLOCATORS = 12;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/**
 * `count` units over the run's connections, in two steps: what the units need (tokens
 * minted in the server), made before the count is switched on, then the units themselves.
 */
type Batch = (count: number) => Promise<() => Promise<void>>;

/** A unit of work and how to drive it. */
interface Driver {
  readonly unit: string;
  /** defaults, for the JIT to settle and for a count whose noise is small */
  readonly warm: number;
  readonly count: number;
  /** `connections`: how many units run at once (the agent holds as many sockets) */
  prepare(server: ServerProcess, agent: Agent, connections: number): Promise<Batch>;
}

function expectOk(status: number, body: string, what: string): void {
  if (status !== 200) throw new Error(`${what}: HTTP ${status} ${body.slice(0, 200)}`);
}

/** Runs `unit` `count` times over `connections` connections, one after another on each. */
async function spread(count: number, connections: number, unit: (connection: number) => Promise<void>): Promise<void> {
  let left = count;
  await Promise.all(Array.from({ length: connections }, async (_, connection) => {
    while (left > 0) {
      left -= 1;
      await unit(connection);
    }
  }));
}

const DRIVERS: Readonly<Record<string, Driver>> = {
  // as bench/scenarios/revocation.ts: every request revokes a live token minted in the server
  revocation: {
    unit: 'request',
    warm: 2000,
    count: 400,
    async prepare(server, agent, connections) {
      const [template] = await memberTokens(server, 1);
      const url = new URL('/api/oauth/revoke', server.origin);
      return async (count) => {
        // minted before the count starts: minting runs the provider's token model, not the endpoint
        const pool = await server.command<string[]>('mintAccessTokens', { template: template!.access_token, count });
        return () => spread(count, connections, async () => {
          const body = new URLSearchParams({ token: pool.pop()!, token_type_hint: 'access_token', client_id: 'demo-member-app' });
          const response = await send(agent, 'POST', url, FORM, body.toString());
          expectOk(response.status, response.body, 'revocation');
        });
      };
    },
  },
  // as bench/scenarios/introspection.ts: one member access token per connection, no hint
  introspection: {
    unit: 'request',
    warm: 2000,
    count: 400,
    async prepare(server, agent, connections) {
      const tokens = (await memberTokens(server, connections)).map((t) => t.access_token);
      const url = new URL('/api/oauth/introspect', server.origin);
      return async (count) => () => spread(count, connections, async (connection) => {
        const body = new URLSearchParams({ token: tokens[connection]!, client_id: 'demo-member-app' });
        const response = await send(agent, 'POST', url, FORM, body.toString());
        expectOk(response.status, response.body, 'introspection');
        if (!response.body.includes('"active":true')) throw new Error(`introspection: not active ${response.body.slice(0, 200)}`);
      });
    },
  },
  // as bench/scenarios/refresh.ts: one rotation chain per connection
  refresh: {
    unit: 'request',
    warm: 2000,
    count: 400,
    async prepare(server, agent, connections) {
      const chains = (await memberTokens(server, connections)).map((t) => t.refresh_token!);
      const url = new URL('/api/oauth/token', server.origin);
      return async (count) => () => spread(count, connections, async (connection) => {
        const body = new URLSearchParams({
          grant_type: 'refresh_token', refresh_token: chains[connection]!, client_id: 'demo-member-app', resource: server.origin,
        });
        const response = await send(agent, 'POST', url, FORM, body.toString());
        expectOk(response.status, response.body, 'refresh');
        chains[connection] = (JSON.parse(response.body) as { refresh_token: string }).refresh_token;
      });
    },
  },
  // as bench/scenarios/login-flow.ts: the whole authorization-code flow with a fresh cookie jar
  login: {
    unit: 'flow',
    warm: 400,
    count: 100,
    async prepare(server, agent, connections) {
      const flow = memberFlow(server.origin);
      return async (count) => () => spread(count, connections, async () => {
        await runLoginFlow(agent, flow);
      });
    },
  },
  // as bench/scenarios/koa-hello.ts: a host route behind auth.routes() (ours), or bare Koa's hello (koa)
  hello: {
    unit: 'request',
    warm: 4000,
    count: 2000,
    async prepare(server, agent, connections) {
      const url = new URL('/', server.origin);
      return async (count) => () => spread(count, connections, async () => {
        const response = await send(agent, 'GET', url, {});
        expectOk(response.status, response.body, 'hello');
      });
    },
  },
};

/** What callgrind counted while instrumentation was on, from the dumps of `pid`. */
function countedTotals(dir: string, pid: number): CallgrindTotals {
  const dumps = readdirSync(dir).filter((f) => f.startsWith(`callgrind.${pid}.out`))
    .map((file) => parseCallgrindTotals(readFileSync(join(dir, file), 'utf8')))
    .filter((totals) => totals !== undefined);
  return addTotals(dumps);
}

/** The storage a server of the run uses: its Redis (none on memory) and its keys' prefix. */
interface StorageOfRun {
  readonly redisUrl: string | undefined;
  readonly keyPrefix: string;
}

/** One count, and where it went when the measure can tell (allocations: by function; cache: its parts). */
interface Counted {
  readonly value: number;
  readonly where?: readonly { readonly fn: string; readonly amount: number }[];
}

/** What is counted per unit, and how a server child is started and read for it. */
interface Measure {
  /** the word of the output: `instructions`, `promises`, `bytes allocated` */
  readonly what: string;
  /** printed after the figure: thousands for instructions */
  readonly scale: 'k' | '';
  readonly spawn: Pick<SpawnOptions, 'wrapper' | 'nodeFlags'>;
  /**
   * What `server` counted while `run` ran, in units of `scale`, and where it went when the
   * measure can tell (amount in the measure's own unit, not scaled).
   */
  count(server: ServerProcess, run: () => Promise<void>, storage: StorageOfRun): Promise<Counted>;
  /** what this machine lacks for the measure (a tool, /proc), or `undefined` when it can run */
  missing?(): string | undefined;
  /** the storage the measure reads, when it needs one */
  readonly needs?: AdapterKind;
  close(): void;
}

/**
 * valgrind's callgrind, instrumentation off until the JIT has settled; every thread counted
 * together. `cache`: with its cache simulation (`--cache-sim=yes`, about twice as slow), the
 * count is the estimated cycles of bench/lib/callgrind-totals.ts (instructions, and the
 * misses weighed), listed with its parts.
 */
function callgrindMeasure(cache: boolean): Measure {
  const dir = mkdtempSync(join(tmpdir(), 'platform-auth-callgrind-'));
  const control = (server: ServerProcess, ...args: string[]) => execFileSync('callgrind_control', [...args, String(server.pid)], { stdio: 'ignore' });
  const args = ['--tool=callgrind', ...(cache ? ['--cache-sim=yes'] : []), '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${dir}/callgrind.%p.out`];
  return {
    what: cache ? 'estimated cycles' : 'instructions',
    scale: 'k',
    spawn: { wrapper: { command: 'valgrind', args } },
    missing() {
      try {
        execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
        return undefined;
      } catch {
        return 'valgrind is not installed (apt-get install -y valgrind)';
      }
    },
    async count(server, run) {
      control(server, '--instr=on');
      await run();
      control(server, '--instr=off');
      control(server, '--dump');
      const totals = countedTotals(dir, server.pid);
      if (!cache) return { value: (totals.Ir ?? 0) / 1000 };
      const { firstLevelMisses, lastLevelMisses, cycles } = estimatedCycles(totals);
      return {
        value: cycles / 1000,
        where: [
          { fn: 'instructions', amount: totals.Ir ?? 0 },
          { fn: 'first-level cache misses (instruction and data, 10 cycles each)', amount: firstLevelMisses },
          { fn: 'last-level cache misses (200 cycles each)', amount: lastLevelMisses },
        ],
      };
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The promises the child creates (./lib/promise-count.ts, loaded with `--import`). */
const promiseMeasure: Measure = {
  what: 'promises',
  scale: '',
  spawn: { nodeFlags: ['--import', PROMISE_COUNT_MODULE] },
  async count(server, run) {
    const before = await server.promisesCreated();
    await run();
    return { value: await server.promisesCreated() - before };
  },
  close() {},
};

/**
 * The bytes the child allocates, estimated by V8's sampling heap profiler with the objects
 * collected since kept in (./lib/allocation-sample.ts, loaded with `--import`); what the
 * garbage collector then has to clear. Each count also lists where the bytes were allocated.
 */
const allocationMeasure: Measure = {
  what: 'bytes allocated',
  scale: 'k',
  spawn: { nodeFlags: ['--import', ALLOCATION_SAMPLE_MODULE] },
  async count(server, run) {
    await server.sampleAllocations('start');
    await run();
    const { bytes, top } = await server.sampleAllocations('stop');
    return { value: bytes / 1000, where: top.slice(0, TOP_ALLOCATORS).map(({ fn, bytes: amount }) => ({ fn, amount })) };
  },
  close() {},
};

/**
 * A measure read from /proc (./lib/kernel-counters.ts) before and after the units, at full
 * speed; `read` turns the two readings, and the child's CPU time in between (its
 * `process.cpuUsage()`, as `npm run bench` reads it, in µs), into the count.
 */
function procMeasure(what: string, read: (before: KernelCounters, after: KernelCounters, cpuUs: number) => Counted): Measure {
  return {
    what,
    scale: '',
    spawn: {},
    missing: () => (existsSync('/proc/self/stat') ? undefined : 'this measure reads /proc, which only Linux has'),
    async count(server, run) {
      const [before, cpuBefore] = [kernelCounters(server.pid), await server.cpuUs()];
      await run();
      const [after, cpuAfter] = [kernelCounters(server.pid), await server.cpuUs()];
      return read(before, after, cpuAfter - cpuBefore);
    },
    close() {},
  };
}

/**
 * What the kernel does for the child besides its system calls: minor page faults (each a
 * trap, which on a VM the hypervisor may also take) are the count, with major faults and
 * context switches listed.
 */
const kernelMeasure = procMeasure('minor page faults', (before, after) => ({
  value: after.minor - before.minor,
  where: [
    { fn: 'major page faults', amount: after.major - before.major },
    { fn: 'voluntary context switches (all threads)', amount: after.voluntary - before.voluntary },
    { fn: 'involuntary context switches (all threads)', amount: after.involuntary - before.involuntary },
  ],
}));

/**
 * The CPU time the child spends per unit: the total as `npm run bench` reads it (the child's
 * `process.cpuUsage()`, to the microsecond), and its split into user space and the kernel's
 * share on its behalf from /proc (./lib/kernel-counters.ts), which the kernel gives only to
 * its 10 ms ticks: read the split over a second or more of CPU. Where callgrind's count
 * (user-space instructions only) and the bench's server CPU disagree, the split says whether
 * the difference is in the kernel (system calls, page faults).
 */
const cpuMeasure = procMeasure('µs of CPU', (before, after, cpuUs) => ({
  value: cpuUs,
  where: [
    { fn: 'µs in user space (to 10 ms in all)', amount: (after.userSeconds - before.userSeconds) * 1e6 },
    { fn: 'µs in the kernel (to 10 ms in all)', amount: (after.systemSeconds - before.systemSeconds) * 1e6 },
    // the rest of each is V8's helper threads (GC, compilation) and libuv's pool
    { fn: 'µs of the main thread in user space (to 10 ms in all)', amount: (after.mainUserSeconds - before.mainUserSeconds) * 1e6 },
    { fn: 'µs of the main thread in the kernel (to 10 ms in all)', amount: (after.mainSystemSeconds - before.mainSystemSeconds) * 1e6 },
  ],
}));

/**
 * The Redis commands the server sends (./lib/redis-commands.ts, Redis' MONITOR feed), at full
 * speed: the count is the commands clients sent (not round trips: each command of a pipeline
 * or of a coalesced write counts), listed by command and model with what scripts ran inside
 * Redis.
 */
const commandsMeasure: Measure = {
  what: 'Redis commands sent',
  scale: '',
  spawn: {},
  needs: 'redis',
  async count(_server, run, storage) {
    const counting = await countRedisCommands(storage.redisUrl!, storage.keyPrefix);
    try {
      await run();
    } catch (error) {
      counting.cancel();
      throw error;
    }
    const { sent, inScripts, groups } = await counting.stop();
    return {
      value: sent,
      where: [{ fn: 'commands run inside scripts', amount: inScripts }, ...groups.map(({ name, count }) => ({ fn: name, amount: count }))],
    };
  },
  close() {},
};

/** A per-unit figure: `digits` decimals, or two below 10 (page faults, switches: a fraction per request). */
const figure = (n: number, digits = 1) => n.toFixed(Math.abs(n) < 10 ? 2 : digits);

/** Each `--measure`, built when chosen (a callgrind measure makes its dump directory). */
const MEASURES: Readonly<Record<string, () => Measure>> = {
  instructions: () => callgrindMeasure(false),
  cache: () => callgrindMeasure(true),
  promises: () => promiseMeasure,
  allocations: () => allocationMeasure,
  kernel: () => kernelMeasure,
  commands: () => commandsMeasure,
  cpu: () => cpuMeasure,
};

const USAGE = `usage: node bench/instructions.ts ${Object.keys(DRIVERS).join('|')} [--servers ${SERVERS.map((s) => s.id).join(',')}]
  [--adapter redis|memory] [--count N] [--warm N] [--repeat N] [--connections N] [--measure ${Object.keys(MEASURES).join('|')}] [--help]`;

async function main(): Promise<number> {
  const parsed = commandLine({
    servers: { type: 'string', default: 'ours,oidc-provider' },
    adapter: { type: 'string', default: 'redis' },
    count: { type: 'string' },
    warm: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    connections: { type: 'string', default: String(DEFAULT_CONNECTIONS) },
    measure: { type: 'string', default: 'instructions' },
  }, USAGE);
  if (typeof parsed === 'number') return parsed;
  const { positionals, values } = parsed;
  const driver = DRIVERS[positionals[0] ?? ''];
  const targets = values.servers.split(',').map((id) => SERVERS.find((s) => s.id === id));
  const adapter = values.adapter as AdapterKind;
  const [count, warm, repeat, connections] = [values.count ?? driver?.count, values.warm ?? driver?.warm, values.repeat, values.connections].map(Number);
  if (!driver || targets.some((t) => !t) || !['redis', 'memory'].includes(adapter) || !Object.hasOwn(MEASURES, values.measure)
    || ![count, warm, repeat, connections].every((n) => Number.isInteger(n) && n! > 0)) {
    console.error(USAGE);
    return 2;
  }
  const measure = MEASURES[values.measure]!();
  const missing = measure.missing?.()
    ?? (measure.needs !== undefined && measure.needs !== adapter ? `--measure ${values.measure} reads the storage: use --adapter ${measure.needs}` : undefined);
  if (missing) {
    measure.close();
    console.error(missing);
    return 2;
  }

  const redis = adapter === 'redis' ? await startRedis({ forceSpawn: true }) : undefined;
  const jwks = signingKeys();
  const cookieKeys = [randomBytes(32).toString('base64url')];
  const counted = new Map<string, number[]>();
  try {
    for (let round = 0; round < repeat!; round += 1) {
      for (const target of targets as ServerTarget[]) {
        const storage: StorageOfRun = { redisUrl: redis?.url, keyPrefix: `instructions:${round}:${target.id}:` };
        const server = await spawnServer({ target, storage: adapter, ...storage, jwks, cookieKeys, ...measure.spawn });
        const agent = createAgent(connections!);
        try {
          const batch = await driver.prepare(server, agent, connections!);
          await (await batch(warm!))();
          const measured = await batch(count!);
          const { value, where } = await measure.count(server, measured, storage);
          const perUnit = value / count!;
          counted.set(target.id, [...counted.get(target.id) ?? [], perUnit]);
          console.log(`${target.id.padEnd(20)} ${figure(perUnit).padStart(9)}${measure.scale} ${measure.what} per ${driver.unit} (${count} after ${warm}, ${adapter}, ${connections} at once)`);
          for (const { fn, amount } of where ?? []) console.log(`${figure(amount / count!, 0).padStart(31)}  ${fn}`);
        } finally {
          agent.destroy();
          await server.stop();
        }
      }
    }
  } finally {
    await redis?.stop();
    measure.close();
  }
  const [first, ...others] = targets as ServerTarget[];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const other of others) {
    // in the bench's sense (a work ratio, as a throughput ratio): above 1, the first server does less work
    const ratio = median(counted.get(other.id)!) / median(counted.get(first!.id)!);
    console.log(`${first!.id}/${other.id}: ${ratio.toFixed(3)} (${other.id}'s ${measure.what} over ${first!.id}'s, medians of ${repeat})`);
  }
  return 0;
}

process.exitCode = await main();
