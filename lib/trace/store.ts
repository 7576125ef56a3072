/**
 * The per-client trace in storage: one record per client (model `ClientTrace`), its last
 * `entries` entries newest first, kept `ttlSeconds` after its last write. Through the
 * adapter, so every instance on the same storage writes and reads the same trace.
 *
 * Appending is a read, a merge and a write. With the adapter's `compareAndSet` (both adapters
 * here have it) the write happens only if nobody wrote in between, else it is redone, so
 * instances appending at once lose nothing. An adapter without it falls back to `upsert`:
 * then two instances appending to one client's trace at the same moment may lose one of the
 * two batches (last writer wins), which a diagnostic trace can afford.
 *
 * An adapter may offer {@link CappedListAdapter.pushCapped} (an atomic capped-list push, e.g.
 * Redis `LPUSH` + `LTRIM` + `EXPIRE`); it is used when present, which saves the read.
 *
 * @module
 */
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import type { TraceEntry } from './entry.ts';

/** The storage model of the traces. */
export const TRACE_MODEL = 'ClientTrace';

/** The storage model of the list of traced clients (one record). */
export const TRACE_INDEX_MODEL = 'ClientTraceIndex';

/** How many clients the list of traced clients keeps. */
export const TRACED_CLIENTS_KEPT = 200;

const INDEX_ID = 'recent';

/** A client that has a trace, with its latest entry: what a staff view lists. */
export interface TracedClient {
  readonly clientId: string;
  /** the time of its latest entry (ISO 8601) */
  readonly at: string;
  readonly outcome: TraceEntry['outcome'];
  readonly summary: string;
}

/** How often an append is redone when other instances keep writing in between. */
const MAX_TRIES = 8;

/** A few random milliseconds, so that instances that collided do not collide again. */
const backOff = () => new Promise<void>((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10)));

/**
 * An optional adapter method: pushes `items` (oldest first) onto the front of the list `id`,
 * keeps its first `max` items, and sets its lifetime to `expiresIn` seconds, atomically;
 * `readCapped` returns the list, newest first. Not part of adapters/types.ts yet.
 */
export interface CappedListAdapter {
  pushCapped(id: string, items: readonly AdapterPayload[], max: number, expiresIn: number): Promise<void>;
  readCapped(id: string): Promise<AdapterPayload[]>;
}

export interface TraceStoreOptions {
  readonly adapter: AdapterFactory;
  /** entries kept per client */
  readonly entries: number;
  /** seconds a trace is kept after its last entry */
  readonly ttlSeconds: number;
}

interface StoredTrace extends AdapterPayload {
  readonly entries: TraceEntry[];
}

interface StoredIndex extends AdapterPayload {
  readonly clients: TracedClient[];
}

/** Each client once, with its latest entry, most recent first. */
function latestPerClient(clients: readonly TracedClient[]): TracedClient[] {
  const latest = new Map<string, TracedClient>();
  for (const client of clients) {
    const known = latest.get(client.clientId);
    if (!known || known.at < client.at) latest.set(client.clientId, client);
  }
  return [...latest.values()].sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0));
}

type TraceAdapter = Adapter & Partial<CompareAndSet> & Partial<CappedListAdapter>;

/**
 * Newest first by time: instances write their batches in any order (each waits its own
 * interval), so the order of writing is not the order of events.
 */
function newestFirst(entries: readonly TraceEntry[]): TraceEntry[] {
  return [...entries].sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0));
}

function entriesOf(stored: AdapterPayload | undefined | void): TraceEntry[] {
  const entries = (stored as Partial<StoredTrace> | undefined)?.entries;
  return Array.isArray(entries) ? entries : [];
}

export class ClientTraceStore {
  readonly #store: TraceAdapter;
  readonly #index: TraceAdapter;
  readonly #max: number;
  readonly #ttl: number;

  constructor(options: TraceStoreOptions) {
    this.#store = options.adapter(TRACE_MODEL) as TraceAdapter;
    this.#index = options.adapter(TRACE_INDEX_MODEL) as TraceAdapter;
    this.#max = options.entries;
    this.#ttl = options.ttlSeconds;
  }

  /** Adds `entries` (oldest first) to the trace of `clientId`. */
  async append(clientId: string, entries: readonly TraceEntry[]): Promise<void> {
    const store = this.#store;
    if (typeof store.pushCapped === 'function' && typeof store.readCapped === 'function') {
      await store.pushCapped(clientId, entries as unknown as AdapterPayload[], this.#max, this.#ttl);
      return;
    }
    const batch = [...entries].reverse();
    for (let tries = 0; tries < MAX_TRIES; tries += 1) {
      const stored = await store.find(clientId) ?? undefined;
      const next: StoredTrace = { entries: newestFirst([...batch, ...entriesOf(stored)]).slice(0, this.#max) };
      if (typeof store.compareAndSet !== 'function') {
        await store.upsert(clientId, next, this.#ttl);
        return;
      }
      if (await store.compareAndSet(clientId, stored, next, this.#ttl)) return;
      await backOff();
    }
    // still contended: write anyway rather than drop the entries (last writer wins)
    const stored = await store.find(clientId) ?? undefined;
    await store.upsert(clientId, { entries: newestFirst([...batch, ...entriesOf(stored)]).slice(0, this.#max) }, this.#ttl);
  }

  /** Records `clients` (their latest entries) in the list of traced clients. */
  async touch(clients: readonly TracedClient[]): Promise<void> {
    const index = this.#index;
    for (let tries = 0; ; tries += 1) {
      const stored = await index.find(INDEX_ID) ?? undefined;
      const known = Array.isArray((stored as Partial<StoredIndex> | undefined)?.clients) ? (stored as StoredIndex).clients : [];
      const next: StoredIndex = { clients: latestPerClient([...clients, ...known]).slice(0, TRACED_CLIENTS_KEPT) };
      if (typeof index.compareAndSet !== 'function' || tries >= MAX_TRIES) {
        await index.upsert(INDEX_ID, next, this.#ttl);
        return;
      }
      if (await index.compareAndSet(INDEX_ID, stored, next, this.#ttl)) return;
      await backOff();
    }
  }

  /** The clients with a trace, the most recently traced first. */
  async tracedClients(): Promise<TracedClient[]> {
    const stored = await this.#index.find(INDEX_ID) as Partial<StoredIndex> | undefined;
    return Array.isArray(stored?.clients) ? stored.clients : [];
  }

  /** The trace of `clientId`, newest first. */
  async read(clientId: string): Promise<TraceEntry[]> {
    const store = this.#store;
    if (typeof store.readCapped === 'function' && typeof store.pushCapped === 'function') {
      return newestFirst((await store.readCapped(clientId)) as unknown as TraceEntry[]);
    }
    return entriesOf(await store.find(clientId));
  }
}
