/**
 * bench/results/*.md: the throughput table, the targets with their verdicts, and how each
 * scenario is measured.
 *
 * @module
 */
import { FINDINGS } from '../findings.ts';
import type { BenchResults, ScenarioResult, SubjectResult } from './results.ts';

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const mb = (bytes: number | undefined) => (bytes === undefined ? '—' : (bytes / 2 ** 20).toFixed(0));
const ms = (value: number) => (Number.isFinite(value) ? (value < 10 ? value.toFixed(2) : value.toFixed(1)) : '—');
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** `none`: the scenario never reaches storage and ran once */
const storageLabel = (storage: string) => (storage === 'none' ? 'n/a' : storage);

function throughput(result: ScenarioResult, subject: SubjectResult): string {
  return `${(result.unit === 'flows/s' ? one : int).format(subject.medianThroughput)} ${result.unit}`;
}

const fixed = (value: number | undefined, digits: number) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '—');

function subjectRow(result: ScenarioResult, subject: SubjectResult, index: number): string {
  const ratio = index === 0 ? undefined : result.ratios.find((r) => r.against === subject.id);
  return `| ${index === 0 ? `**${cell(result.title)}**` : ''} | ${index === 0 ? storageLabel(result.storage) : ''} | ${cell(subject.label)} | ${throughput(result, subject)} | ${ms(subject.medianP50Ms)} | ${ms(subject.medianP99Ms)} | ${subject.errors} | ${Number.isFinite(subject.medianCpuUsPerUnit) ? int.format(subject.medianCpuUsPerUnit) : '—'} | ${ratio ? ratio.perPair.map((r) => r.toFixed(2)).join(', ') : ''} | ${ratio ? `**${ratio.median.toFixed(2)}**` : ''} | ${ratio ? fixed(ratio.cpuMedian, 2) : ''} | ${mb(subject.rss.before)} → ${mb(subject.rss.after)} | ${mb(subject.rss.at10k?.rss)} → ${mb(subject.rss.at100k?.rss)} |`;
}

/** The two tables (throughput, targets): also what goes into bench/README.md. */
export function renderTables(results: BenchResults): string {
  const lines = [
    '| scenario | storage | server | median | p50 ms | p99 ms | errors | server CPU µs per unit | ours/this, per pair | median ratio | CPU-cost ratio | RSS MB before → after | RSS MB @10k → @100k req |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |',
  ];
  for (const result of results.scenarios) {
    if (result.failure) {
      lines.push(`| **${cell(result.title)}** | ${storageLabel(result.storage)} | failed | ${cell(result.failure.split('\n')[0]!)} | | | | | | | | | |`);
      continue;
    }
    result.subjects.forEach((subject, i) => lines.push(subjectRow(result, subject, i)));
  }
  lines.push('', '| target | scenario | storage | result | measured | why |', '| --- | --- | --- | --- | --- | --- |');
  for (const t of results.targets) {
    const mark = t.status === 'met' ? '✅ met' : t.status === 'missed' ? '❌ missed' : '— not measured';
    lines.push(`| ${cell(t.target)} | ${t.scenario} | ${storageLabel(t.storage)} | ${mark} | ${cell(t.measured)} | ${cell(t.why ?? '')} |`);
  }
  return lines.join('\n');
}

/** `speed`: the sentence of ./machine-gauge.ts on how fast the machine ran, when the run has its gauge. */
export function renderMarkdown(results: BenchResults, chartFile: string, speed?: string): string {
  const { machine, settings } = results;
  const methods = new Map(results.scenarios.map((s) => [s.id, `- **${s.id}** (${s.title}): ${s.method}`]));
  const ran = new Set(results.scenarios.map((s) => s.id));
  // one line per note: several targets may share one cause
  const keysByNote = new Map<string, string[]>();
  for (const [key, { commit, note }] of Object.entries(FINDINGS)) {
    // only causes measured on the code under test
    if (ran.has(key.split('/')[0]!) && commit === machine.commit?.slice(0, commit.length)) keysByNote.set(note, [...(keysByNote.get(note) ?? []), key]);
  }
  const notes = [...keysByNote].map(([note, keys]) => `- **${keys.join(', ')}**: ${note}`);
  const profiles = results.scenarios.flatMap((s) => s.subjects.filter((x) => x.cpuProfile).map((x) => `- ${s.id} ${s.storage} ${x.id}: \`${x.cpuProfile}\``));
  return [
    `# Benchmark results (${results.mode})`,
    '',
    `${results.startedAt} → ${results.finishedAt}; Node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}; commit ${machine.commit ?? 'unknown'}.`,
    `${settings.pairs} pairs × ${settings.durationS} s per server (after ${settings.warmupS} s warm-up), ${settings.connections} connections, adapters: ${settings.adapters.join(', ')}${settings.only.length ? `, only: ${settings.only.join(', ')}` : ''}.${settings.asyncContextFrame ? ' Every server ran with `--experimental-async-context-frame` (not the default on Node 22).' : ''}`,
    '',
    `> **Noise.** Servers and the load generator share ${machine.cpus} cores, and other work on the machine`,
    `> moves every figure (load average ${machine.loadavgStart.map((l) => l.toFixed(2)).join(' ')} at the start, ${machine.loadavgEnd.map((l) => l.toFixed(2)).join(' ')} at the end).`,
    '> Read the ratios: ours and its baseline run alternately within seconds of each other, so they see the',
    '> same conditions; absolute req/s are only comparable within one run.',
    ...(speed ? ['', `> **Machine speed.** ${speed}`] : []),
    '',
    renderTables(results),
    '',
    `![req/s per scenario, ours beside its baselines](${chartFile})`,
    '',
    '## How each scenario is measured',
    '',
    ...methods.values(),
    ...(notes.length ? ['', '## Known bottlenecks (from CPU profiles, bench/findings.ts)', '', ...notes] : []),
    ...(profiles.length ? ['', '## CPU profiles', '', 'Summarise one with `node bench/profile-summary.ts <file>`.', '', ...profiles] : []),
    '',
  ].join('\n');
}
