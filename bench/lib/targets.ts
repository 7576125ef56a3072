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

function finding(key: string): string | undefined {
  const note = FINDINGS[key];
  return note && `Profiled: ${note}`;
}

function why(...parts: (string | undefined | false)[]): string | undefined {
  const text = parts.filter(Boolean).join(' ');
  return text || undefined;
}

function errorsNote(result: ScenarioResult): string | undefined {
  const failed = result.subjects.filter((s) => s.errors > 0);
  return failed.length ? `Errors during the runs (${failed.map((s) => `${s.id}: ${s.errors}`).join(', ')}) make this figure suspect.` : undefined;
}

/** When the throughput ratio misses but the CPU cost per request holds, contention is the likelier cause. */
function cpuNote(cpuMedian: number, min: number): string | undefined {
  if (!Number.isFinite(cpuMedian)) return undefined;
  return cpuMedian >= min
    ? `By server CPU per request the target holds (${f2(cpuMedian)}): the throughput gap is more likely contention on the machine than our code.`
    : `Server CPU per request confirms it (${f2(cpuMedian)}): ours costs more CPU per request than the baseline.`;
}

/** A miss whose pairs straddle the threshold is within this run's noise. */
function straddles(values: readonly number[], min: number): string | undefined {
  return values.some((v) => v >= min) && values.some((v) => v < min)
    ? `The pairs straddle ${min} (${values.map(f2).join(', ')}): within this run's noise; rerun on a quiet machine.`
    : undefined;
}

function ruleName(rule: TargetRule, scenario: Scenario): string {
  switch (rule.kind) {
    case 'ratio': return `ours/${rule.against ?? scenario.baselines[0]!.id} ≥ ${rule.min}`;
    case 'throughput': return `≥ ${rule.min} ${scenario.unit}`;
    case 'redis-vs-memory': return `Redis ≥ ${rule.min} × memory`;
  }
}

function checkRule(rule: TargetRule, scenario: Scenario, results: readonly ScenarioResult[]): TargetResult[] {
  const target = ruleName(rule, scenario);
  const notMeasured = (storage: TargetResult['storage'], reason: string): TargetResult =>
    ({ target, scenario: scenario.id, storage, status: 'not measured', measured: '—', why: reason });

  if (rule.kind === 'redis-vs-memory') {
    const memory = results.find((r) => r.storage === 'memory');
    const redis = results.find((r) => r.storage === 'redis');
    if (!memory?.subjects.length || !redis?.subjects.length) return [notMeasured('memory→redis', 'needs --adapter both')];
    const ratio = redis.subjects[0]!.medianThroughput / memory.subjects[0]!.medianThroughput;
    const status = ratio >= rule.min ? 'met' : 'missed';
    const measured = `${f2(ratio)} (${redis.subjects[0]!.medianThroughput.toFixed(0)} / ${memory.subjects[0]!.medianThroughput.toFixed(0)} ${scenario.unit})`;
    return [{
      target, scenario: scenario.id, storage: 'memory→redis', status, measured,
      why: status === 'missed' ? why(errorsNote(redis), finding(`${scenario.id}/redis-vs-memory`)) : undefined,
    }];
  }

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
          ? why(errorsNote(result), straddles(values, rule.min), finding(`${scenario.id}/throughput/${result.storage}`) ?? finding(`${scenario.id}/throughput`))
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
        ? why(errorsNote(result), straddles(ratio.perPair, rule.min), cpuNote(ratio.cpuMedian, rule.min),
          finding(`${scenario.id}/ratio/${result.storage}`) ?? finding(`${scenario.id}/ratio`))
        : undefined,
    };
  });
}

function checkRss(results: readonly ScenarioResult[]): TargetResult[] {
  const target = `RSS @100k ≤ ${1 + RSS_GROWTH_MAX} × RSS @10k`;
  const checked: TargetResult[] = [];
  for (const result of results) {
    const [ours, ...baselines] = result.subjects;
    if (!ours?.rss.at10k || !ours.rss.at100k) continue;
    const growth = ours.rss.at100k / ours.rss.at10k - 1;
    const status = growth <= RSS_GROWTH_MAX ? 'met' : 'missed';
    const baseline = baselines.find((b) => b.rss.at10k && b.rss.at100k);
    const baselineNote = baseline
      ? `${baseline.id} grew ${(100 * (baseline.rss.at100k! / baseline.rss.at10k! - 1)).toFixed(0)}% on the same work.`
      : undefined;
    checked.push({
      target, scenario: result.id, storage: result.storage, status,
      measured: `${mb(ours.rss.at10k)} → ${mb(ours.rss.at100k)} (${growth >= 0 ? '+' : ''}${(100 * growth).toFixed(0)}%)`,
      why: status === 'missed'
        ? why(baselineNote, finding(`${result.id}/rss/${result.storage}`) ?? finding(`${result.id}/rss`))
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

export function evaluateTargets(scenarios: readonly Scenario[], results: readonly ScenarioResult[]): TargetResult[] {
  const checked: TargetResult[] = [];
  for (const scenario of scenarios) {
    const own = results.filter((r) => r.id === scenario.id);
    if (own.length === 0) continue;
    for (const rule of scenario.targets ?? []) checked.push(...checkRule(rule, scenario, own));
  }
  return [...checked, ...checkRss(results)];
}
