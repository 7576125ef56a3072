/**
 * Messages between the load generator (parent) and a server child, over the fork IPC channel.
 * Secrets (keys, cookie secrets) travel here rather than in argv, so `ps` never shows them.
 *
 * @module
 */
import type { JWKS } from 'oidc-provider';

import type { StorageKind } from './types.ts';

export interface ChildSpec {
  readonly module: string;
  readonly export: string;
  readonly storage: StorageKind;
  readonly redisUrl: string | undefined;
  /** every server gets its own prefix, so two servers never share records in one Redis */
  readonly keyPrefix: string;
  readonly jwks: JWKS;
  readonly cookieKeys: string[];
  /** where to write the measured runs' time windows when the child is CPU-profiled (bench/profile-summary.ts reads them) */
  readonly profileWindows?: string;
}

export interface ServerStats {
  /** requests received since start, preparation and warm-up included */
  readonly requests: number;
  /** after a full GC, as every RSS figure here */
  readonly rss: number;
  /** V8 heap in use after the same GC: a leak grows this, memory merely kept resident does not */
  readonly heapUsed: number;
  /** user + system CPU time of the server process since it started, in microseconds */
  readonly cpuUs: number;
}

export type ParentMessage =
  | { readonly type: 'init'; readonly spec: ChildSpec }
  | { readonly type: 'call'; readonly id: number; readonly name: string; readonly arg?: unknown };

export type ChildMessage =
  | { readonly type: 'ready'; readonly origin: string }
  | { readonly type: 'failed'; readonly error: string }
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly error: string };

/** Calls every child answers besides the server's own `commands`. */
export const BUILTIN_CALLS = { stats: '$stats', cpu: '$cpu', stop: '$stop', promises: '$promises', allocations: '$allocations' } as const;

/**
 * Where ./promise-count.ts, when a child is started with it (`--import`), leaves the reader of
 * the promises created so far, for the `$promises` call.
 */
export const PROMISE_COUNTER = Symbol.for('platform-auth.bench.promisesCreated');

/**
 * Where ./allocation-sample.ts, when a child is started with it (`--import`), leaves the
 * sampler that the `$allocations` call starts (`'start'`) and stops (`'stop'`).
 */
export const ALLOCATION_SAMPLER = Symbol.for('platform-auth.bench.allocationSampler');

/** Bytes allocated while the sampler ran (an unbiased estimate), and by which function, most first. */
export interface AllocationSample {
  readonly bytes: number;
  readonly top: readonly { readonly fn: string; readonly bytes: number }[];
}

export interface AllocationSampler {
  start(): void;
  stop(): AllocationSample;
}
