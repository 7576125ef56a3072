/**
 * Command-line options of `npm run bench`.
 *
 * @module
 */
import type { AdapterKind } from './types.ts';

export interface Settings {
  readonly quick: boolean;
  /** scenario ids; empty: all */
  readonly only: readonly string[];
  readonly adapters: readonly AdapterKind[];
  /** measured ours/baseline rounds per scenario */
  readonly pairs: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  /** write V8 CPU profiles of every server into bench/results/profiles/<stamp>/ */
  readonly profile: boolean;
  /**
   * fork every server with `--experimental-async-context-frame`: AsyncLocalStorage (which
   * oidc-provider uses) without promise hooks, as Node 24 runs it by default
   */
  readonly asyncContextFrame: boolean;
  /** replace the results block of bench/README.md with this run's table */
  readonly updateReadme: boolean;
  /** re-render a saved results JSON (targets re-checked, findings re-read) instead of running */
  readonly from: string | undefined;
}

export const USAGE = `npm run bench -- [options]

  --quick                 smoke run: 2 pairs of 0.5 s per scenario (a minute and a half in all)
  --only <ids>            comma-separated scenario ids (see bench/scenarios/), e.g. --only refresh,login
  --adapter <kind>        memory | redis | both (default both); scenarios that touch no storage run once
  --pairs <n>             measured rounds of ours then baseline (default 5, quick 2)
  --duration <s>          seconds per measured run (default 6, quick 0.5)
  --warmup <s>            seconds of unmeasured load per server before the first run (default 3, quick 0.3)
  --connections <n>       concurrent connections / virtual users (default 10)
  --profile               CPU-profile every server (node --cpu-prof) into bench/results/profiles/
  --async-context-frame   run every server with node --experimental-async-context-frame
                          (AsyncLocalStorage without promise hooks, Node 24's default); the
                          results say so, and the targets are meant for runs without it
  --update-readme         put this run's tables into bench/README.md
  --from <results.json>   measure nothing: re-check the targets of a saved run and rewrite its
                          report (after editing bench/findings.ts)
  --help
`;

export class UsageError extends Error {}

function positive(name: string, value: string | undefined, integer: boolean): number {
  const n = Number(value);
  if (!value || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${name} needs a positive ${integer ? 'integer' : 'number'}; got ${value ?? 'nothing'}`);
  }
  return n;
}

export function parseSettings(argv: readonly string[]): Settings | 'help' {
  const args = [...argv];
  const flags = new Map<string, string | true>();
  while (args.length) {
    const arg = args.shift()!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (['quick', 'profile', 'async-context-frame', 'update-readme', 'help'].includes(name)) flags.set(name, true);
    else if (['only', 'adapter', 'pairs', 'duration', 'warmup', 'connections', 'from'].includes(name)) {
      const value = inline ?? args.shift();
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else throw new UsageError(`unknown option --${name}`);
  }
  if (flags.has('help')) return 'help';
  const quick = flags.has('quick');
  const str = (name: string) => flags.get(name) as string | undefined;
  const adapter = str('adapter') ?? 'both';
  if (!['memory', 'redis', 'both'].includes(adapter)) throw new UsageError(`--adapter must be memory, redis or both; got ${adapter}`);
  return {
    quick,
    only: (str('only') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    adapters: adapter === 'both' ? ['memory', 'redis'] : [adapter as AdapterKind],
    // five short pairs rather than three long ones: a burst of other work spoils one pair, not the median
    pairs: str('pairs') ? positive('--pairs', str('pairs'), true) : quick ? 2 : 5,
    durationS: str('duration') ? positive('--duration', str('duration'), false) : quick ? 0.5 : 6,
    warmupS: str('warmup') ? positive('--warmup', str('warmup'), false) : quick ? 0.3 : 3,
    connections: str('connections') ? positive('--connections', str('connections'), true) : 10,
    profile: flags.has('profile'),
    asyncContextFrame: flags.has('async-context-frame'),
    updateReadme: flags.has('update-readme'),
    from: str('from'),
  };
}
