/**
 * Each site's list of its member clients: one small record per site (model
 * `SiteMemberClients`, `{ clientIds }`), read by `auth.memberClients.list`.
 *
 * A change is a read-modify-write. Changes to one site are queued within this instance.
 * Across instances, with the adapter's `compareAndSet` (adapters/types.ts) each change is
 * atomic and tried again when another instance changed the list in between; without it, each
 * change is written, read back and redone until it holds, so concurrent changes converge
 * instead of silently dropping a client from the list. A change that still does not hold
 * after {@link MAX_TRIES} is a 503 `StorageUnavailableError`: storage the call needs is, for
 * now, too busy to answer (a plain error would be a 500).
 *
 * The list may name a client whose record is gone (a create that failed after its entry was
 * written, a delete that failed before removing it): readers skip such ids.
 *
 * @module
 */
import type { Adapter, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { KeyedQueue } from '../storage/key-queue.ts';

/** the same model name as ever: lists written before stay readable */
export const SITE_INDEX_MODEL = 'SiteMemberClients';

/** tries of one change before giving up (only under heavy cross-instance contention) */
const MAX_TRIES = 5;

type IndexStore = Adapter & Partial<CompareAndSet>;

const idsOf = (stored: AdapterPayload | undefined): string[] => (Array.isArray(stored?.clientIds) ? (stored.clientIds as string[]) : []);

export class SiteIndex {
  readonly #store: IndexStore;
  readonly #queue = new KeyedQueue();

  constructor(store: IndexStore) {
    this.#store = store;
  }

  /** The ids the site's list names, oldest first; some may name clients since gone. */
  async ids(site: string): Promise<string[]> {
    return idsOf(await this.#store.find(site) ?? undefined);
  }

  add(site: string, clientId: string): Promise<void> {
    return this.#change(site, (ids) => [...ids.filter((id) => id !== clientId), clientId], (ids) => ids.includes(clientId));
  }

  remove(site: string, clientId: string): Promise<void> {
    return this.#change(site, (ids) => ids.filter((id) => id !== clientId), (ids) => !ids.includes(clientId));
  }

  #change(site: string, change: (ids: string[]) => string[], holds: (ids: string[]) => boolean): Promise<void> {
    return this.#queue.run(site, async () => {
      for (let tries = 0; tries < MAX_TRIES; tries += 1) {
        if (await this.#try(site, change, holds)) return;
      }
      throw new StorageUnavailableError(`the list of OAuth applications of site ${site} kept changing (${MAX_TRIES} tries); retry`);
    });
  }

  /** One try of a change: `true` once it holds. */
  async #try(site: string, change: (ids: string[]) => string[], holds: (ids: string[]) => boolean): Promise<boolean> {
    const store = this.#store;
    const stored = await store.find(site) ?? undefined;
    const ids = idsOf(stored);
    if (holds(ids)) return true;
    if (typeof store.compareAndSet === 'function') return store.compareAndSet(site, stored, { clientIds: change(ids) });
    await store.upsert(site, { clientIds: change(ids) }, undefined as unknown as number);
    // another instance's write of the same moment may have replaced ours: wait a little, read back
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
    return holds(await this.ids(site));
  }
}
