/**
 * The demo host on a dedicated redis-server (persistent, so a restart keeps its data), through
 * an adapter that can make Redis stop answering (SIGSTOP) or refuse (killed) at one precise
 * storage call: before that call runs, or after it resolved. For tests of what a storage
 * fault at a given step leaves behind.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import { createRedisAdapter } from '../../adapters/redis.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, ClosableAdapterFactory } from '../../adapters/types.ts';
import type { DemoOptions } from '../../examples/host/app.ts';
import type { Logger } from '../../lib/index.ts';
import { startRedis } from './redis-server.ts';
import type { RedisHandle } from './redis-server.ts';
import { startApp } from './start-app.ts';
import type { RunningApp } from './start-app.ts';

/** A one-shot fault: at the next call of `method` on `model`'s adapter. */
export interface Fault {
  readonly model: string;
  readonly method: string;
  /** `before`: the action runs, then the call (which meets the fault); `after`: once the call resolved */
  readonly when: 'before' | 'after';
  /**
   * what happens: Redis stops answering (`pause`) or is killed (`kill`), or only this one call
   * fails as an outage would make it (`refuse`, Redis untouched: a transient failure)
   */
  readonly action: 'pause' | 'kill' | 'refuse';
}

export interface FaultRig {
  readonly app: RunningApp;
  readonly redis: RedisHandle;
  /** lines given to options.logger */
  readonly logged: { level: 'info' | 'warn' | 'error'; line: string }[];
  /** arms a one-shot fault */
  arm(fault: Fault): void;
  /** disarms, lets Redis answer again (restarted if killed) and waits until storage serves */
  recover(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFaultRig(options: DemoOptions = {}): Promise<FaultRig> {
  const redis = await startRedis({ forceSpawn: true, persistent: true });
  const logged: FaultRig['logged'] = [];
  const logger: Logger = {
    info: (line) => logged.push({ level: 'info', line }),
    warn: (line) => logged.push({ level: 'warn', line }),
    error: (line) => logged.push({ level: 'error', line }),
  };
  const inner = createRedisAdapter({ url: redis.url, keyPrefix: `faults:${randomUUID()}:`, logger });
  const armed: Fault[] = [];
  let killed = false;
  const act = async (fault: Fault) => {
    if (fault.action === 'pause') redis.pause();
    else {
      killed = true;
      await redis.stop();
    }
  };
  const wrap = (model: string, adapter: Adapter): Adapter => new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const call = (args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      return (...args: unknown[]) => {
        const i = armed.findIndex((f) => f.model === model && f.method === String(property));
        if (i < 0) return call(args);
        const [fault] = armed.splice(i, 1);
        if (fault!.action === 'refuse') {
          const refusal = new StorageUnavailableError('redis: injected');
          return fault!.when === 'before' ? Promise.reject(refusal) : Promise.resolve(call(args)).then(() => { throw refusal; });
        }
        if (fault!.when === 'before') return act(fault!).then(() => call(args));
        return Promise.resolve(call(args)).then(async (result) => {
          await act(fault!);
          return result;
        });
      };
    },
  });
  const adapters = new Map<string, Adapter>();
  const factory: AdapterFactory = (model) => {
    let adapter = adapters.get(model);
    if (!adapter) adapters.set(model, adapter = wrap(model, inner(model)));
    return adapter;
  };
  const adapter = Object.assign(factory, { putRecords: inner.putRecords, close: inner.close }) as ClosableAdapterFactory;
  const app = await startApp({ ...options, auth: { adapter, logger, ...options.auth } });

  const probe = factory('FaultRigProbe');
  async function serving(): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await probe.find('probe');
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  return {
    app, redis, logged,
    arm: (fault) => { armed.push(fault); },
    async recover() {
      armed.splice(0);
      redis.resume();
      if (killed) {
        await redis.restart();
        killed = false;
      }
      await serving();
    },
    async stop() {
      redis.resume();
      await app.stop();
      await inner.close();
      await redis.stop();
    },
  };
}
