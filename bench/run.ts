/**
 * `npm run bench`: every scenario in bench/scenarios/, ours against its baselines, on the
 * memory adapter and on a Redis this script starts itself. See bench/README.md.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { startRedis } from '../test/support/redis-server.ts';
import type { RedisHandle } from '../test/support/redis-server.ts';
import { discoverScenarios, storagesOf } from './lib/discover.ts';
import { runScenario } from './lib/orchestrate.ts';
import { renderTables } from './lib/report-markdown.ts';
import type { BenchResults, ScenarioResult } from './lib/results.ts';
import { USAGE, UsageError, parseSettings } from './lib/settings.ts';
import type { Settings } from './lib/settings.ts';
import { signingKeys } from './lib/signing-keys.ts';
import { evaluateTargets } from './lib/targets.ts';
import type { Scenario } from './lib/types.ts';
import { publishResults, RESULTS_DIR } from './lib/write-results.ts';

function commit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function modeOf(settings: Settings): BenchResults['mode'] {
  if (settings.quick) return 'quick';
  return settings.only.length || settings.adapters.length < 2 ? 'partial' : 'full';
}

/** `--from`: the saved run with its targets re-checked against today's findings. */
function rerender(settings: Settings, scenarios: Scenario[]): number {
  const saved = JSON.parse(readFileSync(settings.from!, 'utf8')) as BenchResults;
  const bench: BenchResults = { ...saved, targets: evaluateTargets(scenarios, saved.scenarios, saved.machine.commit) };
  const written = publishResults(bench, settings.updateReadme);
  console.log(`${renderTables(bench)}\n\nwritten: ${written.slice(0, 3).join(', ')}`);
  return 0;
}

async function main(): Promise<number> {
  let settings: Settings | 'help';
  try {
    settings = parseSettings(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (settings === 'help') {
    console.log(USAGE);
    return 0;
  }

  const all = await discoverScenarios();
  if (settings.from) return rerender(settings, all);
  const unknown = settings.only.filter((id) => !all.some((s) => s.id === id));
  if (unknown.length) {
    console.error(`unknown scenario ${unknown.join(', ')}; known: ${all.map((s) => s.id).join(', ')}`);
    return 2;
  }
  const selected = all.filter((s) => settings.only.length === 0 || settings.only.includes(s.id));
  const startedAt = new Date().toISOString();
  const loadavgStart = loadavg();

  // interrupted (Ctrl-C, or `kill`/`timeout`, which send SIGTERM): the throwaway Redis goes too,
  // also one still starting. The server children exit on their own once their channel to this
  // process closes
  let redis: Promise<RedisHandle> | undefined;
  const stopRedis = async () => (await redis?.catch(() => undefined))?.stop();
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      void stopRedis().finally(() => process.exit(code));
    });
  }
  if (selected.some((s) => storagesOf(s, settings.adapters).includes('redis'))) {
    // always a throwaway server on a free port: never the Redis of REDIS_URL or on 6379
    redis = startRedis({ forceSpawn: true });
  }
  const redisUrl = (await redis)?.url;

  // the code measured is the code at the start: a commit made during a long run must not be credited with it
  const runCommit = commit();
  const runId = randomBytes(4).toString('hex');
  const profileDir = settings.profile ? join(RESULTS_DIR, 'profiles', startedAt.replace(/[:.]/g, '-')) : undefined;
  const ctx = {
    settings,
    jwks: signingKeys(),
    cookieKeys: [randomBytes(32).toString('base64url')],
    redisUrl,
    runId,
    profileDir,
    log: (line: string) => console.log(line),
  };

  const results: ScenarioResult[] = [];
  try {
    for (const scenario of selected) {
      const storages = storagesOf(scenario, settings.adapters);
      if (storages.length === 0) console.log(`\n${scenario.id}: skipped, it runs on ${scenario.storages!.join(', ')} only (--adapter)`);
      for (const storage of storages) {
        console.log(`\n${scenario.id} (${storage})`);
        const began = performance.now();
        results.push(await runScenario(scenario, storage, ctx));
        console.log(`    (${((performance.now() - began) / 1000).toFixed(1)} s)`);
      }
    }
  } finally {
    await stopRedis();
  }

  const bench: BenchResults = {
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: modeOf(settings),
    settings: {
      pairs: settings.pairs, durationS: settings.durationS, warmupS: settings.warmupS,
      connections: settings.connections, adapters: settings.adapters, only: settings.only,
      ...(settings.asyncContextFrame ? { asyncContextFrame: true } : {}),
    },
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadavgStart,
      loadavgEnd: loadavg(),
      commit: runCommit,
    },
    scenarios: results,
    targets: evaluateTargets(selected, results, runCommit),
  };
  const written = publishResults(bench, settings.updateReadme);
  console.log(`\n${renderTables(bench)}\n\nwritten: ${written.slice(0, 3).join(', ')}`);
  return results.some((r) => r.failure) ? 1 : 0;
}

process.exitCode = await main();
