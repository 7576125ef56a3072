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
 * such ids, a delete asked again removes the entry, and a create that finds the list full
 * removes those older than a create can take (lib/member-clients/manager.ts): each entry
 * notes when it was added (`addedAt`, epoch seconds; entries of lists written before have
 * none and count as old).
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
const addedOf = (stored: AdapterPayload | undefined): Record<string, number> => {
  const added = stored?.addedAt;
  return added && typeof added === 'object' && !Array.isArray(added) ? { ...(added as Record<string, number>) } : {};
};

/** An entry of a site's list: a client id, and when it was added (unknown for lists written before it was noted). */
export interface SiteEntry {
  readonly clientId: string;
  readonly addedAt: number | undefined;
}

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

  /** The site's entries, oldest first, with when each was added. */
  async entries(site: string): Promise<SiteEntry[]> {
    const stored = await this.#store.find(site) ?? undefined;
    const added = addedOf(stored);
    return idsOf(stored).map((clientId) => ({ clientId, addedAt: typeof added[clientId] === 'number' ? added[clientId] : undefined }));
  }

  /**
   * Adds `clientId` unless the list names `max` clients already (ids of clients since gone
   * count until they are removed); `false` when it was full. Decided on the list this change
   * writes over, so instances adding at once cannot pass `max` together.
   */
  async add(site: string, clientId: string, max = Infinity, now = Math.floor(Date.now() / 1000)): Promise<boolean> {
    let full = false;
    await this.#change(site, (ids, added) => {
      full = false;
      if (ids.includes(clientId)) return undefined;
      if (ids.length >= max) {
        full = true;
        return undefined;
      }
      return { clientIds: [...ids, clientId], addedAt: { ...added, [clientId]: now } };
    });
    return !full;
  }

  remove(site: string, clientId: string): Promise<void> {
    return this.#change(site, (ids, added) => {
      if (!ids.includes(clientId)) return undefined;
      delete added[clientId];
      return { clientIds: ids.filter((id) => id !== clientId), addedAt: added };
    });
  }

  /** `change`: the new list, or `undefined` when the list already holds what it wants (or may not change). */
  async #change(site: string, change: (ids: string[], added: Record<string, number>) => AdapterPayload | undefined): Promise<void> {
    const held = await this.#updates.update(site, (stored) => {
      const next = change(idsOf(stored), addedOf(stored));
      return next && { payload: next };
    });
    if (!held) throw new StorageUnavailableError(`the list of OAuth applications of site ${site} kept changing (${MAX_TRIES} tries); retry`);
  }
}
