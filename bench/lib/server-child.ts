/**
 * Entry point of a server child process: listens on 127.0.0.1 (port 0), builds the target
 * with that origin as issuer, then answers IPC calls (stats, stop, the server's commands).
 * One server per process, so RSS and CPU profiles are per server.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { ALLOCATION_SAMPLER, BUILTIN_CALLS, PROMISE_COUNTER } from './protocol.ts';
import type { AllocationSampler, ChildMessage, ChildSpec, ParentMessage, ServerStats } from './protocol.ts';
import type { BuildServer, BuiltServer, ServerEnv } from './types.ts';

function send(message: ChildMessage): void {
  process.send!(message);
}

/**
 * Memory after a full GC (the parent forks with --expose-gc): without it a sample says more
 * about when V8 last collected than about what the server holds. Only asked for between
 * runs, never under load.
 */
function settledMemory(): { rss: number; heapUsed: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Monotonic µs, the clock of a V8 CPU profile's `startTime` and sample times. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const errorText = (error: unknown) => (error instanceof Error ? error.stack ?? error.message : String(error));

async function start(spec: ChildSpec): Promise<void> {
  const server = createServer({ keepAliveTimeout: 30_000 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const adapters: ClosableAdapterFactory[] = [];
  const env: ServerEnv = {
    origin,
    storage: spec.storage,
    jwks: spec.jwks,
    cookieKeys: spec.cookieKeys,
    // `none` (the scenario's requests never reach storage) still gets a memory adapter to start with
    createAdapter(redis) {
      const adapter = spec.storage === 'redis'
        ? createRedisAdapter({ url: spec.redisUrl!, keyPrefix: `${spec.keyPrefix}${adapters.length}:`, ...redis })
        : createMemoryAdapter();
      adapters.push(adapter);
      return adapter;
    },
  };

  const module = await import(spec.module) as Record<string, unknown>;
  const build = module[spec.export] as BuildServer | undefined;
  if (typeof build !== 'function') throw new Error(`${spec.module} does not export a function ${spec.export}`);
  const built: BuiltServer = await build(env);

  // a measured run starts at the stats call before it and ends at the CPU reading after it
  // (bench/lib/orchestrate.ts): windows of [start, end] in profile time
  const windows: [number, number][] = [];
  let statsAt = 0;
  // the profile's sidecar: start-up, warm-up and preparation (minting thousands of tokens for
  // the revocation scenario costs more than the run it prepares) stay out of the summary
  const { profileWindows } = spec;

  let requests = 0;
  server.on('request', function countRequest() {
    requests += 1;
  });
  server.on('request', built.listener);

  async function stop(): Promise<void> {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await built.close();
    await Promise.all(adapters.map((a) => a.close()));
  }

  process.on('message', async (message: ParentMessage) => {
    if (message.type !== 'call') return;
    try {
      let value: unknown;
      if (message.name === BUILTIN_CALLS.stats) {
        value = { requests, ...settledMemory(), cpuUs: cpuUs() } satisfies ServerStats;
        statsAt = monotonicUs();
      } else if (message.name === BUILTIN_CALLS.cpu) {
        // no GC here: taken right before and after each measured run
        value = cpuUs();
        windows.push([statsAt, monotonicUs()]);
      } else if (message.name === BUILTIN_CALLS.promises) {
        const read = (globalThis as Record<symbol, unknown>)[PROMISE_COUNTER];
        if (typeof read !== 'function') throw new Error('promises are counted only in a child started with --import bench/lib/promise-count.ts');
        value = read();
      } else if (message.name === BUILTIN_CALLS.allocations) {
        const sampler = (globalThis as Record<symbol, unknown>)[ALLOCATION_SAMPLER] as AllocationSampler | undefined;
        if (!sampler) throw new Error('allocations are sampled only in a child started with --import bench/lib/allocation-sample.ts');
        if (message.arg !== 'start' && message.arg !== 'stop') throw new Error(`$allocations takes 'start' or 'stop', not ${String(message.arg)}`);
        value = message.arg === 'start' ? sampler.start() : sampler.stop();
      } else if (message.name === BUILTIN_CALLS.stop) {
        await stop();
        if (profileWindows) writeFileSync(profileWindows, JSON.stringify({ windows }));
      } else {
        const command = built.commands?.[message.name];
        if (!command) throw new Error(`the server has no command ${message.name}`);
        value = await command(message.arg);
      }
      send({ type: 'reply', id: message.id, ok: true, value });
      // exit normally (not by signal) so that --cpu-prof writes its profile
      if (message.name === BUILTIN_CALLS.stop) process.disconnect();
    } catch (error) {
      send({ type: 'reply', id: message.id, ok: false, error: errorText(error) });
    }
  });

  send({ type: 'ready', origin });
}

process.once('message', (message: ParentMessage) => {
  if (message.type !== 'init') return;
  start(message.spec).catch((error) => {
    send({ type: 'failed', error: errorText(error) });
    process.disconnect();
  });
});
// the parent died: do not linger holding a port
process.on('disconnect', () => setTimeout(() => process.exit(0), 100).unref());
