/**
 * `npm run bench` stopped by a signal (Ctrl-C's SIGINT, or the SIGTERM of `kill` and
 * `timeout`) takes its throwaway Redis with it: an orphaned `redis-server` would hold its port
 * and memory until the machine restarts, and the next runs would share the machine with it.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { eventually } from '../support/eventually.ts';

const SCRIPT = fileURLToPath(new URL('../../bench/run.ts', import.meta.url));

/** The ids of the `redis-server` processes whose parent is `parent` (Linux /proc). */
function redisChildren(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …; comm may hold spaces, so read around its parentheses
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (comm === 'redis-server' && ppid === parent) found.push(Number(entry));
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it.each([
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const)('%s stops the run and its Redis', async (signal, code) => {
  const bench = spawn(process.execPath, [SCRIPT, '--only', 'refresh', '--adapter', 'redis', '--quick'], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => bench.once('exit', (status) => resolve(status)));
  try {
    const children = await eventually(async () => redisChildren(bench.pid!), (found) => found.length > 0, { timeoutMs: 40_000 });
    expect(children).toHaveLength(1);
    bench.kill(signal);
    expect(await exited).toBe(code);
    expect(await eventually(async () => alive(children[0]!), (running) => !running)).toBe(false);
  } finally {
    if (bench.exitCode === null) bench.kill('SIGKILL');
  }
}, 60_000);
