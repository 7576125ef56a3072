/**
 * A Redis for tests: the one named by REDIS_URL, or a throwaway redis-server on a free
 * port, so `npm test` needs nothing running beforehand. Spawned servers keep nothing on
 * disk unless asked to (`persistent`, for tests that restart them and expect the data back).
 *
 * Without REDIS_URL and without `redis-server` on the PATH, every test file that imports this
 * module (each needs Redis throughout) is skipped with a message, unless CI is set: in CI a
 * missing Redis fails the run.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';

import { freePort } from './free-port.ts';

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

// Runs when a test file imports this module, before the file's own describe/it calls:
// turning them into skips here skips that file only (jest gives each file its own globals).
if (!process.env.REDIS_URL && !process.env.CI && !onPath('redis-server')) {
  const file = basename(expect.getState().testPath ?? 'this test file');
  process.stderr.write(`\n${file}: skipped, redis-server is not on the PATH (install it, e.g. apt-get install redis-server, or set REDIS_URL). With CI set this fails instead.\n`);
  const noop = () => {};
  Object.assign(globalThis, {
    describe: describe.skip, it: it.skip, test: test.skip,
    beforeAll: noop, afterAll: noop, beforeEach: noop, afterEach: noop,
  });
}

export interface RedisHandle {
  readonly url: string;
  readonly port: number;
  /** Kills a spawned server (idempotent); a no-op for REDIS_URL. */
  stop(): Promise<void>;
  /** Starts the spawned server again on the same port; throws for REDIS_URL. */
  restart(): Promise<void>;
  /**
   * Freezes a spawned server (SIGSTOP): it keeps its connections but answers nothing, like
   * a hung or overloaded Redis, until `resume()`. Throws for REDIS_URL.
   */
  pause(): void;
  resume(): void;
}

export interface StartRedisOptions {
  /** Spawn a dedicated server even if REDIS_URL is set (tests that stop and restart it). */
  forceSpawn?: boolean;
  /**
   * Keep the data across `stop()`/`restart()`: an append-only file, fsynced on every write,
   * in a temporary directory removed when the test process exits. Spawned servers only.
   */
  persistent?: boolean;
}

const READY_TIMEOUT_MS = 10_000;

export async function startRedis(options: StartRedisOptions = {}): Promise<RedisHandle> {
  const external = process.env.REDIS_URL;
  if (external && !options.forceSpawn) {
    return {
      url: external,
      port: Number(new URL(external).port || 6379),
      async stop() {},
      async restart() {
        throw new Error('cannot restart the Redis named by REDIS_URL');
      },
      pause() {
        throw new Error('cannot pause the Redis named by REDIS_URL');
      },
      resume() {
        throw new Error('cannot resume the Redis named by REDIS_URL');
      },
    };
  }

  const port = await freePort();
  const args = options.persistent ? persistenceArgs() : ['--save', '', '--appendonly', 'no'];
  let child: ChildProcess | undefined = await spawnServer(port, args);

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const running = child;
      child = undefined;
      if (running) await kill(running);
    },
    async restart() {
      if (child) await kill(child);
      child = undefined;
      child = await spawnServer(port, args);
    },
    pause() {
      if (!child) throw new Error('redis-server is not running');
      child.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
}

function persistenceArgs(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'platform-auth-redis-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return ['--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
}

async function spawnServer(port: number, args: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', ...args,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // an orphaned redis-server would outlive a crashed test run
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));

  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`cannot spawn redis-server (on the PATH? apt-get install redis-server, or set REDIS_URL): ${error.message}`)));
    child.once('exit', (code, signal) => reject(
      new Error(`redis-server exited (${code ?? signal}) before answering PING:\n${output}`)));
  });
  failed.catch(() => {});

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const answered = await Promise.race([ping(port), failed]);
    if (answered) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await kill(child);
  throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms:\n${output}`);
}

/** Whether a Redis on this port answers PING (inline command, no client library). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  // a paused server would hold the SIGTERM until it runs again
  child.kill('SIGCONT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
