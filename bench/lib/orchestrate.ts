/**
 * Runs one scenario on one storage: starts ours and every baseline in child processes,
 * prepares and warms each up, then measures them in turn, A B A B, for `pairs` rounds.
 * The load runs in this process, never in a server's.
 *
 * @module
 */
import type { JWKS } from 'oidc-provider';

import type { ServerStats } from './protocol.ts';
import type { MemorySample, RatioResult, RunResult, ScenarioResult, SubjectResult } from './results.ts';
import { spawnServer } from './server-process.ts';
import type { ServerProcess } from './server-process.ts';
import type { Settings } from './settings.ts';
import { median } from './stats.ts';
import type { LoadResult, Scenario, StorageKind, Workload } from './types.ts';

export interface RunContext {
  readonly settings: Settings;
  readonly jwks: JWKS;
  readonly cookieKeys: string[];
  readonly redisUrl: string | undefined;
  /** unique per run, so keys of several runs never meet in one Redis */
  readonly runId: string;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
}

const WARMUP_SLICE_S = 0.5;

/** Lets sockets of the previous run close and the server's GC settle before the next one. */
const pause = (durationS: number) => new Promise((resolve) => setTimeout(resolve, Math.min(300, durationS * 100)));

const fmt = (r: RunResult, unit: string) =>
  `${r.throughput.toFixed(unit === 'flows/s' ? 1 : 0)} ${unit}, ${r.serverCpuUsPerUnit.toFixed(0)} µs CPU/${unit === 'flows/s' ? 'flow' : 'req'} (load generator ${r.loadCpuUsPerUnit?.toFixed(0)}), p50 ${r.latencyP50Ms.toFixed(1)} ms, p99 ${r.latencyP99Ms.toFixed(1)} ms${r.errors ? `, ${r.errors} errors ${JSON.stringify(r.statuses)}` : ''}`;

/**
 * Pairs a scenario measures: `--pairs`, or twice as many when both sides of a pair are loaded
 * at once (`simultaneous`), which takes the time of one side's run instead of every side's.
 */
export function pairsOf(scenario: Pick<Scenario, 'simultaneous'>, settings: Pick<Settings, 'pairs'>): number {
  return scenario.simultaneous ? settings.pairs * 2 : settings.pairs;
}

export async function runScenario(scenario: Scenario, storage: StorageKind, ctx: RunContext): Promise<ScenarioResult> {
  const { settings, log } = ctx;
  const targets = [scenario.ours, ...scenario.baselines];
  const perSide = Math.max(1, scenario.processesPerSide ?? 1);
  const method = `${scenario.method}${perSide > 1 ? ` ${perSide} server processes per side, measured in alternate pairs.` : ''}`
    + `${scenario.simultaneous ? ` Both sides of a pair loaded at the same time, each by its own ${settings.connections} connections (${pairsOf(scenario, settings)} pairs).` : ''}`;
  const base = { id: scenario.id, title: scenario.title, unit: scenario.unit, order: scenario.order, storage, method };
  // the processes of every side, process k of each side at index k * targets.length + side
  const processes: ServerProcess[] = [];
  try {
    // started together: nothing is measured yet, and a cold start takes a second
    const started = await Promise.allSettled(Array.from({ length: perSide * targets.length }, (_, n) => {
      const target = targets[n % targets.length]!;
      const k = Math.floor(n / targets.length);
      return spawnServer({
        target,
        storage,
        redisUrl: ctx.redisUrl,
        keyPrefix: `bench:${ctx.runId}:${scenario.id}:${target.id}:${k > 0 ? `${k}:` : ''}`,
        jwks: ctx.jwks,
        cookieKeys: ctx.cookieKeys,
        cpuProfileDir: ctx.profileDir,
        nodeFlags: ctx.settings.asyncContextFrame ? ['--experimental-async-context-frame'] : [],
      });
    }));
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    /** process k of every side; the first ones give the memory samples and the profile */
    const processesOf = (k: number) => processes.slice(k * targets.length, (k + 1) * targets.length);
    const servers = processesOf(0);
    const rssStart = await Promise.all(servers.map((s) => s.stats().then((x) => x.rss)));

    // RSS after 10k and 100k requests, sampled at rest: the first sample between runs past each mark
    const at10k: (MemorySample | undefined)[] = [];
    const at100k: (MemorySample | undefined)[] = [];
    const sample = (i: number, stats: ServerStats) => {
      const memory = { rss: stats.rss, heapUsed: stats.heapUsed, requests: stats.requests };
      if (stats.requests >= 10_000) at10k[i] ??= memory;
      if (stats.requests >= 100_000) at100k[i] ??= memory;
    };

    const workloads: Workload[] = [];
    for (const [n, server] of processes.entries()) {
      const i = n % targets.length;
      const first = n < targets.length;
      const workload = await scenario.prepare(server);
      // in slices, each followed by a sample at rest, so that a fast server's 10k mark is
      // sampled close to 10k requests rather than after the first measured run
      for (let left = settings.warmupS; left > 0; left -= WARMUP_SLICE_S) {
        const slice = { durationS: Math.min(left, WARMUP_SLICE_S), connections: settings.connections };
        await workload.beforeRun?.(slice);
        await workload.run(slice);
        if (first) sample(i, await server.stats());
      }
      workloads.push(workload);
      await pause(settings.durationS);
    }
    const before = await Promise.all(servers.map((s) => s.stats()));
    before.forEach((stats, i) => sample(i, stats));

    const runs: RunResult[][] = targets.map(() => []);
    const options = { durationS: settings.durationS, connections: settings.connections };
    const pairs = pairsOf(scenario, settings);
    const perUnit = (us: number, units: number) => (units > 0 ? us / units : Number.NaN);
    /** `loadCpuUs` of the load generator served `loadUnits` units (every side's, when loaded at once) */
    const record = (pair: number, k: number, i: number, load: LoadResult, serverCpuUs: number, loadCpuUs: number, loadUnits: number) => {
      const result: RunResult = { ...load, serverCpuUsPerUnit: perUnit(serverCpuUs, load.completed), loadCpuUsPerUnit: perUnit(loadCpuUs, loadUnits) };
      runs[i]!.push(result);
      log(`    ${String(pair + 1)}/${pairs} ${targets[i]!.id.padEnd(14)}${perSide > 1 ? ` #${String(k + 1)}` : ''} ${fmt(result, scenario.unit)}`);
    };
    for (let pair = 0; pair < pairs; pair += 1) {
      const k = pair % perSide;
      const measured = processesOf(k);
      const workloadsOf = measured.map((_, i) => workloads[k * targets.length + i]!);
      if (scenario.simultaneous) {
        // every side loaded at once, each by its own connections: they share each moment of the machine
        for (const workload of workloadsOf) await workload.beforeRun?.(options);
        const rest = await Promise.all(measured.map((server) => server.stats()));
        if (k === 0) rest.forEach((stats, i) => sample(i, stats));
        const loadCpuBefore = process.cpuUsage();
        const loads = await Promise.all(workloadsOf.map((workload) => workload.run(options)));
        const cpu = await Promise.all(measured.map((server) => server.cpuUs()));
        const { user, system } = process.cpuUsage(loadCpuBefore);
        // the load generator's CPU served every side: shared out by the units completed
        const completed = loads.reduce((sum, load) => sum + load.completed, 0);
        loads.forEach((load, i) => record(pair, k, i, load, cpu[i]! - rest[i]!.cpuUs, user + system, completed));
        await pause(settings.durationS);
        continue;
      }
      for (const [i, server] of measured.entries()) {
        const workload = workloadsOf[i]!;
        await workload.beforeRun?.(options);
        // stats() collects garbage first: the garbage of preparation is not charged to the run
        const rest = await server.stats();
        if (k === 0) sample(i, rest);
        const loadCpuBefore = process.cpuUsage();
        const load = await workload.run(options);
        const cpu = (await server.cpuUs()) - rest.cpuUs;
        const { user, system } = process.cpuUsage(loadCpuBefore);
        record(pair, k, i, load, cpu, user + system, load.completed);
        await pause(settings.durationS);
      }
    }

    const after = await Promise.all(servers.map((s) => s.stats()));
    after.forEach((stats, i) => sample(i, stats));
    const subjects: SubjectResult[] = targets.map((target, i) => ({
      id: target.id,
      label: target.label,
      runs: runs[i]!,
      medianThroughput: median(runs[i]!.map((r) => r.throughput)),
      medianCpuUsPerUnit: median(runs[i]!.map((r) => r.serverCpuUsPerUnit)),
      medianP50Ms: median(runs[i]!.map((r) => r.latencyP50Ms)),
      medianP99Ms: median(runs[i]!.map((r) => r.latencyP99Ms)),
      errors: runs[i]!.reduce((sum, r) => sum + r.errors, 0),
      rss: {
        start: rssStart[i]!,
        before: before[i]!.rss,
        after: after[i]!.rss,
        at10k: at10k[i],
        at100k: at100k[i],
      },
      requests: after[i]!.requests,
      cpuProfile: servers[i]!.cpuProfile,
    }));
    const ratios: RatioResult[] = subjects.slice(1).map((baseline) => {
      // a baseline that completed nothing has no ratio (NaN), not an infinite one
      const perPair = subjects[0]!.runs.map((r, p) => (baseline.runs[p]!.throughput > 0 ? r.throughput / baseline.runs[p]!.throughput : Number.NaN));
      const cpuPerPair = subjects[0]!.runs.map((r, p) => baseline.runs[p]!.serverCpuUsPerUnit / r.serverCpuUsPerUnit);
      return { against: baseline.id, perPair, median: median(perPair), cpuPerPair, cpuMedian: median(cpuPerPair) };
    });
    return { ...base, subjects, ratios };
  } catch (error) {
    const failure = error instanceof Error ? error.stack ?? error.message : String(error);
    log(`    FAILED: ${failure}`);
    return { ...base, subjects: [], ratios: [], failure };
  } finally {
    await Promise.all(processes.map((s) => s.stop()));
  }
}
