/**
 * The Redis commands a server sends, for `node bench/instructions.ts … --measure commands`,
 * read from Redis' MONITOR feed: how many round trips a unit of work costs in storage, and
 * of what, where a profile shows only the client's share of each (the socket writes,
 * ioredis' command objects).
 *
 * Counted are the commands clients sent (a script's `EVALSHA` is one); the commands a
 * script runs inside Redis (MONITOR marks them `lua`) are counted apart, since they cost no
 * round trip. Each is grouped by its name and the model of its first key (the part of the
 * key between the adapter's prefix and the id: `Session`, `index:grant`, `list:Trace`), so
 * a reader sees which of the library's records a flow touches.
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
  /** commands clients sent: round trips, less what a pipeline or one write carries together */
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

/**
 * Counts what Redis at `url` runs between `start()` and `stop()`, with the keys read under
 * `prefix`. `stop()` waits for the feed to catch up: it sends a marker of its own and stops
 * counting when the marker comes through, so every command Redis ran before it is in.
 */
export async function countRedisCommands(url: string, prefix: string): Promise<{ stop(): Promise<CommandCount> }> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const monitor = await client.monitor();
  const marker = `platform-auth:monitor-end:${randomUUID()}`;
  const groups = new Map<string, number>();
  let sent = 0;
  let inScripts = 0;
  let ended: (() => void) | undefined;
  const end = new Promise<void>((resolve) => { ended = resolve; });
  let done = false;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (done) return;
    if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) {
      done = true;
      ended!();
      return;
    }
    const script = source === 'lua';
    if (script) inScripts += 1;
    else sent += 1;
    const group = `${script ? '(lua) ' : ''}${groupOf(args, prefix)}`;
    groups.set(group, (groups.get(group) ?? 0) + 1);
  });
  return {
    async stop() {
      try {
        await client.echo(marker);
        await end;
      } finally {
        monitor.disconnect();
        client.disconnect();
      }
      return {
        sent,
        inScripts,
        groups: [...groups].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
      };
    },
  };
}
