/**
 * bench/lib/machine-gauge.ts and its use in the report: bare Koa "hello"'s server CPU per
 * request as the gauge of how fast the machine ran, against the fastest full run on record.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fastest, gaugeOf, machineSpeedNote } from '../../bench/lib/machine-gauge.ts';
import { renderMarkdown } from '../../bench/lib/report-markdown.ts';
import type { BenchResults, ScenarioResult } from '../../bench/lib/results.ts';
import { fastestOnRecord } from '../../bench/lib/write-results.ts';

function subject(id: string, cpuUs: number) {
  return {
    id, label: id, runs: [], medianThroughput: 1000, medianCpuUsPerUnit: cpuUs, medianP50Ms: 1, medianP99Ms: 2, errors: 0,
    rss: { start: 0, before: 0, after: 0 }, requests: 0,
  };
}

function run(startedAt: string, commit: string, koaUs: number | undefined, mode: BenchResults['mode'] = 'full'): BenchResults {
  const scenarios = koaUs === undefined ? [] : [{
    id: 'koa-hello', title: 'Koa hello (reference)', unit: 'req/s', order: 0, storage: 'none', method: 'GET /',
    subjects: [subject('ours', koaUs * 1.3), subject('koa', koaUs)], ratios: [],
  } as unknown as ScenarioResult];
  return {
    startedAt, finishedAt: startedAt, mode,
    settings: { pairs: 1, durationS: 1, warmupS: 1, connections: 1, adapters: ['memory'], only: [] },
    machine: { node: 'v22', cpus: 2, cpuModel: 'cpu', loadavgStart: [0.5, 0.5, 0.5], loadavgEnd: [1, 1, 1], commit },
    scenarios, targets: [],
  };
}

it('reads bare Koa "hello"\'s CPU per request, and nothing from a run without it', () => {
  expect(gaugeOf(run('2026-11-29T03:49:18Z', '619cd85aaaa', 14.4))).toEqual({ us: 14.4, commit: '619cd85aaaa', startedAt: '2026-11-29T03:49:18Z' });
  expect(gaugeOf(run('2026-11-29T03:49:18Z', '619cd85', undefined))).toBeUndefined();
  expect(gaugeOf(run('2026-11-29T03:49:18Z', '619cd85', Number.NaN))).toBeUndefined();
});

it('names the fastest other run, and says how many times slower this one ran when it is twice as slow or more', () => {
  const reference = fastest([gaugeOf(run('2026-11-28T20:44Z', '0128cb9', 91.7))!, gaugeOf(run('2026-11-24T13:51Z', '2e6cc53', 13.6))!]);
  expect(reference?.commit).toBe('2e6cc53');

  const slow = machineSpeedNote(run('2026-11-28T20:44Z', '0128cb9', 91.7), reference);
  expect(slow).toContain('cost 91.7 µs of server CPU per request in this run; the fastest other full run on record (2e6cc53, 2026-11-24T13:51Z: 13.6 µs).');
  expect(slow).toContain('This machine ran 6.7 times slower');

  // 1.6 times: runs on record at this speed had pairs as tight as any
  for (const us of [14.4, 21.8]) {
    const near = machineSpeedNote(run('2026-11-29T03:49Z', '619cd85', us), reference);
    expect(near).toContain(`cost ${us.toFixed(1)} µs`);
    expect(near).not.toContain('slower');
  }

  expect(machineSpeedNote(run('2026-11-30T10:00Z', 'abcdef0', 12.0), reference))
    .toMatch(/cost 12\.0 µs .*, less than in any other full run on record \(the fastest before, 2e6cc53, 2026-11-24T13:51Z: 13\.6 µs\)\.$/);
  expect(machineSpeedNote(run('2026-11-29T08:08Z', '133cd4e', 75, 'partial'), undefined)).toMatch(/; no other full run on record to compare it with\.$/);
  expect(machineSpeedNote(run('2026-11-29T03:49Z', '619cd85', undefined), reference)).toBeUndefined();
});

it('finds the fastest other full run of a history folder, past unreadable and partial ones', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gauge-history-'));
  try {
    expect(fastestOnRecord(undefined, dir)).toBeUndefined();
    writeFileSync(join(dir, 'a-full.json'), JSON.stringify(run('2026-11-21T03:14Z', '7cae770', 20.7)));
    writeFileSync(join(dir, 'b-full.json'), JSON.stringify(run('2026-11-24T20:17Z', 'b89816c', 14.4)));
    // a partial run on a fast moment is not a full run's reference
    writeFileSync(join(dir, 'c-partial.json'), JSON.stringify(run('2026-11-29T08:08Z', '133cd4e', 9, 'partial')));
    writeFileSync(join(dir, 'd-full.json'), '{ not json');
    writeFileSync(join(dir, 'e-full.json'), JSON.stringify({ scenarios: 'an older shape' }));
    // the fastest, but written without a start time: no reading, and no failure
    const { startedAt: _dropped, ...undated } = run('2026-11-22T00:00Z', 'f000000', 5);
    writeFileSync(join(dir, 'f-full.json'), JSON.stringify(undated));
    expect(fastestOnRecord(undefined, dir)).toEqual({ us: 14.4, commit: 'b89816c', startedAt: '2026-11-24T20:17Z' });
    // the run being reported, once in history/, is not its own reference
    expect(fastestOnRecord('2026-11-24T20:17Z', dir)).toEqual({ us: 20.7, commit: '7cae770', startedAt: '2026-11-21T03:14Z' });
    expect(fastestOnRecord(undefined, join(dir, 'missing'))).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('puts the sentence in the report\'s header, and nothing when there is none', () => {
  const results = run('2026-11-29T03:49Z', '619cd85', 14.4);
  expect(renderMarkdown(results, 'x.svg', 'Bare Koa "hello" cost 14.4 µs.')).toContain('> **Machine speed.** Bare Koa "hello" cost 14.4 µs.');
  expect(renderMarkdown(results, 'x.svg')).not.toContain('Machine speed');
});
