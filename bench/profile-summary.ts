/**
 * Summarises a V8 CPU profile written by `npm run bench -- --profile`:
 *
 *   node bench/profile-summary.ts bench/results/profiles/<stamp>/<server>.cpuprofile [--top 25] [--all] [--help]
 *
 * Prints where the time went by package (self time), the hottest functions (self time), and
 * the inclusive time of this repository's own functions, which is what "our policy layer
 * costs" means. Idle time is left out of every percentage. When the profile has its
 * `<file>.windows.json` sidecar (written by bench/lib/server-child.ts), only samples taken
 * during measured runs count; `--all` counts preparation and warm-up too.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';

import { commandLine } from './lib/command-line.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)']);
const REPO = new URL('../', import.meta.url).href;

function packageOf(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node (internal)';
  if (url.startsWith(REPO)) return `repo ${url.slice(REPO.length).split('/')[0]}/`;
  return url;
}

function frameName(frame: CallFrame): string {
  const where = frame.url.startsWith(REPO) ? frame.url.slice(REPO.length) : frame.url.replace(/^.*\/node_modules\//, '');
  return `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
}

function table(title: string, rows: [string, number][], total: number, top: number): string {
  const lines = rows.sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, us]) => `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`);
  return `\n${title}\n${lines.join('\n')}`;
}

/** Whether sample `i` falls in a measured run, by the sidecar's windows (all when none). */
function measuredSamples(path: string, profile: CpuProfile, all: boolean): { keep(i: number): boolean; label: string } {
  const sidecar = `${path}.windows.json`;
  if (all || !existsSync(sidecar)) return { keep: () => true, label: 'whole process' };
  const { windows } = JSON.parse(readFileSync(sidecar, 'utf8')) as { windows: [number, number][] };
  const at: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) at.push(t += delta);
  return {
    keep: (i) => windows.some(([start, end]) => at[i]! >= start && at[i]! <= end),
    label: `${windows.length} measured runs only (--all for the whole process)`,
  };
}

function summarise(path: string, profile: CpuProfile, top: number, all: boolean): string {
  const measured = measuredSamples(path, profile, all);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (!measured.keep(i)) return;
    total += profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });

  let busy = 0;
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const inclusiveOwn = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (IDLE.has(frame.functionName)) continue;
    busy += us;
    const pkg = packageOf(frame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
    const name = frameName(frame);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    // inclusive time of the repository's own frames on this stack, each counted once
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (!f.url.startsWith(REPO) || f.url.includes('/node_modules/')) continue;
      const own = frameName(f);
      if (seen.has(own)) continue;
      seen.add(own);
      inclusiveOwn.set(own, (inclusiveOwn.get(own) ?? 0) + us);
    }
  }
  return [
    `${path}\n  ${measured.label}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (percentages are of busy time)`,
    table('Self time by package', [...byPackage], busy, top),
    table('Self time by function', [...byFunction], busy, top),
    table('Inclusive time of this repository\'s functions', [...inclusiveOwn], busy, top),
  ].join('\n');
}

const USAGE = 'usage: node bench/profile-summary.ts <file.cpuprofile>... [--top N] [--all] [--help]';

/** A profile file read and parsed, or why it cannot be: a message, not a stack trace. */
function readProfile(path: string): CpuProfile | string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot be read (${code ?? String(error)})`;
  }
  let profile: Partial<CpuProfile> | null;
  try {
    profile = JSON.parse(text) as Partial<CpuProfile> | null;
  } catch (error) {
    return `${path}: not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof profile !== 'object' || profile === null || !Array.isArray(profile.nodes) || !Array.isArray(profile.samples) || !Array.isArray(profile.timeDeltas) || typeof profile.startTime !== 'number') {
    return `${path}: not a V8 CPU profile (no nodes, samples, timeDeltas and startTime)`;
  }
  return profile as CpuProfile;
}

function main(): number {
  const parsed = commandLine({ top: { type: 'string', default: '25' }, all: { type: 'boolean', default: false } }, USAGE);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const top = Number(values.top);
  if (positionals.length === 0 || !Number.isInteger(top) || top <= 0) {
    console.error(positionals.length === 0 ? `no profile named\n\n${USAGE}` : `--top takes a positive whole number, not ${values.top}\n\n${USAGE}`);
    return 2;
  }
  let failed = false;
  for (const file of positionals) {
    const profile = readProfile(file);
    if (typeof profile === 'string') {
      console.error(profile);
      failed = true;
      continue;
    }
    console.log(`${summarise(file, profile, top, values.all)}\n`);
  }
  return failed ? 1 : 0;
}

process.exitCode = main();
