/**
 * Read-modify-write of one small record of the library's own (a counter, a rate-limit
 * state), made safe for concurrent requests: the updates of one key are serialised within
 * this process, and across instances each update is atomic where the adapter has
 * `compareAndSet` (adapters/types.ts). Adapters without it fall back to a plain read then
 * write, where two instances updating one key at the same moment may lose one update.
 *
 * Records must have no `uid`, `userCode` or `grantId` (compareAndSet maintains no index).
 *
 * @module
 */
import type { Adapter, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { KeyedQueue } from './key-queue.ts';

/** What to write: `payload` (deleted when `undefined`) with its TTL in seconds. */
export interface RecordWrite {
  readonly payload: AdapterPayload | undefined;
  readonly expiresIn?: number;
}

/** The new state of a record from its current one; `undefined` leaves the record as it is. */
export type RecordChange = (current: AdapterPayload | undefined) => RecordWrite | undefined;

/** compare-and-set attempts before an update gives up (only under heavy cross-instance contention) */
const MAX_TRIES = 8;

export interface RecordUpdaterOptions {
  /** tries of one update before it resolves `false`; {@link MAX_TRIES} by default */
  readonly tries?: number;
  /**
   * Without `compareAndSet`: `'write'` (the default) writes once; `'converge'` writes, waits a
   * few random milliseconds, reads the record back and tries again until `change` finds
   * nothing left to do, so that instances writing one key at once do not lose each other's
   * change. Only for a `change` that returns `undefined` once applied (adding or removing a
   * member, not counting).
   */
  readonly withoutCompareAndSet?: 'write' | 'converge';
}

export class RecordUpdater {
  readonly #store: Adapter & Partial<CompareAndSet>;
  readonly #tries: number;
  readonly #converge: boolean;
  /** the updates of each key in this process, one at a time */
  readonly #queue = new KeyedQueue();

  constructor(store: Adapter & Partial<CompareAndSet>, options: RecordUpdaterOptions = {}) {
    this.#store = store;
    this.#tries = options.tries ?? MAX_TRIES;
    this.#converge = options.withoutCompareAndSet === 'converge';
  }

  /**
   * Applies `change` to the record `key`. Resolves `false` when another instance kept
   * changing the record between read and write: the caller decides what that means.
   * `change` may be called more than once (once per try); keep it free of side effects.
   */
  update(key: string, change: RecordChange): Promise<boolean> {
    return this.#queue.run(key, () => this.#apply(key, change));
  }

  async #apply(key: string, change: RecordChange): Promise<boolean> {
    const store = this.#store;
    for (let tries = 0; tries < this.#tries; tries += 1) {
      const current = await store.find(key) ?? undefined;
      const write = change(current);
      if (!write) return true;
      if (typeof store.compareAndSet !== 'function') {
        if (write.payload) await store.upsert(key, write.payload, write.expiresIn as number);
        else await store.destroy(key);
        if (!this.#converge) return true;
        // another instance's write of the same moment may have replaced ours: the next try
        // reads it back, and is done when `change` finds nothing left to do
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
        continue;
      }
      // false: another instance changed the record in between; read it again
      if (await store.compareAndSet(key, current, write.payload, write.expiresIn)) return true;
    }
    // converging: the last write may have held; a final read tells
    if (this.#converge && typeof store.compareAndSet !== 'function') return change(await store.find(key) ?? undefined) === undefined;
    return false;
  }
}
