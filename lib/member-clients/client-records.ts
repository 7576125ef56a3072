/**
 * The stored records of member clients: oidc-provider's `Client` model, written here outside
 * any provider request.
 *
 * - A change writes only over the record it read ({@link ClientRecords.replace}): with the
 *   adapter's `compareAndSet` (adapters/types.ts) atomically, across instances too, so a
 *   deletion or another rotation landing between the read and the write makes the write fail
 *   and the caller read again, instead of bringing a deleted client back or writing over a
 *   newer record. Without `compareAndSet` the record is read again just before the write,
 *   which narrows that window across instances to a round trip but cannot close it.
 * - Operations on one client are queued within this instance ({@link ClientRecords.exclusive}),
 *   so there they never interleave.
 * - Nothing of the provider's needs invalidating: `Client.find` reads the record from storage
 *   on every lookup and caches only the client built from it, keyed by a hash of the record,
 *   so every instance finds a deleted client gone and builds a rotated one afresh, at once.
 *
 * @module
 */
import type { Adapter, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { KeyedQueue } from '../storage/key-queue.ts';

type ClientStore = Adapter & Partial<CompareAndSet>;

export class ClientRecords {
  readonly #store: ClientStore;
  readonly #queue = new KeyedQueue();

  /**
   * `store`: the adapter of the provider's `Client` model, as made by the factory the
   * provider's storage is built from (the provider's own wraps it for self-registered
   * clients only, and does not pass `compareAndSet` on).
   */
  constructor(store: ClientStore) {
    this.#store = store;
  }

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    return await this.#store.find(clientId) ?? undefined;
  }

  /** Runs `operation` after every earlier one on `clientId` in this instance. */
  exclusive<T>(clientId: string, operation: () => Promise<T>): Promise<T> {
    return this.#queue.run(clientId, operation);
  }

  /** Stores a new client (no expiry: member clients live until deleted). */
  insert(clientId: string, record: AdapterPayload): Promise<void> {
    return this.#store.upsert(clientId, record, undefined as unknown as number);
  }

  /** Writes `next` in place of `read`, only if the record is still `read`; `false` when it changed or went. */
  async replace(clientId: string, read: AdapterPayload, next: AdapterPayload): Promise<boolean> {
    const store = this.#store;
    if (typeof store.compareAndSet === 'function') return store.compareAndSet(clientId, read, next);
    if (JSON.stringify(await this.find(clientId)) !== JSON.stringify(read)) return false;
    await this.insert(clientId, next);
    return true;
  }

  destroy(clientId: string): Promise<void> {
    return this.#store.destroy(clientId);
  }
}
