/**
 * `node bench/profile-summary.ts`'s command line: `--help` prints the usage; a wrong option,
 * a missing or unreadable profile is refused with what was wrong, never a stack trace; a real
 * profile is summarised by package, function and this repository's inclusive time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript } from '../support/run-script.ts';

const run = (...args: string[]) => runScript('bench/profile-summary.ts', args);

const REPO_FILE = new URL('../../lib/platform-auth.ts', import.meta.url).href;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'profile-summary-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('--help prints the usage and exits 0', () => {
  const { status, stdout } = run('--help');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^usage: node bench\/profile-summary\.ts <file\.cpuprofile>\.\.\. /);
});

it('an unknown option, no file or a bad --top gets the usage, exit 2 and no stack trace', () => {
  for (const args of [['x.cpuprofile', '--bogus'], [], ['x.cpuprofile', '--top', 'ten']]) {
    const { status, stderr } = run(...args);
    expect([args.join(' '), status]).toEqual([args.join(' '), 2]);
    expect(stderr).toContain('usage: node bench/profile-summary.ts');
    expect(stderr).not.toMatch(/\n\s+at /);
  }
});

it('a missing file or one that is not a profile is named, exit 1 and no stack trace', () => {
  const notJson = join(dir, 'not-json.cpuprofile');
  const notProfile = join(dir, 'not-profile.cpuprofile');
  const nothing = join(dir, 'null.cpuprofile');
  writeFileSync(notJson, 'garbage');
  writeFileSync(notProfile, '{"nodes": 3}');
  writeFileSync(nothing, 'null');
  const { status, stderr } = run(join(dir, 'missing.cpuprofile'), notJson, notProfile, nothing, dir);
  expect(status).toBe(1);
  expect(stderr).toContain('missing.cpuprofile: no such file');
  expect(stderr).toContain('not-json.cpuprofile: not JSON');
  expect(stderr).toContain('not-profile.cpuprofile: not a V8 CPU profile');
  expect(stderr).toContain('null.cpuprofile: not a V8 CPU profile');
  expect(stderr).toContain(`${dir}: cannot be read (EISDIR)`);
  expect(stderr).not.toMatch(/\n\s+at /);
});

it('summarises a profile: busy time by package and function, idle left out', () => {
  const file = join(dir, 'real.cpuprofile');
  // root → platformAuth (this repository) → (garbage collector); and (idle)
  writeFileSync(file, JSON.stringify({
    startTime: 0,
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4] },
      { id: 2, callFrame: { functionName: 'platformAuth', url: REPO_FILE, lineNumber: 254 }, children: [3] },
      { id: 3, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
      { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    ],
    samples: [2, 3, 3, 4],
    timeDeltas: [1000, 1000, 1000, 5000],
  }));
  const { status, stdout } = run(file, '--top', '5');
  expect(status).toBe(0);
  // percentages of the 3 ms busy, not of the 8 ms profiled: idle is left out
  expect(stdout).toMatch(/2 ms\s+66\.7%\s+\(native\)/);
  expect(stdout).toMatch(/1 ms\s+33\.3%\s+repo lib\//);
  expect(stdout).toMatch(/3 ms\s+100\.0%\s+platformAuth lib\/platform-auth\.ts:255/);
});
