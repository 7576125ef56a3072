/**
 * Writing events into traces off the request's path: a client's entries are batched (one
 * write under way per client, then one per interval), reads include what is not written yet,
 * unknown clients named by metadata-document URLs have a budget, and close() writes the rest.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import type { PlatformAuthEvent } from '../../lib/events/types.ts';
import { MAX_TRACED_CLIENT_ID, TRACE_WRITE_INTERVAL_MS, TraceRecorder, UNKNOWN_CLIENT_BUDGET } from '../../lib/trace/recorder.ts';
import type { TraceEntry } from '../../lib/trace/entry.ts';
import { ClientTraceStore, TRACE_MODEL, UNKNOWN_CLIENT_TRACE_TTL_S } from '../../lib/trace/store.ts';

const silent = { info() {}, warn() {}, error() {} };

let adapter: ReturnType<typeof createMemoryAdapter>;
beforeEach(() => { adapter = createMemoryAdapter(); });
afterEach(() => adapter.close());

let at = 1_700_000_000_000;
const rotated = (clientId: string): PlatformAuthEvent => ({ name: 'refresh.rotated', at: (at += 1), clientId, requestId: `r${at}` });
const documentFailed = (clientId: string): PlatformAuthEvent => ({
  name: 'metadata_document.failed', at: (at += 1), clientId, reason: 'host_not_allowed', description: 'x',
});

/** A store that counts appends (and can be made to fail). */
function countingStore(entries = 50) {
  const store = new ClientTraceStore({ adapter, entries, ttlSeconds: 60 });
  const appends: number[] = [];
  let failWith: Error | undefined;
  const append = store.append.bind(store);
  store.append = async (clientId: string, batch: readonly TraceEntry[]) => {
    appends.push(batch.length);
    if (failWith) throw failWith;
    return append(clientId, batch);
  };
  return { store, appends, fail(error: Error | undefined) { failWith = error; } };
}

it('writes the first entry at once and batches the next ones of the same client', async () => {
  const { store, appends } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent });
  for (let i = 0; i < 20; i += 1) recorder.record(rotated('busy-app'));
  // what is queued is read at once on this instance
  expect(await recorder.read('busy-app')).toHaveLength(20);
  await recorder.flush();
  expect(appends[0]).toBe(1);
  expect(appends.reduce((a, b) => a + b, 0)).toBe(20);
  expect(appends.length).toBeLessThanOrEqual(3);
  expect((await store.read('busy-app')).map((e) => e.requestId)).toEqual((await recorder.read('busy-app')).map((e) => e.requestId));
});

it('explains only the events it keeps: under load a full queue drops the rest unexplained', async () => {
  const { store, appends } = countingStore(10);
  const recorder = new TraceRecorder({ store, entries: 10, logger: silent });
  recorder.record(rotated('busy-app'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  // while the interval after that write runs, 500 more events of the client arrive
  let explained = 0;
  for (let i = 0; i < 500; i += 1) {
    const event = rotated('busy-app');
    // toTraceEntry reads `at` (for the entry's time); record() does not
    recorder.record(Object.defineProperty({ ...event }, 'at', { get: () => { explained += 1; return event.at; } }) as PlatformAuthEvent);
  }
  expect(explained).toBe(0);
  const newest = (await recorder.read('busy-app')).map((e) => e.requestId);
  expect(newest).toEqual(Array.from({ length: 10 }, (_, i) => `r${at - i}`));
  await recorder.flush();
  expect(appends).toEqual([1, 10]);
  // the read and the write explained the 10 kept, each once
  expect(explained).toBe(20);
});

it('waits an interval after a write before the next one of the same client', async () => {
  const { store, appends } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent });
  recorder.record(rotated('app'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(appends).toEqual([1]);
  recorder.record(rotated('app'));
  recorder.record(rotated('app'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(appends).toEqual([1]);
  await new Promise((resolve) => setTimeout(resolve, TRACE_WRITE_INTERVAL_MS + 50));
  expect(appends).toEqual([1, 2]);
  expect(await store.read('app')).toHaveLength(3);
  await recorder.close();
});

it('keeps each client apart, newest first, capped', async () => {
  const { store } = countingStore(3);
  const recorder = new TraceRecorder({ store, entries: 3, logger: silent });
  const events = [rotated('a'), rotated('b'), rotated('a'), rotated('a'), rotated('a')];
  for (const e of events) recorder.record(e);
  await recorder.close();
  const a = await recorder.read('a');
  expect(a.map((e) => e.requestId)).toEqual([events[4]!.requestId, events[3]!.requestId, events[2]!.requestId]);
  expect((await recorder.read('b')).map((e) => e.requestId)).toEqual([events[1]!.requestId]);
  expect(a[0]).toEqual({
    at: new Date(events[4]!.at).toISOString(),
    event: 'refresh.rotated',
    outcome: 'ok',
    summary: 'The app refreshed its tokens; its refresh token was replaced by a new one.',
    requestId: events[4]!.requestId,
  });
});

it('traces events without a client, or with an absurdly long client id, nowhere', async () => {
  const { store, appends } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent });
  recorder.record({ name: 'storage.unavailable', at: 1 });
  recorder.record(rotated(`https://x.example/${'a'.repeat(MAX_TRACED_CLIENT_ID)}`));
  await recorder.close();
  expect(appends).toEqual([]);
});

it('keeps at most a budget a minute of entries for clients named by metadata-document URLs', async () => {
  let now = 0;
  const { store } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent, now: () => now });
  for (let i = 0; i < UNKNOWN_CLIENT_BUDGET + 10; i += 1) recorder.record(documentFailed(`https://evil.example/${i}`));
  // known clients are not held back by it
  recorder.record(rotated('known-app'));
  await recorder.flush();
  expect(await recorder.read(`https://evil.example/${UNKNOWN_CLIENT_BUDGET - 1}`)).toHaveLength(1);
  expect(await recorder.read(`https://evil.example/${UNKNOWN_CLIENT_BUDGET}`)).toHaveLength(0);
  expect(await recorder.read('known-app')).toHaveLength(1);
  now += 60_000;
  recorder.record(documentFailed('https://evil.example/next-minute'));
  await recorder.close();
  expect(await recorder.read('https://evil.example/next-minute')).toHaveLength(1);
});

it('holds a known client\'s metadata-document failures to no budget: junk URLs cannot hide them from its trace', async () => {
  const { store } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent, now: () => 0 });
  const known = 'https://tools.example/client.json';
  // known: its tokens were refreshed (a document fetched is not enough: anyone can publish one)
  recorder.record(rotated(known));
  for (let i = 0; i < UNKNOWN_CLIENT_BUDGET + 10; i += 1) recorder.record(documentFailed(`https://evil.example/${i}`));
  recorder.record(documentFailed(known));
  recorder.record(documentFailed('https://evil.example/one-more'));
  await recorder.close();
  expect((await recorder.read(known)).map((e) => e.event)).toEqual(['metadata_document.failed', 'refresh.rotated']);
  expect(await recorder.read('https://evil.example/one-more')).toHaveLength(0);
});

it('holds documents fetched (valid or not) for clients it does not know to the budget and the hour', async () => {
  let now = 0;
  const { store } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent, now: () => now });
  for (let i = 0; i < UNKNOWN_CLIENT_BUDGET + 10; i += 1) {
    recorder.record({ name: 'metadata_document.fetched', at: (at += 1), clientId: `https://publisher.example/doc-${i}.json` });
  }
  await recorder.flush();
  expect(await recorder.read(`https://publisher.example/doc-${UNKNOWN_CLIENT_BUDGET - 1}.json`)).toHaveLength(1);
  expect(await recorder.read(`https://publisher.example/doc-${UNKNOWN_CLIENT_BUDGET}.json`)).toHaveLength(0);
  now += 60_000;
  await recorder.close();
});

it('has the store keep a trace of unknown clients\' entries only an hour, a known client\'s trace.ttlSeconds', async () => {
  const WEEK = 7 * 86_400;
  const lifetimes: [string, number][] = [];
  /** the memory adapter, the lifetime of every trace write noted */
  const noting: AdapterFactory = (name) => {
    const inner = adapter(name) as Adapter & CompareAndSet;
    if (name !== TRACE_MODEL) return inner;
    return {
      find: (id: string) => inner.find(id),
      upsert: (id: string, payload: AdapterPayload, expiresIn: number) => { lifetimes.push([id, expiresIn]); return inner.upsert(id, payload, expiresIn); },
      compareAndSet: (id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) => {
        lifetimes.push([id, expiresIn!]);
        return inner.compareAndSet(id, expected, next, expiresIn);
      },
    } as unknown as Adapter;
  };
  const store = new ClientTraceStore({ adapter: noting, entries: 50, ttlSeconds: WEEK });
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent });
  recorder.record(documentFailed('https://evil.example/bogus'));
  recorder.record(rotated('known-app'));
  await recorder.close();
  expect(lifetimes.sort()).toEqual([['https://evil.example/bogus', UNKNOWN_CLIENT_TRACE_TTL_S], ['known-app', WEEK]]);
  expect(await recorder.read('https://evil.example/bogus')).toHaveLength(1);
});

it('drops entries it cannot write: silently during an outage, logged once a minute otherwise', async () => {
  const { store, fail } = countingStore();
  const warnings: string[] = [];
  const recorder = new TraceRecorder({ store, entries: 50, logger: { ...silent, warn: (m) => warnings.push(m) } });
  fail(new StorageUnavailableError('redis: ECONNREFUSED'));
  recorder.record(rotated('a'));
  await recorder.flush();
  expect(warnings).toEqual([]);
  fail(new Error('disk on fire'));
  recorder.record(rotated('b'));
  recorder.record(rotated('c'));
  await recorder.flush();
  expect(warnings).toEqual(['platform-auth: a client trace could not be written (further failures are not logged for a minute): Error: disk on fire']);
  fail(undefined);
  await recorder.close();
});

it('takes nothing after close()', async () => {
  const { store, appends } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent });
  recorder.record(rotated('a'));
  await recorder.close();
  recorder.record(rotated('a'));
  await recorder.flush();
  expect(appends).toEqual([1]);
});

it('lists the clients it traced, with what is not written yet, and writes the list on close', async () => {
  const { store } = countingStore();
  const recorder = new TraceRecorder({ store, entries: 50, logger: silent });
  recorder.record(rotated('first-app'));
  recorder.record(documentFailed('https://x.example/app.json'));
  expect((await recorder.tracedClients()).map((c) => c.clientId)).toEqual(['https://x.example/app.json', 'first-app']);
  expect(await store.tracedClients()).toEqual([]);
  await recorder.close();
  expect((await store.tracedClients()).map((c) => [c.clientId, c.outcome])).toEqual([['https://x.example/app.json', 'refused'], ['first-app', 'ok']]);
});
