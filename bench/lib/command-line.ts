/**
 * The command line of the bench's scripts (`bench/instructions.ts`, `bench/profile-summary.ts`,
 * `bench/grace-cost.ts`, `bench/key-hash-cost.ts`), read the same way: `--help` (`-h`) prints the usage, and an unknown
 * option or a missing value is refused with what was wrong and the usage, never a stack trace.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

type Config<O extends NonNullable<ParseArgsConfig['options']>> = { args: string[]; allowPositionals: true; options: O & typeof HELP };

/**
 * `args` read against `options` (positionals allowed), or the exit code when there is nothing
 * to run: 0 after printing `usage` for `--help`, 2 after printing what was wrong and `usage`.
 */
export function commandLine<const O extends NonNullable<ParseArgsConfig['options']>>(
  options: O, usage: string, args: string[] = process.argv.slice(2),
): ReturnType<typeof parseArgs<Config<O>>> | number {
  let parsed: ReturnType<typeof parseArgs<Config<O>>>;
  try {
    parsed = parseArgs<Config<O>>({ args, allowPositionals: true, options: { ...options, ...HELP } });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return parsed;
}

/**
 * `--rounds N --per-round N` and nothing else, for a script that measures in rounds and takes
 * the median of those after its `warmUp` first ones; or the exit code when there is nothing
 * to run (as commandLine, 2 also for a count it cannot use).
 */
export function roundsOf(usage: string, defaults: { rounds: number; perRound: number }, warmUp: number): { rounds: number; perRound: number } | number {
  const parsed = commandLine({ rounds: { type: 'string', default: String(defaults.rounds) }, 'per-round': { type: 'string', default: String(defaults.perRound) } }, usage);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length > 0) {
    console.error(`unexpected argument ${positionals[0]}\n\n${usage}`);
    return 2;
  }
  const rounds = Number(values.rounds);
  const perRound = Number(values['per-round']);
  // the first rounds only warm up: with no round after them there would be no median
  if (!Number.isInteger(rounds) || rounds <= warmUp || !Number.isInteger(perRound) || perRound <= 0) {
    console.error(`--rounds takes a whole number above ${warmUp} (the first ${warmUp} warm up), --per-round a positive whole number\n\n${usage}`);
    return 2;
  }
  return { rounds, perRound };
}
