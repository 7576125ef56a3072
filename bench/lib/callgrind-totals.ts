/**
 * Reads what callgrind counted from its dump files, for `node bench/instructions.ts`: the
 * `events:` line names the counters, the `totals:` line gives them in the same order. With
 * `--cache-sim=yes` the counters include the simulated caches' misses, which `estimatedCycles`
 * weighs as valgrind's cachegrind manual does: "an L1 miss will typically cost around 10
 * cycles, an LL miss can cost as much as 200 cycles" (this VM has no hardware counters to
 * measure them: `perf stat` reports cycles and cache misses as not supported).
 *
 * @module
 */

/** Counter name (`Ir`, `I1mr`, `D1mr`, `D1mw`, `ILmr`, `DLmr`, `DLmw`) to its total. */
export type CallgrindTotals = Readonly<Record<string, number>>;

/** The totals of one dump, or `undefined` when it has none (a dump of nothing counted). */
export function parseCallgrindTotals(text: string): CallgrindTotals | undefined {
  const events = /^events: (.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const totals = /^totals: (.+)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!events || !totals || totals.some((n) => !Number.isFinite(n))) return undefined;
  // a counter missing from the end of the line is zero (callgrind's compressed form)
  return Object.freeze(Object.fromEntries(events.map((name, i) => [name, totals[i] ?? 0])));
}

/** The sum of several dumps' totals, counter by counter. */
export function addTotals(all: readonly CallgrindTotals[]): CallgrindTotals {
  const sum: Record<string, number> = {};
  for (const totals of all) {
    for (const [name, value] of Object.entries(totals)) sum[name] = (sum[name] ?? 0) + value;
  }
  return Object.freeze(sum);
}

const FIRST_LEVEL_MISSES = ['I1mr', 'D1mr', 'D1mw'] as const;
const LAST_LEVEL_MISSES = ['ILmr', 'DLmr', 'DLmw'] as const;

/** First-level and last-level misses, and the cycles they and the instructions come to. */
export function estimatedCycles(totals: CallgrindTotals): { firstLevelMisses: number; lastLevelMisses: number; cycles: number } {
  if (!('I1mr' in totals)) throw new Error('no cache counters in these totals: run callgrind with --cache-sim=yes');
  const sum = (names: readonly string[]) => names.reduce((acc, name) => acc + (totals[name] ?? 0), 0);
  const firstLevelMisses = sum(FIRST_LEVEL_MISSES);
  const lastLevelMisses = sum(LAST_LEVEL_MISSES);
  return { firstLevelMisses, lastLevelMisses, cycles: (totals.Ir ?? 0) + 10 * firstLevelMisses + 200 * lastLevelMisses };
}
