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

export class RecordUpdater {
  readonly #store: Adapter & Partial<CompareAndSet>;
  /** the updates of each key in this process, one at a time */
  readonly #queue = new KeyedQueue();

  constructor(store: Adapter & Partial<CompareAndSet>) {
    this.#store = store;
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
    for (let tries = 0; tries < MAX_TRIES; tries += 1) {
      const current = await store.find(key) ?? undefined;
      const write = change(current);
      if (!write) return true;
      if (typeof store.compareAndSet !== 'function') {
        if (write.payload) await store.upsert(key, write.payload, write.expiresIn as number);
        else await store.destroy(key);
        return true;
      }
      // false: another instance changed the record in between; read it again
      if (await store.compareAndSet(key, current, write.payload, write.expiresIn)) return true;
    }
    return false;
  }
}
