/**
 * The parent side of a server child: forks bench/lib/server-child.ts, hands it the target
 * and secrets, and turns IPC replies into promises.
 *
 * @module
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { BUILTIN_CALLS } from './protocol.ts';
import type { AllocationSample, ChildMessage, ChildSpec, ServerStats } from './protocol.ts';
import type { RunningServer, ServerTarget, StorageKind } from './types.ts';

const CHILD = new URL('./server-child.ts', import.meta.url);
const START_TIMEOUT_MS = 30_000;
const CALL_TIMEOUT_MS = 120_000;

export interface ServerProcess extends RunningServer {
  readonly pid: number;
  /** where the child writes its CPU profile when it exits (with `cpuProfileDir`) */
  readonly cpuProfile: string | undefined;
  stats(): Promise<ServerStats>;
  /** CPU time the server process has used, in microseconds */
  cpuUs(): Promise<number>;
  /** promises the child has created so far; only in a child started with `--import` ./promise-count.ts */
  promisesCreated(): Promise<number>;
  /** starts, or stops and reads, allocation sampling; only in a child started with `--import` ./allocation-sample.ts */
  sampleAllocations(step: 'start'): Promise<void>;
  sampleAllocations(step: 'stop'): Promise<AllocationSample>;
  /** stops the server and waits for the process to exit */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  readonly target: ServerTarget;
  readonly storage: StorageKind;
  readonly redisUrl: string | undefined;
  readonly keyPrefix: string;
  readonly jwks: ChildSpec['jwks'];
  readonly cookieKeys: string[];
  /** write a V8 CPU profile of the child into this folder when it exits */
  readonly cpuProfileDir?: string;
  /** more node flags for the child (`--async-context-frame`) */
  readonly nodeFlags?: readonly string[];
  /**
   * Runs the child under another program (`valgrind` and its flags, bench/instructions.ts):
   * `command ...args node ...` instead of `node ...`. Such a child starts and answers far
   * slower, so its calls are given far longer.
   */
  readonly wrapper?: { readonly command: string; readonly args: readonly string[] };
}

/** How much longer a wrapped child gets for its start and its calls. */
const WRAPPED_SLOWDOWN = 20;

export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  // --expose-gc: RSS samples are taken after a full collection (server-child.ts)
  const execArgv: string[] = ['--expose-gc', ...options.nodeFlags ?? []];
  let cpuProfile: string | undefined;
  if (options.cpuProfileDir) {
    mkdirSync(options.cpuProfileDir, { recursive: true });
    const name = `${options.keyPrefix.replace(/[^a-z0-9-]+/gi, '_')}${options.storage}.cpuprofile`;
    cpuProfile = join(options.cpuProfileDir, name);
    execArgv.push('--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir, '--cpu-prof-name', name);
  }
  // stdout is dropped (libraries' start-up banners); stderr is kept for failure reports
  const { wrapper } = options;
  const slowdown = wrapper ? WRAPPED_SLOWDOWN : 1;
  const child = fork(CHILD, [], {
    // fork runs `execPath ...execArgv module`: the wrapper, its flags, then node and node's flags
    ...(wrapper ? { execPath: wrapper.command } : {}),
    execArgv: wrapper ? [...wrapper.args, process.execPath, ...execArgv] : execArgv,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  child.on('message', (message: ChildMessage) => {
    if (message.type !== 'reply') return;
    const call = pending.get(message.id);
    pending.delete(message.id);
    if (!call) return;
    if (message.ok) call.resolve(message.value);
    else call.reject(new Error(`${options.target.id}: ${message.error}`));
  });
  child.once('exit', (code, signal) => {
    for (const call of pending.values()) {
      call.reject(new Error(`${options.target.id} exited (${code ?? signal}) during a call:\n${stderr}`));
    }
    pending.clear();
  });

  const spec: ChildSpec = {
    module: options.target.module,
    export: options.target.export,
    storage: options.storage,
    redisUrl: options.redisUrl,
    keyPrefix: options.keyPrefix,
    jwks: options.jwks,
    cookieKeys: options.cookieKeys,
    ...(cpuProfile ? { profileWindows: `${cpuProfile}.windows.json` } : {}),
  };
  child.send({ type: 'init', spec });
  const origin = await waitForReady(child, options.target.id, () => stderr, START_TIMEOUT_MS * slowdown);

  function call<T>(name: string, arg?: unknown): Promise<T> {
    if (!child.connected) return Promise.reject(new Error(`${options.target.id} is not running:\n${stderr}`));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${options.target.id}: ${name} did not answer within ${CALL_TIMEOUT_MS * slowdown} ms`));
      }, CALL_TIMEOUT_MS * slowdown);
      pending.set(id, {
        resolve: (value) => { clearTimeout(timer); resolve(value as T); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
      child.send({ type: 'call', id, name, arg });
    });
  }

  return {
    target: options.target,
    origin,
    storage: options.storage,
    pid: child.pid!,
    cpuProfile,
    command: call,
    stats: () => call<ServerStats>(BUILTIN_CALLS.stats),
    cpuUs: () => call<number>(BUILTIN_CALLS.cpu),
    promisesCreated: () => call<number>(BUILTIN_CALLS.promises),
    sampleAllocations: ((step: 'start' | 'stop') => call(BUILTIN_CALLS.allocations, step)) as ServerProcess['sampleAllocations'],
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await call(BUILTIN_CALLS.stop).catch(() => {});
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

function waitForReady(child: ChildProcess, id: string, stderr: () => string, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${id} did not start within ${timeoutMs} ms:\n${stderr()}`));
    }, timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message.type === 'ready') {
        cleanup();
        resolve(message.origin);
      } else if (message.type === 'failed') {
        cleanup();
        reject(new Error(`${id} failed to start:\n${message.error}\n${stderr()}`));
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`${id} exited (${code ?? signal}) before it was ready:\n${stderr()}`));
    };
    function cleanup() {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
