/**
 * bench/lib/kernel-counters.ts: a process' page faults and its threads' context switches,
 * read from /proc, move with what the process does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

import { kernelCounters } from '../../bench/lib/kernel-counters.ts';

it('counts the minor page faults of touching fresh memory', () => {
  const before = kernelCounters('self');
  // 64 MiB: at least 32 pages even where transparent huge pages (2 MiB) back it
  const fresh = Buffer.alloc(64 * 1024 * 1024);
  fresh.fill(1);
  const after = kernelCounters('self');
  expect(fresh[fresh.length - 1]).toBe(1);
  expect(after.minor - before.minor).toBeGreaterThanOrEqual(32);
  expect(after.major).toBeGreaterThanOrEqual(before.major);
});

it('counts a thread that waits as voluntary context switches', () => {
  const before = kernelCounters('self');
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 5; i += 1) Atomics.wait(cell, 0, 0, 5);
  const after = kernelCounters('self');
  expect(after.voluntary - before.voluntary).toBeGreaterThanOrEqual(5);
  expect(after.involuntary).toBeGreaterThanOrEqual(before.involuntary);
});

it('reads a process whose name holds spaces and parentheses', async () => {
  const child = spawn(process.execPath, ['-e', 'process.title = "a (b) c"; process.send("titled"); setTimeout(() => {}, 10_000)'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    await once(child, 'message');
    const counters = kernelCounters(child.pid!);
    // a started Node process has faulted in its heap and code, thousands of pages; read from the
    // wrong field (after the first ')') it would be the process flags, over 4 million
    expect(counters.minor).toBeGreaterThan(100);
    expect(counters.minor).toBeLessThan(1_000_000);
    expect(Number.isInteger(counters.major)).toBe(true);
    expect(counters.voluntary).toBeGreaterThan(0);
  } finally {
    child.kill();
  }
});
