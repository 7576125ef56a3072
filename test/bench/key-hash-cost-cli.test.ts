/**
 * `node bench/key-hash-cost.ts`'s command line: `--help` prints the usage; a wrong option or a
 * count it cannot use is refused with what was wrong, exit code 2, never a stack trace; a
 * short run prints what hashed credential keys add to a refresh and a revocation.
 */
import { describeRoundsCommandLine, scriptRunner } from './rounds-command-line.ts';

const run = scriptRunner('bench/key-hash-cost.ts');

describeRoundsCommandLine('bench/key-hash-cost.ts');

it('a short run prints what the rule adds to each, against the last full run', () => {
  const { status, stdout } = run('--rounds', '5', '--per-round', '50');
  expect(status).toBe(0);
  for (const what of ['refresh', 'revocation']) {
    expect(stdout).toMatch(new RegExp(`^${what}: key and JSON work \\d+\\.\\d\\d µs with hashed credential keys, \\d+\\.\\d\\d µs with raw ids; the rule adds -?\\d+\\.\\d\\d µs, -?\\d+\\.\\d\\d% of the \\d+ µs of server CPU a ${what} on Redis cost in bench/results/latest\\.json \\(1 rounds? of 50, medians\\)$`, 'm'));
  }
});
