/**
 * `options.accountApi`: what it accepts, its defaults, and the one place they are checked.
 *
 * @module
 */
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, fail } from '../config/check.ts';
import type { IntegerRange } from '../config/check.ts';
import { MAX_PAGE_SIZE } from '../member-data/pagination.ts';

export interface AccountApiOptions {
  /**
   * The cap on `first` for every list; a larger `first` fails with a `BAD_USER_INPUT` error
   * (refused, not trimmed).
   * @default {@link ACCOUNT_API_RANGES}.maxPageSize.default
   */
  maxPageSize?: number;
  /**
   * The deepest field nesting a query may have (introspection fields aside, which graphql-js
   * limits itself).
   * @default {@link ACCOUNT_API_RANGES}.maxDepth.default
   */
  maxDepth?: number;
  /**
   * The most a query may cost: each field costs 1, and a list multiplies what is under it by
   * the `first` it can return (the cap when `first` is a variable; 10 for lists without
   * `first`); a paged list costs at least its `first`, the items it has the data source
   * fetch, whatever is selected under it. Roughly an upper bound on the fields in the answer
   * and on the items fetched; every list of the viewer at the cap fits.
   * @default {@link ACCOUNT_API_RANGES}.maxCost.default
   */
  maxCost?: number;
  /**
   * The most lexical tokens a query document may have; parsing stops beyond it, before any
   * validation work.
   * @default {@link ACCOUNT_API_RANGES}.maxTokens.default
   */
  maxTokens?: number;
  /**
   * The largest request body in bytes; larger bodies get 413 without being read.
   * @default {@link ACCOUNT_API_RANGES}.maxBodyBytes.default
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

/**
 * The whole-number settings: their bounds, and the default each takes when left out (the
 * one place those defaults are written; the TSDoc above and the README point here).
 */
export const ACCOUNT_API_RANGES = Object.freeze({
  maxPageSize: { min: 1, max: 1000, default: MAX_PAGE_SIZE, unit: 'items' },
  maxDepth: { min: 1, max: 50, default: 10, unit: 'levels' },
  maxCost: { min: 1, max: 1_000_000, default: 10_000, unit: '' },
  maxTokens: { min: 100, max: 100_000, default: 2000, unit: 'tokens' },
  maxBodyBytes: { min: 1024, max: 10 * 1024 * 1024, default: 32 * 1024, unit: 'bytes' },
} as const satisfies Record<string, IntegerRange>);

const FLAGS = ['introspection', 'graphiql'] as const;

const KNOWN = new Set<string>([...Object.keys(ACCOUNT_API_RANGES), ...FLAGS]);

function checkNumber(name: keyof typeof ACCOUNT_API_RANGES, value: unknown): number {
  return checkInteger(`options.accountApi.${name}`, value, ACCOUNT_API_RANGES[name]);
}

function checkFlag(name: (typeof FLAGS)[number], value: unknown, fallback: boolean): boolean {
  return checkBoolean(`options.accountApi.${name}`, value, fallback);
}

/** Defaults and checks `options.accountApi`; throws ConfigurationError naming the option and the fix. */
export function resolveAccountApiOptions(input: AccountApiOptions | undefined, production: boolean): ResolvedAccountApiOptions {
  const given = checkObject<AccountApiOptions>('options.accountApi', input, 'an object of Account API settings') ?? {};
  checkKnownKeys('options.accountApi', given, KNOWN);
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
