/**
 * `options.accountApi`: what it accepts, its defaults, and the one place they are checked.
 *
 * @module
 */
import { ConfigurationError } from '../errors.ts';
import { MAX_PAGE_SIZE } from '../member-data/pagination.ts';

export interface AccountApiOptions {
  /**
   * The cap on `first` for every list; a larger `first` fails with a `BAD_USER_INPUT` error
   * (refused, not trimmed). From 1 to 1000.
   * @default 100
   */
  maxPageSize?: number;
  /**
   * The deepest field nesting a query may have (introspection fields aside, which graphql-js
   * limits itself). From 1 to 50.
   * @default 10
   */
  maxDepth?: number;
  /**
   * The most a query may cost: each field costs 1, and a list multiplies what is under it by
   * the `first` it can return (the cap when `first` is a variable; 10 for lists without
   * `first`). Roughly an upper bound on the fields in the answer; every list of the viewer
   * at the cap fits. From 1 to 1,000,000.
   * @default 10000
   */
  maxCost?: number;
  /**
   * The most lexical tokens a query document may have; parsing stops beyond it, before any
   * validation work. From 100 to 100,000.
   * @default 2000
   */
  maxTokens?: number;
  /**
   * The largest request body in bytes; larger bodies get 413 without being read. From 1 KiB
   * to 10 MiB.
   * @default 32768 (32 KiB)
   */
  maxBodyBytes?: number;
  /**
   * Answer introspection queries (`__schema`, `__type`). When off they fail validation with
   * `INTROSPECTION_DISABLED`; `__typename` always works.
   * @default true outside production, false in production
   */
  introspection?: boolean;
  /**
   * Serve GraphiQL (it loads its scripts from a CDN) to browsers that `GET /account/graphql`.
   * Development only: `true` in production is a configuration error.
   * @default true outside production, false in production
   */
  graphiql?: boolean;
}

export type ResolvedAccountApiOptions = Readonly<Required<AccountApiOptions>>;

interface Bound {
  readonly min: number;
  readonly max: number;
  readonly fallback: number;
  readonly unit: string;
}

const NUMBERS = {
  maxPageSize: { min: 1, max: 1000, fallback: MAX_PAGE_SIZE, unit: 'items' },
  maxDepth: { min: 1, max: 50, fallback: 10, unit: 'levels' },
  maxCost: { min: 1, max: 1_000_000, fallback: 10_000, unit: '' },
  maxTokens: { min: 100, max: 100_000, fallback: 2000, unit: 'tokens' },
  maxBodyBytes: { min: 1024, max: 10 * 1024 * 1024, fallback: 32 * 1024, unit: 'bytes' },
} as const satisfies Record<string, Bound>;

const FLAGS = ['introspection', 'graphiql'] as const;

const KNOWN = new Set<string>([...Object.keys(NUMBERS), ...FLAGS]);

function fail(message: string): never {
  throw new ConfigurationError(message);
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function checkNumber(name: keyof typeof NUMBERS, value: unknown): number {
  const { min, max, fallback, unit } = NUMBERS[name];
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    fail(`options.accountApi.${name} must be a whole number from ${min} to ${max}${unit ? ` (${unit})` : ''}; got ${show(value)}. Leave it out for the default, ${fallback}`);
  }
  return value as number;
}

function checkFlag(name: (typeof FLAGS)[number], value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(`options.accountApi.${name} must be true or false; got ${show(value)}`);
  return value;
}

/** Defaults and checks `options.accountApi`; throws ConfigurationError naming the option and the fix. */
export function resolveAccountApiOptions(input: AccountApiOptions | undefined, production: boolean): ResolvedAccountApiOptions {
  if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    fail(`options.accountApi must be an object of Account API settings; got ${show(input)}`);
  }
  const given = input ?? {};
  for (const key of Object.keys(given)) {
    if (!KNOWN.has(key)) fail(`options.accountApi.${key} is not a known option; use one of ${[...KNOWN].join(', ')}`);
  }
  const graphiql = checkFlag('graphiql', given.graphiql, !production);
  if (production && graphiql) {
    fail('options.accountApi.graphiql cannot be true in production: GraphiQL is a development tool that loads scripts from a CDN. Remove the option (it is off in production by default)');
  }
  return Object.freeze({
    maxPageSize: checkNumber('maxPageSize', given.maxPageSize),
    maxDepth: checkNumber('maxDepth', given.maxDepth),
    maxCost: checkNumber('maxCost', given.maxCost),
    maxTokens: checkNumber('maxTokens', given.maxTokens),
    maxBodyBytes: checkNumber('maxBodyBytes', given.maxBodyBytes),
    introspection: checkFlag('introspection', given.introspection, !production),
    graphiql,
  });
}
