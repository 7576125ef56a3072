/**
 * How fast the machine ran a run. Bare Koa's "hello" (the `koa-hello` scenario's baseline,
 * bench/servers/koa-hello.ts) does the same work in every run and none of ours, so its server
 * CPU per request measures the machine, not the code: 13.6 µs on the fastest full run on record
 * and 91.7 µs on the slowest, while the load average did not tell runs apart (0.15 at the start
 * of one at 33.8 µs). It cannot see a throttled or shared host; this gauge does, and a report
 * prints it next to the fastest full run in history/ so that a reader knows how far to trust
 * the ratios.
 *
 * @module
 */
import type { BenchResults, ScenarioResult } from './results.ts';

/** The scenario and the server whose CPU per request is the gauge. */
export const GAUGE = Object.freeze({ scenario: 'koa-hello', server: 'koa' });

/**
 * A run at least this many times slower than the fastest on record is called out in the
 * report. Not lower: full runs on record lay at 1.0-1.1 (13.6-14.5 µs), 1.5-1.7 (20.7-22.9 µs,
 * among them a run whose pairs lay closest to their medians of all) and 2.1-2.7 times (29-36
 * µs), with one at 6.7.
 */
export const SLOW_FACTOR = 2;

/** One run's gauge: bare Koa "hello"'s server CPU per request, where and when it was measured. */
export interface GaugeReading {
  readonly us: number;
  readonly commit: string | undefined;
  readonly startedAt: string;
}

/** The gauge of `results`, or `undefined` when the run has no `koa-hello` (an `--only` run) or no CPU figure. */
export function gaugeOf(results: BenchResults): GaugeReading | undefined {
  const scenarios: unknown = results.scenarios;
  if (!Array.isArray(scenarios)) return undefined;
  const scenario = (scenarios as readonly ScenarioResult[]).find((s) => s.id === GAUGE.scenario);
  const koa = scenario?.subjects.find((s) => s.id === GAUGE.server);
  const us = koa?.medianCpuUsPerUnit;
  // a run written by an older harness may lack any of these: it has no reading to offer
  if (typeof us !== 'number' || !Number.isFinite(us) || us <= 0 || typeof results.startedAt !== 'string') return undefined;
  const commit = results.machine?.commit;
  return { us, commit: typeof commit === 'string' ? commit : undefined, startedAt: results.startedAt };
}

/** The fastest of `readings`, or `undefined` when there are none. */
export function fastest(readings: readonly GaugeReading[]): GaugeReading | undefined {
  return readings.reduce<GaugeReading | undefined>((best, r) => (!best || r.us < best.us ? r : best), undefined);
}

const label = (r: GaugeReading) => `${r.commit?.slice(0, 7) ?? 'unknown commit'}, ${r.startedAt.slice(0, 16)}Z`;

/**
 * The report's sentence on the machine's speed during `results`, against `reference`: the
 * fastest full run on record other than this one (./write-results.ts leaves this run out, so
 * the report written before the run is in history/ and the README written after say the
 * same). `undefined` when the run has no gauge.
 */
export function machineSpeedNote(results: BenchResults, reference: GaugeReading | undefined): string | undefined {
  const run = gaugeOf(results);
  if (!run) return undefined;
  const measured = `Bare Koa "hello" (the same work in every run, none of ours) cost ${run.us.toFixed(1)} µs of server CPU per request in this run`;
  if (!reference) return `${measured}; no other full run on record to compare it with.`;
  const fastestOther = `${label(reference)}: ${reference.us.toFixed(1)} µs`;
  if (run.us < reference.us) return `${measured}, less than in any other full run on record (the fastest before, ${fastestOther}).`;
  const factor = run.us / reference.us;
  const against = `${measured}; the fastest other full run on record (${fastestOther}).`;
  return factor >= SLOW_FACTOR
    ? `${against} This machine ran ${factor.toFixed(1)} times slower (a slow, throttled or shared host, which the load average does not show): confirm a miss on a faster machine before reading a cause into it.`
    : against;
}
