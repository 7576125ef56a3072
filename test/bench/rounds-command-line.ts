/**
 * The command line the per-round cost scripts share (`--rounds N`, `--per-round N`, parsed by
 * bench/lib/command-line.ts): `--help` prints the usage; a wrong option or a count it cannot
 * use is refused with the usage, exit code 2, never a stack trace.
 */
import { runScript } from '../support/run-script.ts';

/** Runs `script` with `args`, as `node <script> <args>`. */
export const scriptRunner = (script: string) => (...args: string[]) => runScript(script, args, 60_000);

/** The `--help` and refusal tests of `script`. */
export function describeRoundsCommandLine(script: string): void {
  const run = scriptRunner(script);
  const usage = `usage: node ${script}`;

  it('--help prints the usage and exits 0', () => {
    const { status, stdout } = run('--help');
    expect(status).toBe(0);
    expect(stdout.startsWith(`${usage} [--rounds N`)).toBe(true);
  });

  it('an unknown option or an unusable count gets the usage, exit 2 and no stack trace', () => {
    // four rounds are all warm-up: no median would be left
    for (const args of [['--bogus'], ['extra'], ['--rounds', '4'], ['--rounds', 'many'], ['--per-round', '0']]) {
      const { status, stderr } = run(...args);
      expect([args.join(' '), status]).toEqual([args.join(' '), 2]);
      expect(stderr).toContain(usage);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  });
}
