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
import type { BenchResults } from './results.ts';

/** The scenario and the server whose CPU per request is the gauge. */
export const GAUGE = Object.freeze({ scenario: 'koa-hello', server: 'koa' });

/** A run slower than this many times the fastest on record is called out in the report. */
export const SLOW_FACTOR = 1.5;

/** One run's gauge: bare Koa "hello"'s server CPU per request, where and when it was measured. */
export interface GaugeReading {
  readonly us: number;
  readonly commit: string | undefined;
  readonly startedAt: string;
}

/** The gauge of `results`, or `undefined` when the run has no `koa-hello` (an `--only` run) or no CPU figure. */
export function gaugeOf(results: BenchResults): GaugeReading | undefined {
  const scenario = results.scenarios.find((s) => s.id === GAUGE.scenario);
  const koa = scenario?.subjects.find((s) => s.id === GAUGE.server);
  const us = koa?.medianCpuUsPerUnit;
  if (typeof us !== 'number' || !Number.isFinite(us) || us <= 0) return undefined;
  return { us, commit: results.machine.commit, startedAt: results.startedAt };
}

/** The fastest of `readings`, or `undefined` when there are none. */
export function fastest(readings: readonly GaugeReading[]): GaugeReading | undefined {
  return readings.reduce<GaugeReading | undefined>((best, r) => (!best || r.us < best.us ? r : best), undefined);
}

const label = (r: GaugeReading) => `${r.commit?.slice(0, 7) ?? 'unknown commit'}, ${r.startedAt.slice(0, 16)}Z`;

/**
 * The report's sentence on the machine's speed during `results`, against `reference` (the
 * fastest full run on record); `undefined` when the run has no gauge.
 */
export function machineSpeedNote(results: BenchResults, reference: GaugeReading | undefined): string | undefined {
  const run = gaugeOf(results);
  if (!run) return undefined;
  const measured = `Bare Koa "hello" (the same work in every run, none of ours) cost ${run.us.toFixed(1)} µs of server CPU per request in this run`;
  if (!reference || reference.startedAt === run.startedAt) return `${measured}, the fastest full run on record.`;
  const factor = run.us / reference.us;
  const against = `${measured}; the fastest full run on record (${label(reference)}) measured ${reference.us.toFixed(1)} µs.`;
  return factor >= SLOW_FACTOR
    ? `${against} This machine ran ${factor.toFixed(1)} times slower: a throttled or shared host, which the load average does not show, and ratios that move more than usual between pairs. Rerun on a faster machine before reading a miss.`
    : against;
}
