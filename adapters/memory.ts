/**
 * In-memory storage for one process: the default for the demo and for tests.
 *
 * Unlike oidc-provider's bundled MemoryAdapter (an LRU of 1000 entries that evicts live
 * tokens under load), nothing here is evicted before it expires: expired records are
 * dropped when read and by a periodic sweep. Data is lost on restart and not shared
 * between processes: use adapters/redis for that.
 *
 * Records are kept as JSON text, as Redis keeps them: a caller mutating the object it wrote
 * or read cannot change the record, a read gets exactly what a Redis read would (no `Date`,
 * no `undefined` member), and `JSON.parse` of a record costs well under half of a
 * `structuredClone` (this read is on every bearer-protected request).
 *
 * @module
 */
import { errors } from 'oidc-provider';

import { budgetKeptFor, GRANTABLE_MODELS, REFRESH_USE_MODEL, spendsFor } from './types.ts';
import type {
  Adapter, AdapterPayload, BudgetSpent, ClosableAdapterFactory, CompareAndSet, ConsumeAndKeep, FindSpending, FoundSpending, GrantSpend, PutRecords,
  RecordWrite, SpendBudget, SynchronousWrites,
} from './types.ts';

interface Entry {
  /** the record as JSON text */
  json: string;
  /** what the indexes and `consume` read, copied out of the record */
  readonly uid: string | undefined;
  readonly userCode: string | undefined;
  readonly grantId: string | undefined;
  consumed: boolean;
  /** epoch milliseconds; Infinity when stored without expiry (`consumeAndKeep` moves it) */
  expiresAt: number;
}

/** A refresh-token use of the refresh grace ({@link REFRESH_USE_MODEL}), kept apart from the records. */
interface Use {
  readonly grantId: string;
  /** epoch milliseconds */
  readonly expiresAt: number;
}

/**
 * The grant of a {@link REFRESH_USE_MODEL} record as the refresh grace writes it (`{ grantId }`
 * and nothing else, so that what a read makes of the entry equals the record); `undefined`
 * for any other record of that model, which is kept as records are.
 */
function useGrantOf(payload: AdapterPayload): string | undefined {
  const { grantId } = payload;
  if (typeof grantId !== 'string') return undefined;
  for (const member in payload) if (member !== 'grantId') return undefined;
  return grantId;
}

/** The store's key of a model's record (the factory's `putRecords` names records by model too). */
const recordKey = (model: string, id: string): string => `${model}:${id}`;

/**
 * When a record written now with `expiresIn` seconds expires (epoch ms): never without a
 * finite number, as the Redis adapter writes such a record without a TTL (`ttlOf`). `NaN`
 * was a record readable until the next sweep and then gone, where Redis kept it.
 */
function expiryOf(expiresIn: number | undefined): number {
  return typeof expiresIn === 'number' && Number.isFinite(expiresIn) ? Date.now() + expiresIn * 1000 : Infinity;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** What the options of {@link MemoryAdapterOptions} are when left out (written once). */
export const MEMORY_ADAPTER_DEFAULTS = Object.freeze({ sweepIntervalMs: 60_000 });

export interface MemoryAdapterOptions {
  /**
   * How often expired records are swept, in milliseconds.
   * @default {@link MEMORY_ADAPTER_DEFAULTS}.sweepIntervalMs
   */
  sweepIntervalMs?: number;
}

const epoch = () => Math.floor(Date.now() / 1000);

/**
 * What a deleted key holds until the next sweep. A key is not removed from the map when its
 * record is deleted: V8's Map keeps a removed entry in its hash bucket's chain until the
 * table is rebuilt, so a key deleted and written again over and over (a sign-in throttle
 * counter, forgotten on every success) lengthens one chain by an entry each time, and with
 * 300,000 records stored every read of that key walks tens of thousands of dead entries
 * until the next rebuild (measured in Node 22: a set, get and delete of one key cost 18 µs
 * over the first 20,000 rounds and 277 µs by the 150,000th; overwritten in place, 0.03 µs).
 * Overwriting the entry adds nothing to the chain; the sweep removes the tombstones, so a
 * key leaves the map at most once per sweep.
 */
const GONE: Entry = Object.freeze({ json: '', uid: undefined, userCode: undefined, grantId: undefined, consumed: false, expiresAt: -Infinity }) as Entry;

/** One store shared by the adapters of every model of one provider. */
class MemoryStore {
  /** key → its record, or {@link GONE} once deleted (until the sweep) */
  readonly records = new Map<string, Entry>();
  readonly uidIndex = new Map<string, string>();
  readonly userCodeIndex = new Map<string, string>();
  /** grantId → keys of the records that belong to it */
  readonly grants = new Map<string, Set<string>>();
  /**
   * The refresh grace's use records ({@link REFRESH_USE_MODEL}), by id: one small entry per
   * rotation, kept apart from the map of every record (as records of their own, with their
   * JSON, a rotation cost a refresh 8–11% through HTTP on memory where the target is 3%:
   * bench/README, "The grace rule's cost without HTTP"). Each answers for its own id only, as
   * a Redis key does: keeping only the highest generation used per chain took one fork's
   * progress for another's successor being used (adapters/types.ts).
   */
  readonly uses = new Map<string, Use>();
  /** whether a record of that model not of the grace's form was ever written (kept as records are) */
  #otherUseRecords = false;

  /** The live entry of `key`; an expired one is dropped. */
  get(key: string): Entry | undefined {
    const entry = this.records.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return entry;
  }

  /** A copy of the live record of `key`. */
  read(key: string): AdapterPayload | undefined {
    const entry = this.get(key);
    return entry && JSON.parse(entry.json) as AdapterPayload;
  }

  set(key: string, payload: AdapterPayload, expiresIn: number | undefined): void {
    const previous = this.records.get(key);
    const expiresAt = expiryOf(expiresIn);
    const entry: Entry = {
      json: JSON.stringify(payload),
      uid: text(payload.uid),
      userCode: text(payload.userCode),
      grantId: text(payload.grantId),
      consumed: Boolean(payload.consumed),
      expiresAt,
    };
    // a record rewritten under the same indexes (a refresh token marked rotated) keeps them
    if (previous && previous.uid === entry.uid && previous.userCode === entry.userCode && previous.grantId === entry.grantId) {
      this.records.set(key, entry);
      return;
    }
    this.delete(key);
    this.records.set(key, entry);
    const model = key.slice(0, key.indexOf(':'));
    if (entry.uid) this.uidIndex.set(`${model}:${entry.uid}`, key);
    if (entry.userCode) this.userCodeIndex.set(`${model}:${entry.userCode}`, key);
    if (entry.grantId && GRANTABLE_MODELS.has(model)) {
      let members = this.grants.get(entry.grantId);
      if (!members) this.grants.set(entry.grantId, (members = new Set()));
      members.add(key);
    }
  }

  /** Deletes the record of `key`, leaving {@link GONE} in its place. */
  delete(key: string): void {
    const entry = this.records.get(key);
    if (!entry || entry === GONE) return;
    this.records.set(key, GONE);
    this.#unindex(key, entry);
  }

  /** Drops `entry`, the record of `key`, from the indexes. */
  #unindex(key: string, entry: Entry): void {
    const model = key.slice(0, key.indexOf(':'));
    const { uid, userCode, grantId } = entry;
    if (uid && this.uidIndex.get(`${model}:${uid}`) === key) this.uidIndex.delete(`${model}:${uid}`);
    if (userCode && this.userCodeIndex.get(`${model}:${userCode}`) === key) this.userCodeIndex.delete(`${model}:${userCode}`);
    if (grantId) {
      const members = this.grants.get(grantId);
      members?.delete(key);
      if (members?.size === 0) this.grants.delete(grantId);
    }
  }

  /** Writes the record `id` of `model`: a use record of the refresh grace among the uses. */
  write(model: string, id: string, payload: AdapterPayload, expiresIn: number | undefined): void {
    if (model === REFRESH_USE_MODEL && this.#putUse(id, payload, expiresIn)) return;
    this.set(recordKey(model, id), payload, expiresIn);
  }

  /** A copy of the live record `id` of `model`. */
  find(model: string, id: string): AdapterPayload | undefined {
    return (model === REFRESH_USE_MODEL ? this.#findUse(id) : undefined) ?? this.read(recordKey(model, id));
  }

  /** Deletes the record `id` of `model`. */
  remove(model: string, id: string): void {
    if (model === REFRESH_USE_MODEL) this.uses.delete(id);
    this.delete(recordKey(model, id));
  }

  /**
   * Keeps a use record of the refresh grace among the uses, replacing any written under its id
   * (its lifetime too, as a Redis SET does); `false` (nothing kept) when it is not of the form
   * the grace writes. A record of the other form under the same id is dropped: one record per id.
   */
  #putUse(id: string, payload: AdapterPayload, expiresIn: number | undefined): boolean {
    const grantId = useGrantOf(payload);
    if (grantId === undefined) {
      this.uses.delete(id);
      this.#otherUseRecords = true;
      return false;
    }
    this.uses.set(id, { grantId, expiresAt: expiryOf(expiresIn) });
    if (this.#otherUseRecords) this.delete(recordKey(REFRESH_USE_MODEL, id));
    return true;
  }

  /** The use record `id`, while it lives. */
  #findUse(id: string): AdapterPayload | undefined {
    const use = this.uses.get(id);
    if (!use) return undefined;
    if (use.expiresAt <= Date.now()) {
      this.uses.delete(id);
      return undefined;
    }
    return { grantId: use.grantId };
  }

  /** Removes every record of the grant and the grant itself, except `keep` (see consume). */
  revokeGrant(grantId: string, keep?: string): void {
    const members = this.grants.get(grantId);
    if (members) for (const key of [...members]) if (key !== keep) this.delete(key);
    if (!keep) this.grants.delete(grantId);
    this.delete(recordKey('Grant', grantId));
  }

  /** Removes expired records and the tombstones of deleted ones. */
  sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.records) {
      if (entry.expiresAt > now) continue;
      if (entry !== GONE) this.#unindex(key, entry);
      this.records.delete(key);
    }
    for (const [id, use] of this.uses) if (use.expiresAt <= now) this.uses.delete(id);
  }
}

class MemoryAdapter implements Adapter, CompareAndSet, ConsumeAndKeep, SpendBudget, FindSpending {
  readonly #model: string;
  readonly #store: MemoryStore;

  constructor(model: string, store: MemoryStore) {
    this.#model = model;
    this.#store = store;
  }

  #key(id: string): string {
    return recordKey(this.#model, id);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.#store.write(this.#model, id, payload, expiresIn);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.#store.find(this.#model, id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const key = this.#store.uidIndex.get(`${this.#model}:${uid}`);
    return key ? this.#store.read(key) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const key = this.#store.userCodeIndex.get(`${this.#model}:${userCode}`);
    return key ? this.#store.read(key) : undefined;
  }

  consume(id: string): Promise<void> {
    return this.#consume(id, undefined, undefined);
  }

  /** {@link ConsumeAndKeep.consumeAndKeep} */
  consumeAndKeep(id: string, keepSeconds: number, mark?: string): Promise<void> {
    return this.#consume(id, keepSeconds, mark);
  }

  async #consume(id: string, keepSeconds: number | undefined, mark: string | undefined): Promise<void> {
    // Synchronous read-check-write: no other request can interleave inside it.
    const entry = this.#store.get(this.#key(id));
    if (!entry) return;
    if (entry.consumed) {
      // The replayed artefact itself stays (consumed) until it expires: were it deleted, later
      // racers would find nothing to consume and be issued tokens.
      if (entry.grantId) this.#store.revokeGrant(entry.grantId, this.#key(id));
      throw new errors.InvalidGrant('grant artefact already consumed');
    }
    const payload = JSON.parse(entry.json) as AdapterPayload;
    payload.consumed = epoch();
    // who consumed it: a caller whose answer was lost can tell its consume from another's
    if (typeof mark === 'string') payload.consumedBy = mark;
    entry.json = JSON.stringify(payload);
    entry.consumed = true;
    // the grant's index here has no expiry of its own
    if (keepSeconds !== undefined) entry.expiresAt = Date.now() + keepSeconds * 1000;
  }

  async destroy(id: string): Promise<void> {
    this.#store.remove(this.#model, id);
  }

  async compareAndSet(id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number): Promise<boolean> {
    // synchronous from the read to the write: nothing can interleave
    const key = this.#key(id);
    if (this.#store.get(key)?.json !== (expected === undefined ? undefined : JSON.stringify(expected))) return false;
    if (next === undefined) this.#store.delete(key);
    else this.#store.set(key, next, expiresIn);
    return true;
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    this.#store.revokeGrant(grantId);
  }

  /** {@link SpendBudget.spendBudget}: synchronous from the read to the write, as compareAndSet. */
  async spendBudget(id: string, now: number, tolerance: number, step: number): Promise<BudgetSpent> {
    return spendIn(this.#store, this.#key(id), now, tolerance, step);
  }

  /** {@link FindSpending.findSpending}: the read and the spend in one synchronous step. */
  async findSpending(id: string, spend: GrantSpend): Promise<FoundSpending> {
    const payload = this.#store.find(this.#model, id);
    if (!spendsFor(payload, spend)) return { payload, spent: undefined };
    return { payload, spent: spendIn(this.#store, recordKey(spend.model, payload!.grantId as string), spend.now, spend.tolerance, spend.step) };
  }
}

/** A budget's spend ({@link SpendBudget.spendBudget}) on the record at `key`. */
function spendIn(store: MemoryStore, key: string, now: number, tolerance: number, step: number): BudgetSpent {
  const stored = store.get(key);
  const was = stored === undefined ? undefined : (JSON.parse(stored.json) as { tat?: unknown }).tat;
  const tat = typeof was === 'number' && was > now ? was : now;
  if (tat - now > tolerance) return { spent: false, tat };
  const next = tat + step;
  store.set(key, { tat: next }, budgetKeptFor(next, now));
  return { spent: true, tat: next };
}

/**
 * Creates in-memory storage for one `createPlatformAuth` instance.
 *
 * @example
 * ```ts
 * const auth = await createPlatformAuth({ baseUrl, accounts, adapter: createMemoryAdapter() });
 * ```
 */
export function createMemoryAdapter(options: MemoryAdapterOptions = {}): ClosableAdapterFactory & PutRecords & SynchronousWrites {
  const { sweepIntervalMs = MEMORY_ADAPTER_DEFAULTS.sweepIntervalMs } = options;
  const store = new MemoryStore();
  const timer = setInterval(() => store.sweep(), sweepIntervalMs);
  timer.unref();
  const factory = (modelName: string) => new MemoryAdapter(modelName, store);
  return Object.assign(factory, {
    writesSynchronously: true as const,
    /**
     * {@link PutRecords.putRecords}: every record written in one synchronous step (the
     * refresh-token grace writes two per rotation; one promise, not one per record).
     */
    putRecords(writes: readonly RecordWrite[]): Promise<void> {
      for (const { model, id, payload, expiresIn } of writes) {
        // already expired: a deletion, as the Redis adapter writes it (a fraction of a second
        // is a lifetime there, rounded up to 1 s; here it is kept to the millisecond, as upsert keeps it)
        if (typeof expiresIn === 'number' && expiresIn <= 0) store.remove(model, id);
        else store.write(model, id, payload, expiresIn);
      }
      return Promise.resolve();
    },
    async close() {
      clearInterval(timer);
    },
  });
}
