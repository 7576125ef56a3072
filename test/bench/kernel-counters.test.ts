/**
 * bench/lib/kernel-counters.ts: a process' page faults and its threads' context switches,
 * read from /proc, move with what the process does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

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

/**
 * Runs `body` in a worker once `go()` is called, and `test(go, cells)` meanwhile: cell 0 is
 * the start signal, the others are the test's (`size` cells in all).
 */
async function withWorker(size: number, body: string, test: (go: () => void, cells: Int32Array) => void): Promise<void> {
  const cells = new Int32Array(new SharedArrayBuffer(4 * size));
  const worker = new Worker(`
    const { workerData: cells } = require('node:worker_threads');
    Atomics.wait(cells, 0, 0);
    ${body}
    setInterval(() => {}, 1000);
  `, { eval: true, workerData: cells });
  try {
    await once(worker, 'online');
    test(() => {
      Atomics.store(cells, 0, 1);
      Atomics.notify(cells, 0);
    }, cells);
  } finally {
    await worker.terminate();
  }
}

it('sums the context switches of every thread, not only the main one', async () => {
  // cells: [0] go, [1] never set (what the worker waits on), [2] done
  await withWorker(3, `
    for (let i = 0; i < 5; i += 1) Atomics.wait(cells, 1, 0, 5);
    Atomics.store(cells, 2, 1);
  `, (go, cells) => {
    const before = kernelCounters('self');
    go();
    // the main thread spins meanwhile: whatever it switches is involuntary, so the voluntary
    // switches counted are the worker's
    const deadline = Date.now() + 10_000;
    while (Atomics.load(cells, 2) === 0 && Date.now() < deadline);
    const after = kernelCounters('self');
    expect(Atomics.load(cells, 2)).toBe(1);
    expect(after.voluntary - before.voluntary).toBeGreaterThanOrEqual(5);
  });
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

it('counts CPU time in user space and in the kernel as the process\' own rusage does', () => {
  // the kernel's own figures, to the microsecond, against /proc's 10 ms ticks. Each /proc read
  // is bracketed by two rusage reads: on a loaded machine the main thread can lose its core
  // between two reads while the process' other threads (V8's GC helpers) keep running, and
  // what they add then is inside the bracket, not an error of the reading.
  const readBetween = () => {
    const early = process.cpuUsage();
    const counters = kernelCounters('self');
    return { early, counters, late: process.cpuUsage() };
  };
  // within a tick of rounding (and a tick of the other's loop) outside the bracket
  const tolerance = 20_000;
  const expectInside = ({ early, counters, late }: ReturnType<typeof readBetween>) => {
    expect(counters.userSeconds * 1e6).toBeGreaterThanOrEqual(early.user - tolerance);
    expect(counters.userSeconds * 1e6).toBeLessThanOrEqual(late.user + tolerance);
    expect(counters.systemSeconds * 1e6).toBeGreaterThanOrEqual(early.system - tolerance);
    expect(counters.systemSeconds * 1e6).toBeLessThanOrEqual(late.system + tolerance);
  };
  const before = readBetween();
  // CPU time, not wall time: a loaded machine stretches the loops but not what they count
  const start = before.late;
  while (process.cpuUsage(start).user < 300_000);
  // system calls: their time is the kernel's on the process' behalf
  while (process.cpuUsage(start).system < 100_000) statSync('/proc/self');
  const after = readBetween();
  expectInside(before);
  expectInside(after);
  expect(after.counters.userSeconds - before.counters.userSeconds).toBeGreaterThanOrEqual(0.25);
  expect(after.counters.systemSeconds - before.counters.systemSeconds).toBeGreaterThanOrEqual(0.05);
});

it('tells the main thread\'s CPU time from the other threads\'', async () => {
  // cells: [0] go, [1] done; the worker spins for 300 ms of its own CPU time (Node 22.19+'s
  // threadCpuUsage), not wall time: a loaded machine stretches the loop but not what it counts
  await withWorker(2, `
    const start = process.threadCpuUsage();
    while (process.threadCpuUsage(start).user < 300_000);
    Atomics.store(cells, 1, 1);
    Atomics.notify(cells, 1);
  `, (go, cells) => {
    const before = kernelCounters('self');
    go();
    // the main thread sleeps meanwhile: what is counted is the worker's
    Atomics.wait(cells, 1, 0, 10_000);
    const afterWorker = kernelCounters('self');
    expect(Atomics.load(cells, 1)).toBe(1);
    expect(afterWorker.userSeconds - before.userSeconds).toBeGreaterThanOrEqual(0.25);
    expect(afterWorker.mainUserSeconds - before.mainUserSeconds).toBeLessThanOrEqual(0.05);
    // now the main thread spins, the worker idles
    const usageBefore = process.cpuUsage();
    while (process.cpuUsage(usageBefore).user < 300_000);
    const afterMain = kernelCounters('self');
    expect(afterMain.mainUserSeconds - afterWorker.mainUserSeconds).toBeGreaterThanOrEqual(0.25);
    expect(afterMain.mainUserSeconds).toBeLessThanOrEqual(afterMain.userSeconds);
  });
});
