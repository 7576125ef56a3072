/**
 * Fetch budgets for client ID metadata documents: within each window of `windowSeconds`, at
 * most `perHost` documents are fetched from one host and at most `perCaller` fetches are
 * triggered by one client address (IPv6: its /64), counted in storage every instance shares.
 * A document answered from the cache, or a failure remembered there, costs nothing
 * (lib/cimd/guard.ts asks before spending).
 *
 * The caller is charged first; a caller over budget spends nothing of the host's, so one
 * address cannot use up the budget of a host that others rely on by itself. Keys are stored
 * hashed (SHA-256), never as host names or addresses.
 *
 * Counting follows the sign-in throttle (lib/policies/sign-in-throttle.ts): updates of one
 * key are serialised in this process, and atomic across instances where the adapter has
 * `compareAndSet`; without it two instances racing on one key may each count one fetch
 * that the other does not see.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { KeyedQueue } from '../storage/key-queue.ts';

/** The storage model of the counters. */
export const FETCH_BUDGET_MODEL = 'ClientMetadataDocumentBudget';

/** The resolved `options.clientIdMetadataDocuments.fetchBudget`. */
export interface FetchBudgetSettings {
  /** document fetches per host (name or IP address, any port) per window */
  readonly perHost: number;
  /** document fetches triggered by one client address per window */
  readonly perCaller: number;
  /** the window, in seconds */
  readonly windowSeconds: number;
}

/** One key's count in its current window. */
export interface BudgetWindow {
  readonly count: number;
  /** when the window began, ms since the epoch */
  readonly start: number;
}

export type Spending =
  | { readonly allowed: true; readonly next: BudgetWindow }
  | { readonly allowed: false; readonly retryAfter: number };

/**
 * The rule for one key: a fetch is allowed while fewer than `limit` were counted in the
 * window that began at `record.start`; a new window begins with the first fetch after it
 * ends. Refused: `retryAfter` is the whole seconds until the window ends (at least 1).
 */
export function spend(record: BudgetWindow | undefined, limit: number, windowSeconds: number, now: number): Spending {
  const end = record ? record.start + windowSeconds * 1000 : 0;
  if (!record || now >= end) return { allowed: true, next: { count: 1, start: now } };
  if (record.count >= limit) return { allowed: false, retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
  return { allowed: true, next: { count: record.count + 1, start: record.start } };
}

/** What a fetch may do. */
export type BudgetVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfter: number; readonly exhausted: 'host' | 'caller' };

type ComparingAdapter = Adapter & Partial<CompareAndSet>;

/** compare-and-set attempts before a key's update gives up (only under heavy contention) */
const MAX_TRIES = 8;

function asWindow(payload: AdapterPayload | undefined): BudgetWindow | undefined {
  const count = payload?.count;
  const start = payload?.start;
  return typeof count === 'number' && typeof start === 'number' ? { count, start } : undefined;
}

const hashed = (kind: 'host' | 'caller', value: string) => `${kind}:${createHash('sha256').update(value).digest('base64url')}`;

export class FetchBudget {
  readonly #store: ComparingAdapter;
  readonly #settings: FetchBudgetSettings;
  readonly #now: () => number;
  /** the updates of each key in this process, one at a time */
  readonly #queue = new KeyedQueue();

  constructor(adapter: AdapterFactory, settings: FetchBudgetSettings, now: () => number = Date.now) {
    this.#store = adapter(FETCH_BUDGET_MODEL) as ComparingAdapter;
    this.#settings = settings;
    this.#now = now;
  }

  /**
   * Counts one fetch from `host` triggered by `caller` (the client's address key; `''` for
   * every request whose address is unknown), or refuses it when either is over budget.
   * `host` `undefined`: the host is not charged (a known document, lib/cimd/guard.ts).
   */
  async spend(host: string | undefined, caller: string): Promise<BudgetVerdict> {
    const { perHost, perCaller } = this.#settings;
    const callerWait = await this.#spend(hashed('caller', caller), perCaller);
    if (callerWait !== undefined) return { allowed: false, retryAfter: callerWait, exhausted: 'caller' };
    if (host === undefined) return { allowed: true };
    const retryAfter = await this.#spend(hashed('host', host), perHost);
    return retryAfter === undefined ? { allowed: true } : { allowed: false, retryAfter, exhausted: 'host' };
  }

  /** `undefined` when counted, otherwise the seconds to wait */
  async #spend(key: string, limit: number): Promise<number | undefined> {
    return this.#queue.run(key, () => this.#apply(key, limit));
  }

  async #apply(key: string, limit: number): Promise<number | undefined> {
    const store = this.#store;
    const { windowSeconds } = this.#settings;
    for (let tries = 0; tries < MAX_TRIES; tries += 1) {
      const stored = (await store.find(key)) ?? undefined;
      const now = this.#now();
      const outcome = spend(asWindow(stored), limit, windowSeconds, now);
      if (!outcome.allowed) return outcome.retryAfter;
      const payload = { count: outcome.next.count, start: outcome.next.start };
      const expiresIn = Math.max(1, Math.ceil((outcome.next.start + windowSeconds * 1000 - now) / 1000));
      if (typeof store.compareAndSet !== 'function') {
        await store.upsert(key, payload, expiresIn);
        return undefined;
      }
      // false: another instance changed the key in between; read it again
      if (await store.compareAndSet(key, stored, payload, expiresIn)) return undefined;
    }
    // a key that kept changing under us is being hammered: refusing is the safe side
    return 1;
  }
}
