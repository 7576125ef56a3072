/**
 * bench/lib/orchestrate.ts: the order in which the sides of a scenario are measured. Real
 * server processes (bare Koa "hello", twice) and a load of real HTTP requests; each run
 * records when it started and ended, which is what the mode decides.
 */
import { pairsOf, runScenario } from '../../bench/lib/orchestrate.ts';
import type { Settings } from '../../bench/lib/settings.ts';
import { signingKeys } from '../../bench/lib/signing-keys.ts';
import type { LoadResult, RunOptions, Scenario } from '../../bench/lib/types.ts';
import { koaHello } from '../../bench/servers/koa-hello.ts';

const settings: Settings = {
  quick: true, only: [], adapters: ['memory'], pairs: 2, durationS: 0.3, warmupS: 0.1, connections: 2,
  profile: false, asyncContextFrame: false, updateReadme: false, from: undefined,
};

interface Window { readonly side: string; readonly start: number; readonly end: number; readonly measured: boolean }

/** Two bare Koa servers, each loaded by a plain fetch loop that records its runs' windows. */
function scenario(simultaneous: boolean, windows: Window[]): Scenario {
  return {
    id: 'two-hellos',
    title: 'two hellos',
    unit: 'req/s',
    order: 0,
    ours: koaHello,
    baselines: [{ ...koaHello, id: 'koa-again', label: 'bare Koa again' }],
    usesStorage: false,
    processesPerSide: 2,
    simultaneous,
    method: 'GET /.',
    async prepare(server) {
      return {
        async run({ durationS, connections }: RunOptions): Promise<LoadResult> {
          const start = performance.now();
          const until = start + durationS * 1000;
          let completed = 0;
          await Promise.all(Array.from({ length: connections }, async () => {
            while (performance.now() < until) {
              const answer = await fetch(server.origin);
              if ((await answer.text()) === 'hello') completed += 1;
            }
          }));
          const end = performance.now();
          // a warm-up slice is shorter than a measured run
          windows.push({ side: server.target.id, start, end, measured: durationS === settings.durationS });
          return {
            completed, errors: 0, durationS: (end - start) / 1000, throughput: completed / ((end - start) / 1000),
            latencyP50Ms: 1, latencyP99Ms: 1, statuses: { 200: completed },
          };
        },
      };
    },
  };
}

async function measure(simultaneous: boolean) {
  const windows: Window[] = [];
  const lines: string[] = [];
  const result = await runScenario(scenario(simultaneous, windows), 'none', {
    settings, jwks: signingKeys(), cookieKeys: ['k'.repeat(43)], redisUrl: undefined, runId: 'orchestrate-test',
    profileDir: undefined, log: (line) => lines.push(line),
  });
  expect(result.failure).toBeUndefined();
  const measured = windows.filter((w) => w.measured);
  // the measured runs, in pairs: ours' run and the baseline's of the same pair
  const pairs = Array.from({ length: measured.length / 2 }, (_, p) => [measured[2 * p]!, measured[2 * p + 1]!]);
  return { result, pairs, lines };
}

const overlap = (a: Window, b: Window) => Math.min(a.end, b.end) - Math.max(a.start, b.start);

describe('runScenario', () => {
  it('loads both sides of a pair at the same time when the scenario is simultaneous, with twice the pairs', async () => {
    const { result, pairs, lines } = await measure(true);
    expect(pairsOf({ simultaneous: true }, settings)).toBe(4);
    expect(result.subjects.map((s) => s.runs.length)).toEqual([4, 4]);
    expect(result.ratios[0]!.perPair).toHaveLength(4);
    expect(pairs).toHaveLength(4);
    for (const [a, b] of pairs) {
      expect(new Set([a!.side, b!.side])).toEqual(new Set(['koa', 'koa-again']));
      // most of each run overlaps the other side's
      expect(overlap(a!, b!)).toBeGreaterThan(0.5 * settings.durationS * 1000);
    }
    expect(result.method).toContain('Both sides of a pair loaded at the same time');
    // pair p measures process p mod 2 of each side
    expect(lines.filter((l) => /^ {4}\d\/4 /.test(l)).map((l) => /#(\d)/.exec(l)![1])).toEqual(['1', '1', '2', '2', '1', '1', '2', '2']);
    for (const subject of result.subjects) for (const run of subject.runs) expect(run.completed).toBeGreaterThan(0);
  }, 60_000);

  it('measures the sides one after the other otherwise', async () => {
    const { result, pairs } = await measure(false);
    expect(pairsOf({ simultaneous: false }, settings)).toBe(2);
    expect(result.subjects.map((s) => s.runs.length)).toEqual([2, 2]);
    for (const [a, b] of pairs) {
      expect([a!.side, b!.side]).toEqual(['koa', 'koa-again']);
      expect(overlap(a!, b!)).toBeLessThan(0);
    }
    expect(result.method).not.toContain('at the same time');
  }, 60_000);
});
