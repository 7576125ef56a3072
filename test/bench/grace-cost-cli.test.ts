/**
 * `node bench/grace-cost.ts`'s command line: `--help` prints the usage; a wrong option or a
 * count it cannot use is refused with what was wrong, exit code 2, never a stack trace; a
 * short run prints both sides' cost.
 */
import { runScript } from '../support/run-script.ts';

const run = (...args: string[]) => runScript('bench/grace-cost.ts', args, 60_000);

it('--help prints the usage and exits 0', () => {
  const { status, stdout } = run('--help');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^usage: node bench\/grace-cost\.ts \[--rounds N/);
});

it('an unknown option or an unusable count gets the usage, exit 2 and no stack trace', () => {
  // four rounds are all warm-up: no median would be left
  for (const args of [['--bogus'], ['extra'], ['--rounds', '4'], ['--rounds', 'many'], ['--per-round', '0']]) {
    const { status, stderr } = run(...args);
    expect([args.join(' '), status]).toEqual([args.join(' '), 2]);
    expect(stderr).toContain('usage: node bench/grace-cost.ts');
    expect(stderr).not.toMatch(/\n\s+at /);
  }
});

it('a short run prints what the grace adds to a refresh', () => {
  const { status, stdout } = run('--rounds', '5', '--per-round', '20');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^refreshTokenGrace 30 s: \d+\.\d\d µs per refresh at the storage layer; refreshTokenGrace 0: \d+\.\d\d µs; the grace adds -?\d+\.\d\d µs \(1 round of 20, medians\)/);
});
