/**
 * The per-client trace in storage (model `ClientTrace`): each client's last `entries`
 * entries newest first, kept `ttlSeconds` after its last write. Through the adapter, so every
 * instance on the same storage writes and reads the same trace.
 *
 * A trace that holds only entries of {@link UNKNOWN_CLIENT_EVENTS} (a client ID metadata
 * document that could not be fetched: anyone can send any URL as `client_id`), or of a
 * metadata document's client only entries anyone can cause with no one signing in
 * ({@link showsKnownClient}), is kept at most
 * {@link UNKNOWN_CLIENT_TRACE_TTL_S} (an hour, or `ttlSeconds` if shorter): with the
 * recorder's budget of such entries (lib/trace/recorder.ts, 60 a minute per instance) that
 * bounds them to about 3,600 traces per instance, where `ttlSeconds` (a week by default)
 * would keep some 600,000. A trace with any other entry (a known client's) keeps `ttlSeconds`,
 * and an append of unknown clients' entries only does not shorten it: a capped list's lifetime
 * is only ever extended ({@link CappedList.pushCapped}); a trace read, merged and written back
 * keeps `ttlSeconds` while what was stored or the batch holds an entry of a known client.
 *
 * With an adapter that keeps capped lists ({@link CappedList}: the Redis adapter, `LPUSH` +
 * `LTRIM` + `EXPIRE` in one script), an append is one write of the new entries only: nothing
 * is read, and nothing is redone when another instance appended meanwhile. That matters for
 * a popular app, whose trace every instance appends to several times a second: read, merged
 * and written back whole, each append would move the whole trace (tens of KB) twice and
 * collide with the other instances' appends. The list keeps the entries pushed last; an
 * instance writes its batch within a quarter of a second of its events (lib/trace/recorder.ts),
 * so those are the newest entries but for that quarter second at the edge.
 *
 * Otherwise appending is a read, a merge and a write. With the adapter's `compareAndSet`
 * (the memory adapter has it) the write happens only if nobody wrote in between, else it is
 * redone, so instances appending at once lose nothing. An adapter with neither falls back to
 * `upsert`: then two instances appending to one client's trace at the same moment may lose
 * one of the two batches (last writer wins), which a diagnostic trace can afford.
 *
 * The list of traced clients (model `ClientTraceIndex`, one for the deployment) is written by
 * every instance every second. With an adapter that keeps an index of the latest per member
 * ({@link LatestByMember}: the Redis adapter, a sorted set and a hash in one script) a write
 * sends only the clients traced since the last; otherwise it is one record, read, merged and
 * written back by compare-and-set like a trace.
 *
 * A trace or a list of clients written as one record (before the Redis adapter kept lists and
 * indexes) is still read, merged with the new form, until it expires (`ttlSeconds` after its
 * last write): nothing is lost when instances are upgraded.
 *
 * @module
 */
import type { Adapter, AdapterFactory, AdapterPayload, CappedList, CompareAndSet, LatestByMember } from '../../adapters/types.ts';
import type { EventName } from '../events/types.ts';
import { isMetadataDocumentId, isSelfRegisteredId } from '../policies/client-metadata.ts';
import type { TraceEntry } from './entry.ts';

/** The storage model of the traces. */
export const TRACE_MODEL = 'ClientTrace';

/** The storage model of the list of traced clients (one record). */
export const TRACE_INDEX_MODEL = 'ClientTraceIndex';

/** How many clients the list of traced clients keeps. */
export const TRACED_CLIENTS_KEPT = 200;

const INDEX_ID = 'recent';

/**
 * Events that may name a client this server does not know: a client ID metadata document
 * fetched, or that could not be, whose URL anyone can send as `client_id` (and anyone can
 * publish documents at as many URLs of their own host as they like: a document is no client
 * until someone signed in with it). The recorder keeps a budget of them
 * (lib/trace/recorder.ts), and a trace of nothing else is kept only
 * {@link UNKNOWN_CLIENT_TRACE_TTL_S}.
 */
export const UNKNOWN_CLIENT_EVENTS: ReadonlySet<EventName> = new Set<EventName>(['metadata_document.failed', 'metadata_document.fetched']);

/** The longest a trace holding only entries of {@link UNKNOWN_CLIENT_EVENTS} is kept, in seconds (an hour). */
export const UNKNOWN_CLIENT_TRACE_TTL_S = 3600;

/**
 * Events that show a metadata document's client in use: someone signed in with it, or it held
 * a code or a refresh token. Any other event of such a client anyone can cause with a document
 * of their own at a URL of their own, with no one signing in: an authorization request refused
 * for its `redirect_uri` or `scope` (the document was fetched, so the refusal names its
 * client), a junk code at the token endpoint, a failed sign-in or Cancel on its page.
 */
const IN_USE_EVENTS: ReadonlySet<EventName> = new Set<EventName>([
  'signin.succeeded', 'consent.granted', 'code.issued', 'code.redeemed', 'code.replayed',
  'refresh.rotated', 'refresh.grace_used', 'refresh.reuse_detected',
]);

/**
 * Whether an entry of `event` shows `clientId` to be a client this server knows: not one of
 * {@link UNKNOWN_CLIENT_EVENTS}, and for a client anyone can make (a metadata document's, its
 * id an https URL; a self-registered one, its id `dcr_…`) one of {@link IN_USE_EVENTS}.
 * Static and member clients are known by any other event: making one took an operator. A
 * self-registered client's refusals were kept a week outside the budget: one registration
 * and sixty refused authorizations with long redirect URIs stored 200 KB for a week.
 */
export function showsKnownClient(clientId: string, event: EventName): boolean {
  if (UNKNOWN_CLIENT_EVENTS.has(event)) return false;
  return !(isMetadataDocumentId(clientId) || isSelfRegisteredId(clientId)) || IN_USE_EVENTS.has(event);
}

/** Whether `entries` of `clientId`'s trace show a client this server knows ({@link showsKnownClient}). */
const namesKnownClient = (clientId: string, entries: readonly TraceEntry[]): boolean => entries.some((entry) => showsKnownClient(clientId, entry.event));

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

export interface TraceStoreOptions {
  readonly adapter: AdapterFactory;
  /** entries kept per client */
  readonly entries: number;
  /**
   * seconds a trace is kept after its last entry; one holding only entries of
   * {@link UNKNOWN_CLIENT_EVENTS} at most {@link UNKNOWN_CLIENT_TRACE_TTL_S}
   */
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

type TraceAdapter = Adapter & Partial<CompareAndSet> & Partial<CappedList> & Partial<LatestByMember>;

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

function clientsOf(stored: AdapterPayload | undefined | void): TracedClient[] {
  const clients = (stored as Partial<StoredIndex> | undefined)?.clients;
  return Array.isArray(clients) ? clients : [];
}

function cappedList(adapter: TraceAdapter): CappedList | undefined {
  return typeof adapter.pushCapped === 'function' && typeof adapter.readCapped === 'function' ? adapter as CappedList : undefined;
}

function latestByMember(adapter: TraceAdapter): LatestByMember | undefined {
  return typeof adapter.putLatest === 'function' && typeof adapter.readLatest === 'function' ? adapter as LatestByMember : undefined;
}

export class ClientTraceStore {
  readonly #store: TraceAdapter;
  readonly #index: TraceAdapter;
  /** the trace adapter's capped lists, when it has them (found once, here) */
  readonly #lists: CappedList | undefined;
  /** the index adapter's latest-by-member index, when it has one */
  readonly #latest: LatestByMember | undefined;
  readonly #max: number;
  readonly #ttl: number;
  /** the lifetime of a trace holding only entries of unknown clients */
  readonly #unknownTtl: number;

  constructor(options: TraceStoreOptions) {
    this.#store = options.adapter(TRACE_MODEL) as TraceAdapter;
    this.#index = options.adapter(TRACE_INDEX_MODEL) as TraceAdapter;
    this.#lists = cappedList(this.#store);
    this.#latest = latestByMember(this.#index);
    this.#max = options.entries;
    this.#ttl = options.ttlSeconds;
    this.#unknownTtl = Math.min(UNKNOWN_CLIENT_TRACE_TTL_S, options.ttlSeconds);
  }

  /** The lifetime of `clientId`'s trace holding `entries`: the short one when none shows a known client. */
  #ttlOf(clientId: string, entries: readonly TraceEntry[]): number {
    return namesKnownClient(clientId, entries) ? this.#ttl : this.#unknownTtl;
  }

  /** Adds `entries` (oldest first) to the trace of `clientId`. */
  async append(clientId: string, entries: readonly TraceEntry[]): Promise<void> {
    if (this.#lists) {
      // the list's lifetime is only ever extended (CappedList.pushCapped): a batch of unknown
      // clients' entries only cannot shorten that of a trace which has a known client's
      await this.#lists.pushCapped(clientId, entries as unknown as AdapterPayload[], this.#max, this.#ttlOf(clientId, entries));
      return;
    }
    const store = this.#store;
    const batch = [...entries].reverse();
    for (let tries = 0; tries < MAX_TRIES; tries += 1) {
      const stored = await store.find(clientId) ?? undefined;
      const merged = newestFirst([...batch, ...entriesOf(stored)]);
      const next: StoredTrace = { entries: merged.slice(0, this.#max) };
      // the long lifetime when the trace had or gets an entry of a known client (before the cap)
      const ttl = this.#ttlOf(clientId, merged);
      if (typeof store.compareAndSet !== 'function') {
        await store.upsert(clientId, next, ttl);
        return;
      }
      if (await store.compareAndSet(clientId, stored, next, ttl)) return;
      await backOff();
    }
    // still contended: write anyway rather than drop the entries (last writer wins)
    const stored = await store.find(clientId) ?? undefined;
    const merged = newestFirst([...batch, ...entriesOf(stored)]);
    await store.upsert(clientId, { entries: merged.slice(0, this.#max) }, this.#ttlOf(clientId, merged));
  }

  /** Records `clients` (their latest entries) in the list of traced clients. */
  async touch(clients: readonly TracedClient[]): Promise<void> {
    if (this.#latest) {
      const now = Date.now();
      const entries = clients.map((client) => {
        const at = Date.parse(client.at);
        return { member: client.clientId, at: Number.isFinite(at) ? at : now, payload: client as unknown as AdapterPayload };
      });
      await this.#latest.putLatest(INDEX_ID, entries, TRACED_CLIENTS_KEPT, this.#ttl);
      return;
    }
    const index = this.#index;
    for (let tries = 0; ; tries += 1) {
      const stored = await index.find(INDEX_ID) ?? undefined;
      const known = clientsOf(stored);
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
    const index = this.#index;
    if (this.#latest) {
      // with the record an older version wrote, if it has not expired yet, as read() does
      const [latest, before] = await Promise.all([this.#latest.readLatest(INDEX_ID), index.find(INDEX_ID)]);
      return latestPerClient([...(latest as unknown as TracedClient[]), ...clientsOf(before)]).slice(0, TRACED_CLIENTS_KEPT);
    }
    return clientsOf(await index.find(INDEX_ID));
  }

  /** The trace of `clientId`, newest first. */
  async read(clientId: string): Promise<TraceEntry[]> {
    const store = this.#store;
    if (this.#lists) {
      // with the record an older version wrote, if it has not expired yet (sent together: one round trip on Redis)
      const [listed, before] = await Promise.all([this.#lists.readCapped(clientId), store.find(clientId)]);
      return newestFirst([...(listed as unknown as TraceEntry[]), ...entriesOf(before)]).slice(0, this.#max);
    }
    return entriesOf(await store.find(clientId));
  }
}
