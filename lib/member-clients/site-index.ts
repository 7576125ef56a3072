/**
 * Each site's list of its member clients: one small record per site (model
 * `SiteMemberClients`, `{ clientIds }`), read by `auth.memberClients.list`; kept small by
 * `memberClients.maxPerSite`, which `add` holds to.
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
 * written and could not take it back, a delete that failed before removing it): readers skip
 * such ids.
 *
 * @module
 */
import type { Adapter, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import { RecordUpdater } from '../storage/record-update.ts';

/** the same model name as ever: lists written before stay readable */
export const SITE_INDEX_MODEL = 'SiteMemberClients';

/** tries of one change before giving up (only under heavy cross-instance contention) */
const MAX_TRIES = 5;

type IndexStore = Adapter & Partial<CompareAndSet>;

const idsOf = (stored: AdapterPayload | undefined): string[] => (Array.isArray(stored?.clientIds) ? (stored.clientIds as string[]) : []);

export class SiteIndex {
  readonly #store: IndexStore;
  readonly #updates: RecordUpdater;

  constructor(store: IndexStore) {
    this.#store = store;
    // adding or removing an id is idempotent: without compareAndSet, writes converge
    this.#updates = new RecordUpdater(store, { tries: MAX_TRIES, withoutCompareAndSet: 'converge' });
  }

  /** The ids the site's list names, oldest first; some may name clients since gone. */
  async ids(site: string): Promise<string[]> {
    return idsOf(await this.#store.find(site) ?? undefined);
  }

  /**
   * Adds `clientId` unless the list names `max` clients already (ids of clients since gone
   * count until they are removed); `false` when it was full. Decided on the list this change
   * writes over, so instances adding at once cannot pass `max` together.
   */
  async add(site: string, clientId: string, max = Infinity): Promise<boolean> {
    let full = false;
    await this.#change(site, (ids) => {
      full = false;
      if (ids.includes(clientId)) return undefined;
      if (ids.length >= max) {
        full = true;
        return undefined;
      }
      return [...ids, clientId];
    });
    return !full;
  }

  remove(site: string, clientId: string): Promise<void> {
    return this.#change(site, (ids) => (ids.includes(clientId) ? ids.filter((id) => id !== clientId) : undefined));
  }

  /** `change`: the new list, or `undefined` when the list already holds what it wants (or may not change). */
  async #change(site: string, change: (ids: string[]) => string[] | undefined): Promise<void> {
    const held = await this.#updates.update(site, (stored) => {
      const next = change(idsOf(stored));
      return next && { payload: { clientIds: next } };
    });
    if (!held) throw new StorageUnavailableError(`the list of OAuth applications of site ${site} kept changing (${MAX_TRIES} tries); retry`);
  }
}
