/**
 * `node bench/instructions.ts`'s command line: `--help` prints the usage, and a wrong
 * argument is refused with what was wrong and the usage, exit code 2, never a stack trace.
 * Nothing is measured (no server is started).
 */
import { runScript } from '../support/run-script.ts';

const run = (...args: string[]) => runScript('bench/instructions.ts', args);

it('--help prints the usage, with every driver, and exits 0', () => {
  const { status, stdout } = run('--help');
  expect(status).toBe(0);
  expect(stdout).toMatch(/^usage: node bench\/instructions\.ts revocation\|introspection\|refresh\|login\|hello /);
});

it('an unknown option is named, with the usage, exit 2 and no stack trace', () => {
  const { status, stderr } = run('revocation', '--bogus');
  expect(status).toBe(2);
  expect(stderr).toContain("Unknown option '--bogus'");
  expect(stderr).toContain('usage: node bench/instructions.ts');
  expect(stderr).not.toMatch(/\n\s+at /);
});

it('an unknown driver or measure gets the usage and exit 2', () => {
  for (const args of [['nothing'], ['revocation', '--measure', 'seconds'], ['revocation', '--count', '0'], ['revocation', '--connections', '0']]) {
    const { status, stderr } = run(...args);
    expect([args.join(' '), status]).toEqual([args.join(' '), 2]);
    expect(stderr).toContain('usage: node bench/instructions.ts');
  }
});

it('--measure commands on the memory adapter says it reads Redis, exit 2, before starting anything', () => {
  const { status, stderr } = run('revocation', '--measure', 'commands', '--adapter', 'memory');
  expect(status).toBe(2);
  expect(stderr).toContain('--measure commands reads the storage: use --adapter redis');
  expect(stderr).not.toMatch(/\n\s+at /);
});

it('--help lists the commands and cpu measures', () => {
  expect(run('--help').stdout).toMatch(/--measure [a-z|]*\|commands\|cpu\]/);
});
