/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`) against the
 * demo host, in CI as `npm run test:conformance`.
 *
 * Starts examples/host in this process on 127.0.0.1 with its baseUrl `http://localhost:<port>`
 * (a localhost URL, which `dns-rebinding-protection` needs), then runs one after the other:
 *
 * 1. `conformance server --requirements 2026-07-28` against `/mcp`, with
 *    test/conformance/expected-failures.2026-07-28.yml;
 * 2. the same for `2025-11-25`, with test/conformance/expected-failures.2025-11-25.yml;
 * 3. `conformance server --scenario http-header-validation` (SEP-2243 `Mcp-Method`/`Mcp-Name`
 *    headers): pending in 2026-07-28, so `--requirements` runs it without holding it to the
 *    list; /mcp must pass it, so it runs on its own too;
 * 4. `conformance authorization --scenario authorization-server-metadata-endpoint` against
 *    the issuer (`authorization-code-grant` is not run: it is interactive, a person signs in
 *    at a browser).
 *
 * Each run has its own time limit; the script prints each run's summary and, for a failing
 * run, the message of every check it did not expect to fail, and exits 1 if any run failed.
 * See test/conformance/README.md.
 *
 *   node scripts/mcp-conformance.ts                  every run
 *   node scripts/mcp-conformance.ts 2025-11-25 auth  only the runs named
 *     (2026-07-28, 2025-11-25, http-header-validation, auth)
 *
 * | variable | |
 * | --- | --- |
 * | `CONFORMANCE_OUTPUT_DIR` | where the results go (default: a new directory under the OS temp dir) |
 * | `CONFORMANCE_RUN_TIMEOUT_MS` | time limit of each run (default 300000) |
 * | `CONFORMANCE_SCENARIO_TIMEOUT_MS` | time limit of each scenario, passed as `--timeout` (default 30000) |
 * | `CONFORMANCE_VERBOSE` | `1`: print the suite's whole output, not only its summary |
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildApp } from '../examples/host/app.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFORMANCE_BIN = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES_DIR = join(ROOT, 'test/conformance');

const RUN_TIMEOUT_MS = positiveInt('CONFORMANCE_RUN_TIMEOUT_MS', 300_000);
const SCENARIO_TIMEOUT_MS = positiveInt('CONFORMANCE_SCENARIO_TIMEOUT_MS', 30_000);
const VERBOSE = process.env.CONFORMANCE_VERBOSE === '1';

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    console.error(`${name} must be a positive integer (milliseconds); got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

interface Run {
  /** the name on the command line and in the report */
  readonly name: string;
  readonly args: (urls: { mcp: string; issuer: string }, outputDir: string) => string[];
}

const serverRun = (revision: string): Run => ({
  name: revision,
  args: ({ mcp }, outputDir) => [
    'server', '--url', mcp, '--requirements', revision,
    '--expected-failures', join(EXPECTED_FAILURES_DIR, `expected-failures.${revision}.yml`),
    '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outputDir,
  ],
});

const RUNS: readonly Run[] = [
  serverRun('2026-07-28'),
  serverRun('2025-11-25'),
  // --requirements runs the scenarios a revision does not score (pending ones, the tasks
  // extension) but never holds them to the list; this one /mcp must pass, so it runs alone
  {
    name: 'http-header-validation',
    args: ({ mcp }, outputDir) => [
      'server', '--url', mcp, '--scenario', 'http-header-validation',
      '--expected-failures', join(EXPECTED_FAILURES_DIR, 'expected-failures.2026-07-28.yml'),
      '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outputDir,
    ],
  },
  {
    name: 'auth',
    args: ({ issuer }, outputDir) => [
      'authorization', '--url', issuer, '--scenario', 'authorization-server-metadata-endpoint', '-o', outputDir,
    ],
  },
];

interface RunResult {
  readonly name: string;
  /** the exit code, or why there is none */
  readonly outcome: number | 'timeout' | 'signal' | 'spawn error';
  readonly ms: number;
  readonly output: string;
}

/** Runs the suite as a child process (its own process group, so a time-out ends all of it). */
function runConformance(name: string, args: string[], timeoutMs: number): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CONFORMANCE_BIN, ...args], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    current = child;
    let output = '';
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (VERBOSE) process.stdout.write(text);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGKILL');
    }, timeoutMs);
    const finish = (outcome: RunResult['outcome']) => {
      clearTimeout(timer);
      current = undefined;
      resolve({ name, outcome, ms: Date.now() - started, output });
    };
    child.on('error', (error) => {
      output += `\n${String(error)}\n`;
      finish('spawn error');
    });
    child.on('close', (code) => finish(timedOut ? 'timeout' : code ?? 'signal'));
  });
}

let current: ReturnType<typeof spawn> | undefined;

function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

/**
 * The suite's own summary: a `--requirements` run's from `=== SUMMARY ===` on; a
 * one-scenario run's check lines, totals, failed checks and baseline verdict, without the
 * scenario's description the suite prints after them.
 */
function summaryOf(output: string): string {
  const text = stripAnsi(output).trimEnd();
  const at = text.indexOf('=== SUMMARY ===');
  if (at !== -1) return text.slice(at);
  const lines = text.split('\n');
  const from = lines.findIndex((line) => line.startsWith('Checks:'));
  if (from === -1) return lines.slice(-40).join('\n');
  const verdict = lines.findIndex((line) => /^(Expected failures|Stale baseline|Unexpected failures|Baseline)/.test(line));
  const kept = lines.slice(from, verdict === -1 ? undefined : verdict)
    .filter((line) => /^(Checks:|\d{4}-\d\d-\d\dT|Test Results:|Passed:|=== Failed Checks ===|\s+- |\s+Error)/.test(line));
  return [...kept, ...(verdict === -1 ? [] : ['', ...lines.slice(verdict)])].join('\n');
}

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/**
 * The failing checks a run did not expect: the suite lists them (scenario or
 * scenario:check-id) under "Unexpected failures"; their messages are in the results'
 * checks.json files. Stale entries are listed by the suite itself.
 */
function unexpectedDetails(output: string, outputDir: string): string[] {
  const text = stripAnsi(output);
  const at = text.indexOf('Unexpected failures (not in baseline):');
  if (at === -1) return [];
  const entries = text.slice(at).split('\n').slice(1)
    .map((line) => /^\s*✗\s+(\S+)/.exec(line)?.[1])
    .filter((entry): entry is string => entry !== undefined);
  const byScenario = checksByScenario(outputDir);
  const lines: string[] = [];
  for (const entry of entries) {
    const [scenario, checkId] = entry.split(':', 2) as [string, string | undefined];
    const failing = (byScenario.get(scenario) ?? [])
      .filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && (checkId === undefined || c.id === checkId));
    for (const c of failing) lines.push(`  ${scenario}:${c.id} ${c.status}: ${c.errorMessage ?? '(no message)'}`);
    if (failing.length === 0) lines.push(`  ${entry} (no checks.json found under ${outputDir})`);
  }
  return [...new Set(lines)];
}

/** `<dir>/server-<scenario>-<ISO time>/checks.json`, keyed by scenario */
function checksByScenario(outputDir: string): Map<string, Check[]> {
  const found = new Map<string, Check[]>();
  if (!existsSync(outputDir)) return found;
  for (const entry of readdirSync(outputDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const scenario = /^(?:server|authorization)-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name)?.[1];
    const file = join(outputDir, entry.name, 'checks.json');
    if (!scenario || !existsSync(file)) continue;
    try {
      found.set(scenario, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
    } catch {
      // a half-written file of a run that timed out
    }
  }
  return found;
}

function describe(outcome: RunResult['outcome']): string {
  if (outcome === 0) return 'passed';
  if (typeof outcome === 'number') return `FAILED (exit ${outcome})`;
  if (outcome === 'timeout') return `FAILED (timed out after ${RUN_TIMEOUT_MS} ms)`;
  return `FAILED (${outcome})`;
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !RUNS.some((r) => r.name === w));
  if (unknown.length > 0) {
    console.error(`unknown run ${unknown.join(', ')}; runs: ${RUNS.map((r) => r.name).join(', ')}`);
    return 2;
  }
  const runs = wanted.length > 0 ? RUNS.filter((r) => wanted.includes(r.name)) : RUNS;
  if (!existsSync(CONFORMANCE_BIN)) {
    console.error(`${CONFORMANCE_BIN} is missing: npm ci installs @modelcontextprotocol/conformance (a devDependency)`);
    return 2;
  }

  const outputRoot = process.env.CONFORMANCE_OUTPUT_DIR
    ? (mkdirSync(process.env.CONFORMANCE_OUTPUT_DIR, { recursive: true }), process.env.CONFORMANCE_OUTPUT_DIR)
    : mkdtempSync(join(tmpdir(), 'mcp-conformance-'));

  // the demo host, on a free loopback port, named `localhost` (dns-rebinding-protection
  // sends Host/Origin evil.example.com and expects the localhost name to be accepted)
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://localhost:${port}`;
  const warnings: string[] = [];
  const demo = await buildApp({
    baseUrl,
    operatorSecret: 'operator-secret-for-conformance-0123456789',
    auth: { logger: { info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) } },
  });
  // a 500 of /mcp shows in the report as the suite sees it; what threw is listed here, once
  // per message, instead of Koa printing every stack trace
  const serverErrors = new Map<string, number>();
  demo.app.on('error', (error: Error & { status?: number; expose?: boolean }) => {
    if (error.status !== undefined && error.status < 500) return;
    const key = (error.stack ?? String(error)).split('\n').slice(0, 3).join('\n');
    serverErrors.set(key, (serverErrors.get(key) ?? 0) + 1);
  });
  server.on('request', demo.app.callback());
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await demo.close();
  };
  const urls = { mcp: `${baseUrl}/mcp`, issuer: baseUrl };

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: stopping the suite and the server`);
    killGroup(current?.pid, 'SIGKILL');
    void stop().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  console.log(`MCP conformance: demo host at ${baseUrl}, MCP endpoint ${urls.mcp}; results in ${outputRoot}`);
  const results: RunResult[] = [];
  try {
    for (const run of runs) {
      const outputDir = join(outputRoot, run.name);
      mkdirSync(outputDir, { recursive: true });
      const args = run.args(urls, outputDir);
      console.log(`\n──── ${run.name}: conformance ${args.join(' ')}`);
      serverErrors.clear();
      const result = await runConformance(run.name, args, RUN_TIMEOUT_MS);
      results.push(result);
      if (!VERBOSE) console.log(summaryOf(result.output));
      if (result.outcome !== 0) {
        const details = unexpectedDetails(result.output, outputDir);
        if (details.length > 0) console.log(`\nWhat failed unexpectedly:\n${details.join('\n')}`);
      }
      if (serverErrors.size > 0) {
        console.log('\nThe server failed (500) during this run:');
        for (const [error, count] of serverErrors) console.log(`  ${count}× ${error.replaceAll('\n', '\n     ')}`);
      }
      console.log(`──── ${run.name}: ${describe(result.outcome)} in ${(result.ms / 1000).toFixed(1)} s (results: ${outputDir})`);
    }
  } finally {
    await stop();
  }

  console.log('\nMCP conformance:');
  for (const r of results) console.log(`  ${r.name.padEnd(22)} ${describe(r.outcome)}`);
  if (warnings.length > 0) {
    const distinct = [...new Set(warnings)];
    console.log(`\nthe library logged ${warnings.length} warning(s), ${distinct.length} distinct:`);
    for (const w of distinct.slice(0, 5)) console.log(`  ${w.split('\n')[0]}`);
  }
  const failed = results.filter((r) => r.outcome !== 0);
  if (failed.length > 0) {
    console.log(`\n${failed.length} run(s) failed. A failure that is not a fixture or capability gap is a bug to fix, `
      + 'not an entry to add; see test/conformance/README.md.');
    return 1;
  }
  return 0;
}

process.exitCode = await main();
