/**
 * `node bench/grace-cost.ts`'s command line: `--help` prints the usage; a wrong option or a
 * count it cannot use is refused with what was wrong, exit code 2, never a stack trace; a
 * short run prints both sides' cost.
 */
import { describeRoundsCommandLine, scriptRunner } from './rounds-command-line.ts';

const run = scriptRunner('bench/grace-cost.ts');

describeRoundsCommandLine('bench/grace-cost.ts');

it('a short run prints what the grace adds to a refresh', () => {
  const { status, stdout } = run('--rounds', '5', '--per-round', '20');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^refreshTokenGrace 30 s: \d+\.\d\d µs per refresh at the storage layer; refreshTokenGrace 0: \d+\.\d\d µs; the grace adds -?\d+\.\d\d µs \(1 round of 20, medians\)/);
});
