/**
 * What the kernel counted for a process, from Linux's /proc, for `node bench/instructions.ts
 * … --measure kernel` and `--measure cpu`: its page faults and every thread's context
 * switches, the kernel's share of a request that is not a system call (`strace -c` counts
 * those) and that callgrind, which counts the process' own instructions, cannot see; and its
 * CPU time split into user space and kernel (`utime`, `stime`).
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface KernelCounters {
  /** minor page faults: a first touch of a page with no I/O (fresh heap, a page reused after GC) */
  readonly minor: number;
  /** major page faults: the page had to be read in */
  readonly major: number;
  /** a thread gave up its core (waited: the event loop's poll, the GC's helper threads) */
  readonly voluntary: number;
  /** the scheduler took a thread's core away: depends on what else runs */
  readonly involuntary: number;
  /** CPU time in user space, every thread, in seconds (to 10 ms: the kernel's clock ticks) */
  readonly userSeconds: number;
  /** CPU time in the kernel on the process' behalf (system calls, faults), every thread, in seconds (to 10 ms) */
  readonly systemSeconds: number;
  /**
   * The main thread's share of `userSeconds` (to 10 ms): a Node server's JavaScript and its
   * event loop. The rest is its other threads': V8's platform workers (concurrent marking,
   * parallel scavenges, background compilation) and libuv's pool, which callgrind counts with
   * the main thread and `process.cpuUsage()` adds to it.
   */
  readonly mainUserSeconds: number;
  /** the main thread's share of `systemSeconds` (to 10 ms) */
  readonly mainSystemSeconds: number;
}

/**
 * /proc gives times in clock ticks of USER_HZ, which Linux fixes at 100 for what it reports
 * to user space whatever the kernel's own tick (proc(5), `sysconf(_SC_CLK_TCK)`).
 */
const TICKS_PER_SECOND = 100;

/**
 * The counters of process `pid` so far (`'self'`: this process). Faults are the process'
 * (every thread, children excluded); switches are summed over `/proc/<pid>/task/*`, since
 * `/proc/<pid>/status` gives only the main thread's. A thread that ends between two readings
 * takes its switches with it; a Node server's threads (the event loop, V8's platform workers,
 * libuv's pool) live as long as the process.
 */
export function kernelCounters(pid: number | 'self'): KernelCounters {
  const fields = statFields(`/proc/${pid}/stat`);
  // the main thread is the task whose id is the process'; its stat holds its own times only
  const main = statFields(`/proc/${pid}/task/${pid === 'self' ? process.pid : pid}/stat`);
  let voluntary = 0;
  let involuntary = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
    involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
  }
  return {
    minor: Number(fields[7]),
    major: Number(fields[9]),
    voluntary,
    involuntary,
    // utime and stime: fields 14 and 15 of proc(5)
    userSeconds: Number(fields[11]) / TICKS_PER_SECOND,
    systemSeconds: Number(fields[12]) / TICKS_PER_SECOND,
    mainUserSeconds: Number(main[11]) / TICKS_PER_SECOND,
    mainSystemSeconds: Number(main[12]) / TICKS_PER_SECOND,
  };
}

/**
 * The fields of a `stat` file after the command name, which is in parentheses and may hold
 * spaces and parentheses: minflt and majflt, fields 10 and 12 of proc(5), are the 8th and
 * 10th after it; utime and stime, fields 14 and 15, the 12th and 13th.
 */
function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
