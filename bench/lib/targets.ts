/**
 * The issue's targets, checked against a run: each scenario's own `targets`, plus the RSS
 * rule that applies to every server that answered 100k requests.
 *
 * @module
 */
import { FINDINGS } from '../findings.ts';
import type { ScenarioResult, TargetResult } from './results.ts';
import type { Scenario, TargetRule } from './types.ts';

/** RSS after 100k requests may exceed RSS after 10k by this fraction at most. */
export const RSS_GROWTH_MAX = 0.1;

// three digits: a 0.897 printed as 0.90 next to "missed" would read as a contradiction
const f2 = (n: number) => n.toFixed(3);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** The commit of the run under test (`evaluateTargets` sets it). */
let runCommit: string | undefined;

/**
 * The profiled cause of a miss, only if it was measured on the commit under test; a cause
 * found on older code may have been fixed since, so then the report says so instead.
 */
export function findingFor(key: string, commit: string | undefined, findings = FINDINGS): string | undefined {
  const found = findings[key];
  if (!found) return undefined;
  if (commit !== undefined && (commit.startsWith(found.commit) || found.commit.startsWith(commit))) return `Profiled: ${found.note}`;
  return `Not profiled on this commit (the last profile, on ${found.commit}, may no longer apply).`;
}

function finding(key: string): string | undefined {
  return findingFor(key, runCommit);
}

function why(...parts: (string | undefined | false)[]): string | undefined {
  const text = parts.filter(Boolean).join(' ');
  return text || undefined;
}

function errorsNote(result: ScenarioResult): string | undefined {
  const failed = result.subjects.filter((s) => s.errors > 0);
  return failed.length ? `Errors during the runs (${failed.map((s) => `${s.id}: ${s.errors}`).join(', ')}) make this figure suspect.` : undefined;
}

/**
 * When the throughput ratio misses but the CPU cost per request holds, contention is the likelier
 * cause. Not for sides loaded at once (`simultaneous`): there the machine's moment is shared by
 * both, and identical servers read as far apart by CPU as by throughput (bench/README.md, "Both
 * sides at once": an A/A of the demo host gave 0.908 and 0.940 by CPU cost), so the figure is
 * given and no cause is named.
 */
function cpuNote(cpuMedian: number, min: number, simultaneous: boolean): string | undefined {
  if (!Number.isFinite(cpuMedian)) return undefined;
  if (simultaneous) {
    return `By server CPU per request: ${f2(cpuMedian)}. Both sides ran at once; identical servers have read as far apart `
      + 'by either figure (bench/README.md, "Both sides at once"), so one run names no cause: read it across runs.';
  }
  return cpuMedian >= min
    ? `By server CPU per request the target holds (${f2(cpuMedian)}): the throughput gap is more likely contention on the machine than our code.`
    : `Server CPU per request gives ${f2(cpuMedian)} too, short of ${min}: the gap is in the work each request costs, not contention.`;
}

/**
 * A rate that falls with every run is not noise: something grows with the work done.
 * Returns the note, or undefined when the runs do not fall steadily by a sixth or more.
 */
function falling(values: readonly number[], unit: string): string | undefined {
  const steady = values.length >= 3 && values.every((v, i) => i === 0 || v < values[i - 1]!);
  return steady && values.at(-1)! < values[0]! * (5 / 6)
    ? `The rate falls with every run (${values[0]!.toFixed(0)} → ${values.at(-1)!.toFixed(0)} ${unit}): something grows with the work done; this is not noise.`
    : undefined;
}

/**
 * How many runs reached the threshold. Only when at least a third land on each side is the
 * miss called noise: one lucky pair does not make a consistent shortfall a coin toss.
 */
function straddles(values: readonly number[], min: number): string | undefined {
  const reached = values.filter((v) => v >= min).length;
  if (reached === 0) return undefined;
  const third = values.length / 3;
  return reached >= third && values.length - reached >= third
    ? `${reached} of ${values.length} runs reached ${min}: a miss within this run's noise; rerun on a quiet machine.`
    : `${reached} of ${values.length} runs reached ${min}.`;
}

function ruleName(rule: TargetRule, scenario: Scenario): string {
  switch (rule.kind) {
    case 'ratio': return `ours/${rule.against ?? scenario.baselines[0]!.id} ≥ ${rule.min}`;
    case 'throughput': return `≥ ${rule.min} ${scenario.unit}`;
  }
}

function checkRule(rule: TargetRule, scenario: Scenario, results: readonly ScenarioResult[]): TargetResult[] {
  const target = ruleName(rule, scenario);
  const notMeasured = (storage: TargetResult['storage'], reason: string): TargetResult =>
    ({ target, scenario: scenario.id, storage, status: 'not measured', measured: '—', why: reason });

  return results.map((result): TargetResult => {
    if (!result.subjects.length) return notMeasured(result.storage, `the scenario failed: ${result.failure?.split('\n')[0]}`);
    if (rule.kind === 'throughput') {
      const values = result.subjects[0]!.runs.map((r) => r.throughput);
      const value = result.subjects[0]!.medianThroughput;
      const status = value >= rule.min ? 'met' : 'missed';
      const cpuUs = result.subjects[0]!.medianCpuUsPerUnit;
      // a Node server is one thread: one core's worth of CPU bounds what one process can do
      const capacity = Number.isFinite(cpuUs) ? `; ${(cpuUs / 1000).toFixed(1)} ms server CPU each, so at most ${(1e6 / cpuUs).toFixed(0)}/s per core` : '';
      return {
        target, scenario: scenario.id, storage: result.storage, status,
        measured: `${value.toFixed(1)} ${scenario.unit} (runs ${values.map((v) => v.toFixed(0)).join(', ')})${capacity}`,
        why: status === 'missed'
          ? why(errorsNote(result), falling(values, scenario.unit) ?? straddles(values, rule.min),
            finding(`${scenario.id}/throughput/${result.storage}`) ?? finding(`${scenario.id}/throughput`))
          : undefined,
      };
    }
    const against = rule.against ?? scenario.baselines[0]!.id;
    const ratio = result.ratios.find((r) => r.against === against);
    if (!ratio) return notMeasured(result.storage, `no baseline ${against} in the run`);
    if (!Number.isFinite(ratio.median)) {
      return notMeasured(result.storage, errorsNote(result) ?? `the baseline ${against} completed nothing`);
    }
    const status = ratio.median >= rule.min ? 'met' : 'missed';
    const cpu = Number.isFinite(ratio.cpuMedian) ? `; CPU-cost ratio ${f2(ratio.cpuMedian)}` : '';
    return {
      target, scenario: scenario.id, storage: result.storage, status,
      measured: `${f2(ratio.median)} (pairs ${ratio.perPair.map(f2).join(', ')})${cpu}`,
      why: status === 'missed'
        ? why(errorsNote(result), straddles(ratio.perPair, rule.min), cpuNote(ratio.cpuMedian, rule.min, scenario.simultaneous === true),
          finding(`${scenario.id}/ratio/${result.storage}`) ?? finding(`${scenario.id}/ratio`))
        : undefined,
    };
  });
}

function checkRss(results: readonly ScenarioResult[]): TargetResult[] {
  const target = `RSS @100k ≤ ${1 + RSS_GROWTH_MAX} × RSS @10k`;
  const checked: TargetResult[] = [];
  const pct = (from: number, to: number) => `${to >= from ? '+' : ''}${(100 * (to / from - 1)).toFixed(0)}%`;
  for (const result of results) {
    const [ours, ...baselines] = result.subjects;
    const { at10k, at100k } = ours?.rss ?? {};
    // typeof: results written before samples were objects carry bare numbers here
    if (!ours || typeof at10k !== 'object' || typeof at100k !== 'object') continue;
    const growth = at100k.rss / at10k.rss - 1;
    const status = growth <= RSS_GROWTH_MAX ? 'met' : 'missed';
    const baseline = baselines.find((b) => b.rss.at10k && b.rss.at100k);
    const heapGrew = at100k.heapUsed / at10k.heapUsed - 1 > RSS_GROWTH_MAX;
    checked.push({
      target, scenario: result.id, storage: result.storage, status,
      measured: `${mb(at10k.rss)} → ${mb(at100k.rss)} (${pct(at10k.rss, at100k.rss)}) at rest after ${Math.round(at10k.requests / 1000)}k and `
        + `${Math.round(at100k.requests / 1000)}k requests; JS heap ${mb(at10k.heapUsed)} → ${mb(at100k.heapUsed)}; ${mb(ours.rss.after)} after the last run`,
      why: status === 'missed'
        ? why(
          baseline && `${baseline.id} grew ${pct(baseline.rss.at10k!.rss, baseline.rss.at100k!.rss)} on the same work.`,
          heapGrew
            ? `The JS heap after GC grew too: the server holds more data with work done${result.storage === 'memory' ? ' (the memory adapter keeps every record it stores until the record expires)' : ''}.`
            : 'The JS heap after GC did not grow: what grew is memory the process keeps resident (V8 pages, the allocator), not data it holds.',
          finding(`${result.id}/rss/${result.storage}`) ?? finding(`${result.id}/rss`),
        )
        : undefined,
    });
  }
  if (checked.length === 0) {
    checked.push({
      target, scenario: '(all)', storage: 'none', status: 'not measured', measured: '—',
      why: 'no server answered 100k requests in this run (run without --quick, or with a longer --duration)',
    });
  }
  return checked;
}

export function evaluateTargets(scenarios: readonly Scenario[], results: readonly ScenarioResult[], commit?: string): TargetResult[] {
  runCommit = commit;
  const checked: TargetResult[] = [];
  for (const scenario of scenarios) {
    const own = results.filter((r) => r.id === scenario.id);
    if (own.length === 0) continue;
    for (const rule of scenario.targets ?? []) checked.push(...checkRule(rule, scenario, own));
  }
  return [...checked, ...checkRss(results)];
}
