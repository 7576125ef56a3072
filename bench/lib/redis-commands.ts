/**
 * The Redis commands a server sends, for `node bench/instructions.ts … --measure commands`,
 * read from Redis' MONITOR feed: what a unit of work asks of storage, and of what, where a
 * profile shows only the client's share of each (the socket writes, ioredis' command
 * objects).
 *
 * Counted are commands, not round trips: a script's `EVALSHA` is one, and so is each command
 * of a pipeline or of a coalesced socket write, and `MULTI` and `EXEC` each, so the count is
 * an upper bound on the round trips. The commands a script runs inside Redis (MONITOR marks
 * them `lua`) are counted apart. Each is grouped by its name and the model of its first key
 * (the part of the key between the adapter's prefix and the id: `Session`, `index:grant`,
 * `list:ClientTrace`), so a reader sees which of the library's records a flow touches; a
 * script that writes several records is grouped by whichever comes first in its call, so
 * one script may show under two groups. Work a server does once per interval (the trace's
 * batched writes every 250 ms) is counted as it falls in the window.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

/** How many commands a group had. */
export interface CommandGroup {
  /** `get Session`, `evalsha AccessToken`, `(lua) del index:grant` */
  readonly name: string;
  readonly count: number;
}

export interface CommandCount {
  /** commands clients sent (each command of a pipeline or of one socket write counts) */
  readonly sent: number;
  /** commands scripts ran inside Redis */
  readonly inScripts: number;
  /** both, by group, the largest first */
  readonly groups: readonly CommandGroup[];
}

/** Commands whose first argument is not a key: `EVALSHA sha numkeys key…`. */
const SCRIPT_COMMANDS: ReadonlySet<string> = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/** Commands with no key at all. */
const KEYLESS_COMMANDS: ReadonlySet<string> = new Set([
  'ping', 'echo', 'info', 'client', 'script', 'select', 'hello', 'auth', 'cluster', 'command', 'time', 'config', 'dbsize', 'flushdb', 'flushall',
]);

/**
 * The model of `key` under `prefix`: what lies between the prefix and the id (ids are in
 * braces, a Redis Cluster hash tag), without the trailing `:`. The number a bench server
 * puts after the run's prefix for each adapter it creates (bench/lib/server-child.ts) is
 * left out. A key outside the prefix is `(other)`.
 */
export function modelOfKey(key: string, prefix: string): string {
  if (!key.startsWith(prefix)) return '(other)';
  const rest = key.slice(prefix.length).replace(/^\d+:/, '');
  const brace = rest.indexOf('{');
  const model = brace === -1 ? rest.slice(0, rest.lastIndexOf(':') === -1 ? rest.length : rest.lastIndexOf(':')) : rest.slice(0, brace);
  return model.replace(/:$/, '') || '(none)';
}

/** The group of one command as MONITOR gives it (`args`: name first), its keys under `prefix`. */
export function groupOf(args: readonly string[], prefix: string): string {
  const name = (args[0] ?? '').toLowerCase();
  if (KEYLESS_COMMANDS.has(name)) return name;
  let key: string | undefined;
  if (SCRIPT_COMMANDS.has(name)) {
    const keys = Number(args[2]);
    key = keys > 0 ? args[3] : undefined;
  } else {
    key = args[1];
  }
  return key === undefined ? name : `${name} ${modelOfKey(key, prefix)}`;
}

/** The name of the counter's two connections (`CLIENT LIST`), so they can be told from the server's. */
export const COUNTING_CONNECTION = 'platform-auth-command-count';

/** How long `stop()` waits for its marker to come through the feed. */
const MARKER_TIMEOUT_MS = 10_000;

/** A count under way: `stop()` ends it with the count, `cancel()` without one. */
export interface CommandCounting {
  stop(): Promise<CommandCount>;
  cancel(): void;
}

/**
 * Counts what Redis at `url` runs from when the returned promise resolves until `stop()`,
 * with the keys read under `prefix`. `stop()` waits for the feed to catch up: it sends a
 * marker of its own and stops counting when the marker comes through, so every command
 * Redis ran before it is in. A feed that is cut (the connection dropped: the commands in
 * between are lost, and ioredis would quietly reconnect) or a marker that does not come
 * through within {@link MARKER_TIMEOUT_MS} makes `stop()` throw rather than return a count
 * that misses commands.
 */
export async function countRedisCommands(url: string, prefix: string): Promise<CommandCounting> {
  // no reconnecting (the monitor is a duplicate with these options): a gap in the feed is an error
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectionName: COUNTING_CONNECTION });
  let monitor: Redis;
  try {
    await client.connect();
    monitor = await client.monitor();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  const marker = `platform-auth:monitor-end:${randomUUID()}`;
  const groups = new Map<string, number>();
  let sent = 0;
  let inScripts = 0;
  let settle: { resolve(): void; reject(error: Error): void } | undefined;
  const end = new Promise<void>((resolve, reject) => { settle = { resolve, reject }; });
  // a rejection nobody awaits yet (the feed cut before stop()) is not unhandled: stop() reads it
  end.catch(() => {});
  let done = false;
  const finish = (error?: Error) => {
    if (done) return;
    done = true;
    if (error) settle!.reject(error);
    else settle!.resolve();
  };
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (done) return;
    if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) {
      finish();
      return;
    }
    const script = source === 'lua';
    if (script) inScripts += 1;
    else sent += 1;
    const group = `${script ? '(lua) ' : ''}${groupOf(args, prefix)}`;
    groups.set(group, (groups.get(group) ?? 0) + 1);
  });
  monitor.on('close', () => finish(new Error('the MONITOR feed was cut: the count would miss commands')));
  // a connection already ended (the feed cut) is left alone: ioredis' disconnect() of one
  // arms a 2 s timer that nothing clears, which kept the process (a jest worker) alive
  const close = () => {
    done = true;
    for (const connection of [monitor, client]) {
      if (connection.status !== 'end') connection.disconnect();
    }
  };
  return {
    async stop() {
      let timer: NodeJS.Timeout | undefined;
      try {
        const timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the MONITOR feed did not catch up within ${MARKER_TIMEOUT_MS} ms`)), MARKER_TIMEOUT_MS);
        });
        await Promise.race([client.echo(marker).then(() => end), timedOut]);
      } finally {
        clearTimeout(timer);
        close();
      }
      return {
        sent,
        inScripts,
        groups: [...groups].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
      };
    },
    cancel: close,
  };
}
