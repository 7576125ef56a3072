/**
 * Writes a run to bench/results/: `<latest>.{json,md,svg}` (latest, latest-quick or
 * latest-partial, so a smoke run never replaces the last full one) and the same three under
 * history/ with a timestamp. Optionally puts the tables into bench/README.md.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { fastest, gaugeOf, machineSpeedNote } from './machine-gauge.ts';
import type { GaugeReading } from './machine-gauge.ts';
import { renderMarkdown, renderTables } from './report-markdown.ts';
import { renderSvg } from './report-svg.ts';
import type { BenchResults } from './results.ts';

export const RESULTS_DIR = new URL('../results/', import.meta.url).pathname;
const README = new URL('../README.md', import.meta.url).pathname;
const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/**
 * The fastest machine gauge (./machine-gauge.ts) among the full runs in `dir` (history/) other
 * than the one that started at `except` (the run being reported, once it is written there), a
 * run that cannot be read being skipped; `undefined` when none has one.
 */
export function fastestOnRecord(except?: string, dir = join(RESULTS_DIR, 'history')): GaugeReading | undefined {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('-full.json'));
  } catch {
    return undefined;
  }
  const readings: GaugeReading[] = [];
  for (const file of files) {
    try {
      const reading = gaugeOf(JSON.parse(readFileSync(join(dir, file), 'utf8')) as BenchResults);
      if (reading && reading.startedAt !== except) readings.push(reading);
    } catch {
      // an unreadable or older-shaped run has no gauge to offer
    }
  }
  return fastest(readings);
}

/** `latest`, `latest-quick` or `latest-partial`: a smoke run never replaces the last full one. */
const latestStem = (results: BenchResults) => (results.mode === 'full' ? 'latest' : `latest-${results.mode}`);

/**
 * Writes the run's reports (and, with `readme`, its tables into bench/README.md); returns the
 * files written. The machine-speed sentence is worked out once, from history/ as it was
 * before this run, so the report and the README say the same.
 */
export function publishResults(results: BenchResults, readme: boolean): string[] {
  const speed = machineSpeedNote(results, fastestOnRecord(results.startedAt));
  const written = writeResults(results, speed);
  if (readme) updateReadme(results, speed);
  return written;
}

function writeResults(results: BenchResults, speed: string | undefined): string[] {
  const latest = latestStem(results);
  const stamp = `${results.startedAt.replace(/[:.]/g, '-')}-${results.mode}`;
  const history = join(RESULTS_DIR, 'history');
  mkdirSync(history, { recursive: true });
  const written: string[] = [];
  for (const [dir, stem] of [[RESULTS_DIR, latest], [history, stamp]] as const) {
    const json = join(dir, `${stem}.json`);
    const md = join(dir, `${stem}.md`);
    const svg = join(dir, `${stem}.svg`);
    writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(svg, renderSvg(results));
    writeFileSync(md, renderMarkdown(results, `${stem}.svg`, speed));
    written.push(md, json, svg);
  }
  return written;
}

/** Replaces the block between the markers in bench/README.md with this run's tables. */
function updateReadme(results: BenchResults, speed: string | undefined): void {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`bench/README.md has no ${START} … ${END} block`);
  const latest = latestStem(results);
  const block = [
    START,
    [
      `Run of ${results.startedAt.slice(0, 16)}Z (${results.mode}: ${results.settings.pairs} pairs × ${results.settings.durationS} s, `
        + `load average ${results.machine.loadavgStart.map((l) => l.toFixed(1)).join(' ')} at the start).`,
      speed,
      `Full report: [results/${latest}.md](results/${latest}.md).`,
    ].filter(Boolean).join(' '),
    '',
    renderTables(results),
    '',
    `![req/s per scenario](results/${latest}.svg)`,
    END,
  ].join('\n');
  writeFileSync(README, readme.slice(0, start) + block + readme.slice(end + END.length));
}
