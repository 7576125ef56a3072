/**
 * The tarball test (`npm run test:dist`, in CI from .ci/run): the package as an integrator gets
 * it. Nothing of the repository is used past step 1 except the fixture test/dist-host/, copied
 * out of the repository.
 *
 * 1. `npm pack` into a new temporary directory (`prepack` builds dist/); the tarball must hold
 *    every file the `exports` map and `bin` name, and nothing from test/, examples/ or bench/.
 * 2. A fresh host app in that directory, outside the repository: test/dist-host/ copied there,
 *    the tarball beside it (its package.json depends on `file:./platform-auth.tgz`), plus every
 *    ```ts block of README.md between `<!-- dist-host:start -->` and `<!-- dist-host:end -->`
 *    as src/readme-<n>.generated.ts.
 * 3. `npm install` from the registry (koa, @koa/router, zod 4, openid-client, typescript and
 *    @types/node at their newest matching versions, as a new app would get them).
 * 4. `tsc` with `strict`, `noUncheckedIndexedAccess`, `exactOptionalPropertyTypes` and
 *    `skipLibCheck: false` (the package's .d.ts are checked too), NodeNext: the host and the
 *    README snippets must compile against the installed package only.
 * 5. The package's CLI: `platform-auth keys`, then `platform-auth rotate` (two keys, new first).
 * 6. `require()` and `import()` of each entry point in plain Node (CommonJS and ESM).
 * 7. The host runs (build/main.js): discovery, the authorization-code flow with PKCE through
 *    the sign-in and consent forms, the code exchanged by openid-client, UserInfo, the host's
 *    zod 4 MCP tool over HTTP, a host route behind `auth.requireBearer()`.
 *
 * Every step has a time limit; any failure exits 1. The directory is removed at the end unless
 * `KEEP_DIST_HOST=1` (then its path is printed).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import type { SpawnSyncOptions } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const FIXTURE = join(ROOT, 'test/dist-host');
const START = '<!-- dist-host:start -->';
const END = '<!-- dist-host:end -->';
const MINUTE = 60_000;

/** Files the tarball must hold: the targets of `exports` and `bin`, their types, the docs. */
const REQUIRED_FILES = [
  'package.json', 'README.md', 'LICENSE',
  'dist/lib/index.js', 'dist/lib/index.d.ts',
  'dist/adapters/memory.js', 'dist/adapters/memory.d.ts',
  'dist/adapters/redis.js', 'dist/adapters/redis.d.ts',
  'dist/lib/cli/main.js', 'dist/lib/cli/bin.js',
];
const FORBIDDEN_PREFIXES = ['test/', 'examples/', 'bench/', 'scripts/', '.ci/', 'node_modules/'];

class StepFailed extends Error {}

const started = Date.now();
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

function step(name: string) {
  console.log(`\n== ${name}`);
  return Date.now();
}

/**
 * Runs a command, output inherited unless `capture`; fails the step on a non-zero exit or on
 * the time limit.
 */
function run(command: string, args: readonly string[], options: SpawnSyncOptions & { timeoutMs: number; capture?: boolean }): string {
  const { timeoutMs, capture, ...spawnOptions } = options;
  const result = spawnSync(command, args, {
    ...spawnOptions,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
  });
  const shown = `${relative(process.cwd(), command) || command} ${args.join(' ')}`;
  if (result.error) throw new StepFailed(`${shown}: ${result.error.message}`);
  if (result.signal) throw new StepFailed(`${shown}: killed by ${result.signal} (time limit ${timeoutMs / 1000} s)`);
  if (result.status !== 0) throw new StepFailed(`${shown}: exit status ${result.status}`);
  return String(result.stdout ?? '');
}

/** npm of this run (the one `npm run` used), on this Node (Node 22 under `npm run`). */
function npm(args: readonly string[], cwd: string, timeoutMs: number, capture = false): string {
  const cli = process.env.npm_execpath;
  return cli
    ? run(process.execPath, [cli, ...args], { cwd, timeoutMs, capture })
    : run('npm', args, { cwd, timeoutMs, capture });
}

/** The ```ts blocks between the README's dist-host markers. */
function readmeSnippets(readme: string): { line: number; code: string }[] {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new StepFailed(`README.md has no ${START} … ${END} section`);
  const snippets: { line: number; code: string }[] = [];
  for (const match of readme.slice(start, end).matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const line = readme.slice(0, start + match.index).split('\n').length + 1;
    snippets.push({ line, code: match[1] ?? '' });
  }
  if (snippets.length === 0) throw new StepFailed(`README.md has no \`\`\`ts block between ${START} and ${END}`);
  return snippets;
}

function main(): void {
  const work = mkdtempSync(join(tmpdir(), 'platform-auth-dist-'));
  const host = join(work, 'host');
  const node = process.execPath;
  let ok = false;
  try {
    let t = step(`1. npm pack (prepack builds dist/) into ${work}`);
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], ROOT, 5 * MINUTE, true)) as {
      filename: string; files: { path: string }[]; version: string;
    }[];
    const pack = packed[0];
    if (!pack) throw new StepFailed('npm pack printed no package');
    const files = new Set(pack.files.map((f) => f.path));
    const missing = REQUIRED_FILES.filter((f) => !files.has(f));
    const stray = [...files].filter((f) => FORBIDDEN_PREFIXES.some((prefix) => f.startsWith(prefix)));
    if (missing.length > 0) throw new StepFailed(`the tarball lacks ${missing.join(', ')}`);
    if (stray.length > 0) throw new StepFailed(`the tarball holds files it should not: ${stray.slice(0, 10).join(', ')}`);
    console.log(`${pack.filename}: ${files.size} files (${seconds(t)})`);

    t = step('2. a fresh host app from test/dist-host/, outside the repository');
    cpSync(FIXTURE, host, { recursive: true, filter: (source) => !/[/\\](node_modules|build)$/.test(source) });
    copyFileSync(join(work, pack.filename), join(host, 'platform-auth.tgz'));
    const snippets = readmeSnippets(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    snippets.forEach(({ line, code }, i) => {
      const header = `// README.md line ${line}, copied by scripts/test-dist.ts; names it takes as given: src/readme-context.ts\n`;
      writeFileSync(join(host, 'src', `readme-${i + 1}.generated.ts`), `${header}${code}\nexport {};\n`);
    });
    console.log(`${host}: the fixture and ${snippets.length} README snippets (${seconds(t)})`);

    t = step('3. npm install (the tarball, and the host\'s dependencies from the registry)');
    npm(['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], host, 5 * MINUTE);
    console.log(npm(['ls', '--depth=0'], host, MINUTE, true).trim());
    console.log(`(${seconds(t)})`);

    t = step('4. tsc: strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes, skipLibCheck false, NodeNext');
    run(node, [join(host, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: host, timeoutMs: 3 * MINUTE });
    console.log(`compiled (${seconds(t)})`);

    t = step('5. the CLI: platform-auth keys, then rotate (node given the bin\'s path without .js)');
    // however node is asked to run it, the bin runs: a path it resolves itself included
    const cli = join(host, 'node_modules/platform-auth/dist/lib/cli/bin');
    const bin = join(host, 'node_modules/.bin/platform-auth');
    writeFileSync(join(host, 'secrets.json'), run(bin, ['keys'], { cwd: host, timeoutMs: MINUTE, capture: true }));
    const rotated = run(node, [cli, 'rotate', 'secrets.json'], { cwd: host, timeoutMs: MINUTE, capture: true });
    if (!rotated.trim()) throw new StepFailed(`node ${cli} rotate printed nothing`);
    writeFileSync(join(host, 'secrets.next.json'), rotated);
    const keys = (JSON.parse(rotated) as { jwks: { keys: { kid: string }[] } }).jwks.keys.map((k) => k.kid);
    const first = (JSON.parse(readFileSync(join(host, 'secrets.json'), 'utf8')) as { jwks: { keys: { kid: string }[] } }).jwks.keys[0]?.kid;
    if (keys.length !== 2 || keys[1] !== first) throw new StepFailed(`rotate printed keys ${keys.join(', ')}; expected a new key, then ${first}`);
    console.log(`keys: ${first}; rotated: ${keys.join(', ')} (${seconds(t)})`);

    t = step('6. require() and import() of every entry point');
    const entries = ['platform-auth', 'platform-auth/adapters/memory', 'platform-auth/adapters/redis', 'platform-auth/package.json'];
    const probe = entries.map((e) => `Object.keys(require(${JSON.stringify(e)})).length`).join(', ');
    console.log(`require(): ${run(node, ['--input-type=commonjs', '-e', `console.log([${probe}].join(' '))`], { cwd: host, timeoutMs: MINUTE, capture: true }).trim()} exports`);
    const imports = entries.map((e) => `import(${JSON.stringify(e)}${e.endsWith('.json') ? ", { with: { type: 'json' } }" : ''})`).join(', ');
    console.log(`import(): ${run(node, ['--input-type=module', '-e', `const m = await Promise.all([${imports}]); console.log(m.map((x) => Object.keys(x).length).join(' '))`], { cwd: host, timeoutMs: MINUTE, capture: true }).trim()} exports (${seconds(t)})`);

    t = step('7. the host: code flow with PKCE, UserInfo, an MCP tool, a protected route');
    run(node, ['build/main.js', 'secrets.next.json'], { cwd: host, timeoutMs: 2 * MINUTE });
    console.log(`(${seconds(t)})`);
    ok = true;
  } catch (err) {
    console.error(`\ntest:dist FAILED: ${err instanceof StepFailed ? err.message : err instanceof Error ? err.stack : String(err)}`);
  } finally {
    if (process.env.KEEP_DIST_HOST === '1') console.log(`\nkept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  if (!ok) {
    process.exitCode = 1;
    return;
  }
  console.log(`\ntest:dist passed in ${seconds(started)}`);
}

main();
