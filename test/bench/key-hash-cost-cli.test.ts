/**
 * `node bench/key-hash-cost.ts`'s command line: `--help` prints the usage; a wrong option or a
 * count it cannot use is refused with what was wrong, exit code 2, never a stack trace; a
 * short run prints what hashed credential keys add to a refresh and a revocation.
 */
import { runScript } from '../support/run-script.ts';

const run = (...args: string[]) => runScript('bench/key-hash-cost.ts', args, 60_000);

it('--help prints the usage and exits 0', () => {
  const { status, stdout } = run('--help');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^usage: node bench\/key-hash-cost\.ts \[--rounds N/);
});

it('an unknown option or an unusable count gets the usage, exit 2 and no stack trace', () => {
  for (const args of [['--bogus'], ['extra'], ['--rounds', '4'], ['--rounds', 'many'], ['--per-round', '0']]) {
    const { status, stderr } = run(...args);
    expect([args.join(' '), status]).toEqual([args.join(' '), 2]);
    expect(stderr).toContain('usage: node bench/key-hash-cost.ts');
    expect(stderr).not.toMatch(/\n\s+at /);
  }
});

it('a short run prints what the rule adds to each, against the last full run', () => {
  const { status, stdout } = run('--rounds', '5', '--per-round', '50');
  expect(status).toBe(0);
  for (const what of ['refresh', 'revocation']) {
    expect(stdout).toMatch(new RegExp(`^${what}: key and JSON work \\d+\\.\\d\\d µs with hashed credential keys, \\d+\\.\\d\\d µs with raw ids; the rule adds -?\\d+\\.\\d\\d µs, -?\\d+\\.\\d\\d% of the \\d+ µs of server CPU a ${what} on Redis cost in bench/results/latest\\.json \\(1 rounds? of 50, medians\\)$`, 'm'));
  }
});
