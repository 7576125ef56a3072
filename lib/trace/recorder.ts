/**
 * Writes events into the per-client traces, without putting storage on the request's path
 * and without a write per event:
 *
 * - an event's entry is queued for its client, and the request goes on;
 * - a client's queue is written at once when nothing of it was written in the last
 *   {@link TRACE_WRITE_INTERVAL_MS}, else at the end of that interval, in one append; at most
 *   one write per client is under way on an instance. A client refreshing a thousand times a
 *   second costs its trace a few writes a second;
 * - reads merge the entries still queued on this instance, so what happened here is seen here
 *   at once (other instances see it after the write).
 *
 * Whose trace: events of a known client. A client ID metadata document that could not be
 * fetched names no known client, and anyone can send any URL as `client_id`: such entries are
 * kept too (that failure is what the document's author needs to see), and so are the refusals
 * of a fetched document's client nobody has used yet (`showsKnownClient`, lib/trace/store.ts),
 * but at most {@link UNKNOWN_CLIENT_BUDGET} new ones a minute per instance (`UNKNOWN_CLIENT_EVENTS`),
 * and a trace holding only such entries is kept an hour (`UNKNOWN_CLIENT_TRACE_TTL_S`,
 * lib/trace/store.ts), not `trace.ttlSeconds` (a week by default): about 3,600 such traces
 * per instance at most, so they cannot be used to fill the storage. Client ids longer than
 * {@link MAX_TRACED_CLIENT_ID} are not traced.
 *
 * @module
 */
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Logger } from '../contracts.ts';
import type { EventSink } from '../events/diagnostics.ts';
import type { PlatformAuthEvent } from '../events/types.ts';
import { toTraceEntry } from './entry.ts';
import type { TraceEntry } from './entry.ts';
import { showsKnownClient, TRACED_CLIENTS_KEPT } from './store.ts';
import type { ClientTraceStore, TracedClient } from './store.ts';

/** How many known clients an instance remembers for the budget of unknown ones. */
const MAX_KNOWN_CLIENTS = 10_000;

/** The shortest time between two writes of the list of traced clients by one instance. */
export const TRACE_INDEX_INTERVAL_MS = 1000;

/** The shortest time between two writes of one client's trace by one instance. */
export const TRACE_WRITE_INTERVAL_MS = 250;

/** Entries for clients that are not known, per minute per instance. */
export const UNKNOWN_CLIENT_BUDGET = 60;

/** Longer client ids are not traced. */
export const MAX_TRACED_CLIENT_ID = 512;

/** Clients with entries waiting on one instance; more are dropped until writes catch up. */
const MAX_QUEUED_CLIENTS = 10_000;

const identity = (entry: TraceEntry): string => `${entry.at} ${entry.event} ${entry.requestId ?? ''} ${entry.summary}`;

interface Queue {
  /**
   * the events waiting, newest last: an event becomes an entry (its explanation written out)
   * only when written or read, so that under load the events a full queue drops cost nothing
   * more; at most twice the entries kept, trimmed to those kept when it reaches that
   */
  events: PlatformAuthEvent[];
  /** the entries of the write under way */
  inFlight: readonly TraceEntry[];
  timer: NodeJS.Timeout | undefined;
  writing: Promise<void> | undefined;
  lastWrite: number;
}

export interface TraceRecorderOptions {
  readonly store: ClientTraceStore;
  /** entries kept per client */
  readonly entries: number;
  readonly logger: Logger;
  /** for tests */
  readonly now?: () => number;
}

export class TraceRecorder implements EventSink {
  readonly #store: ClientTraceStore;
  readonly #max: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #queues = new Map<string, Queue>();
  #budget = { windowStart: -Infinity, used: 0 };
  /**
   * Clients this instance traced with an entry of another kind (the client is known: its
   * document was fetched, it got tokens): their metadata-document failures are not held to the
   * budget, which junk URLs would otherwise spend before them.
   */
  readonly #known = new Set<string>();
  /** clients written since the list of traced clients was last written */
  #touched = new Map<string, TracedClient>();
  #indexTimer: NodeJS.Timeout | undefined;
  #indexWrite: Promise<void> | undefined;
  #failureLoggedAt = -Infinity;
  #closed = false;

  constructor(options: TraceRecorderOptions) {
    this.#store = options.store;
    this.#max = options.entries;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  record(event: PlatformAuthEvent): void {
    const { clientId } = event;
    if (this.#closed || clientId === undefined || clientId.length === 0 || clientId.length > MAX_TRACED_CLIENT_ID) return;
    if (showsKnownClient(clientId, event.name)) this.#noteKnown(clientId);
    else if (!this.#known.has(clientId) && !this.#spendBudget()) return;
    let queue = this.#queues.get(clientId);
    if (!queue) {
      if (this.#queues.size >= MAX_QUEUED_CLIENTS) return;
      queue = { events: [], inFlight: [], timer: undefined, writing: undefined, lastWrite: -Infinity };
      this.#queues.set(clientId, queue);
    }
    queue.events.push(event);
    if (queue.events.length >= 2 * this.#max) queue.events.splice(0, queue.events.length - this.#max);
    this.#schedule(clientId, queue);
  }

  #noteKnown(clientId: string): void {
    // cleared when full rather than kept in order: a client forgotten so is held to the budget
    // until its next entry of another kind
    if (this.#known.size >= MAX_KNOWN_CLIENTS && !this.#known.has(clientId)) this.#known.clear();
    this.#known.add(clientId);
  }

  /** The trace of `clientId`, newest first, with what this instance has not written yet. */
  async read(clientId: string): Promise<TraceEntry[]> {
    const stored = await this.#store.read(clientId);
    const queue = this.#queues.get(clientId);
    const local = queue ? [...queue.inFlight, ...this.#kept(queue.events)] : [];
    if (local.length === 0) return stored.slice(0, this.#max);
    // a write that ended while storage was read has its entries in both
    const seen = new Set(stored.map(identity));
    return [...local.filter((entry) => !seen.has(identity(entry))).reverse(), ...stored]
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, this.#max);
  }

  /** The clients with a trace, the most recently traced first, with what this instance has not written yet. */
  async tracedClients(): Promise<TracedClient[]> {
    const stored = await this.#store.tracedClients();
    const local = [...this.#touched.values()];
    for (const [clientId, queue] of this.#queues) {
      const newest = queue.events.at(-1);
      const last = newest ? toTraceEntry(newest) : queue.inFlight.at(-1);
      if (last) local.push({ clientId, at: last.at, outcome: last.outcome, summary: last.summary });
    }
    const latest = new Map<string, TracedClient>();
    for (const client of [...local, ...stored]) {
      const known = latest.get(client.clientId);
      if (!known || known.at < client.at) latest.set(client.clientId, client);
    }
    return [...latest.values()].sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0)).slice(0, TRACED_CLIENTS_KEPT);
  }

  /** Writes whatever is queued, and stops taking entries. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  /** Writes whatever is queued now (tests, shutdown). */
  async flush(): Promise<void> {
    for (;;) {
      const pending: [string, Queue][] = [];
      for (const [clientId, queue] of this.#queues) {
        if (queue.events.length > 0 || queue.writing) pending.push([clientId, queue]);
        else this.#drop(clientId, queue);
      }
      if (pending.length === 0) {
        clearTimeout(this.#indexTimer);
        this.#indexTimer = undefined;
        await this.#indexWrite;
        if (this.#touched.size > 0) await this.#writeIndex();
        return;
      }
      await Promise.all(pending.map(([clientId, queue]) => {
        if (queue.writing) return queue.writing;
        clearTimeout(queue.timer);
        queue.timer = undefined;
        return this.#write(clientId, queue);
      }));
    }
  }

  #spendBudget(): boolean {
    const now = this.#now();
    if (now - this.#budget.windowStart >= 60_000) this.#budget = { windowStart: now, used: 0 };
    if (this.#budget.used >= UNKNOWN_CLIENT_BUDGET) return false;
    this.#budget.used += 1;
    return true;
  }

  #schedule(clientId: string, queue: Queue): void {
    // a write under way, or the interval after one, picks these entries up when it ends
    if (queue.writing || queue.timer) return;
    const wait = queue.lastWrite + TRACE_WRITE_INTERVAL_MS - this.#now();
    if (wait <= 0) void this.#write(clientId, queue);
    else this.#arm(clientId, queue, wait);
  }

  /** After `wait`: writes what has been queued meanwhile, or forgets the idle queue. */
  #arm(clientId: string, queue: Queue, wait: number): void {
    queue.timer = setTimeout(() => {
      queue.timer = undefined;
      if (queue.events.length > 0) void this.#write(clientId, queue);
      else this.#drop(clientId, queue);
    }, wait);
    queue.timer.unref();
  }

  #drop(clientId: string, queue: Queue): void {
    clearTimeout(queue.timer);
    if (this.#queues.get(clientId) === queue) this.#queues.delete(clientId);
  }

  #write(clientId: string, queue: Queue): Promise<void> {
    const batch = this.#kept(queue.events);
    queue.events = [];
    queue.inFlight = batch;
    const last = batch.at(-1);
    const written = this.#store.append(clientId, batch).then(
      () => { if (last) this.#touch({ clientId, at: last.at, outcome: last.outcome, summary: last.summary }); },
      (error: unknown) => this.#failed(error),
    );
    queue.writing = written.then(() => {
      queue.writing = undefined;
      queue.inFlight = [];
      queue.lastWrite = this.#now();
      // the queue stays for one interval, so that a client's next event waits for it
      if (!this.#closed) this.#arm(clientId, queue, TRACE_WRITE_INTERVAL_MS);
      else if (queue.events.length === 0) this.#drop(clientId, queue);
    });
    return queue.writing;
  }

  /** The entries of the newest `max` of `events`. */
  #kept(events: readonly PlatformAuthEvent[]): TraceEntry[] {
    return events.slice(-this.#max).map(toTraceEntry);
  }

  /** Notes a written client for the list of traced clients, written at most every TRACE_INDEX_INTERVAL_MS. */
  #touch(client: TracedClient): void {
    this.#touched.set(client.clientId, client);
    if (this.#indexTimer || this.#indexWrite || this.#closed) return;
    this.#indexTimer = setTimeout(() => {
      this.#indexTimer = undefined;
      void this.#writeIndex();
    }, TRACE_INDEX_INTERVAL_MS);
    this.#indexTimer.unref();
  }

  #writeIndex(): Promise<void> {
    const clients = [...this.#touched.values()];
    this.#touched = new Map();
    this.#indexWrite = this.#store.touch(clients)
      .catch((error: unknown) => this.#failed(error))
      .finally(() => {
        this.#indexWrite = undefined;
        if (this.#touched.size > 0 && !this.#closed) this.#touch([...this.#touched.values()].at(-1)!);
      });
    return this.#indexWrite;
  }

  #failed(error: unknown): void {
    // an outage is logged where requests meet it; the entries are lost, as a trace may be
    if (error instanceof StorageUnavailableError) return;
    const now = this.#now();
    if (now - this.#failureLoggedAt < 60_000) return;
    this.#failureLoggedAt = now;
    this.#logger.warn(`platform-auth: a client trace could not be written (further failures are not logged for a minute): ${error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown'}`);
  }
}
