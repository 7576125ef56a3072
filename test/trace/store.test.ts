/**
 * The trace in storage: newest first, capped, with a lifetime; appends from several
 * instances at once lose nothing (compare-and-set); an adapter without compare-and-set falls
 * back to last-writer-wins, and one with a capped-list push uses it.
 */
import { jest } from '@jest/globals';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet, LatestEntry } from '../../adapters/types.ts';
import type { TraceEntry } from '../../lib/trace/entry.ts';
import { ClientTraceStore, showsKnownClient, TRACE_INDEX_MODEL, TRACE_MODEL, TRACED_CLIENTS_KEPT, UNKNOWN_CLIENT_TRACE_TTL_S } from '../../lib/trace/store.ts';

const entry = (n: number): TraceEntry => ({ at: new Date(1_700_000_000_000 + n).toISOString(), event: 'refresh.rotated', outcome: 'ok', summary: `#${n}` });
const summaries = (entries: TraceEntry[]) => entries.map((e) => e.summary);

let adapter: ReturnType<typeof createMemoryAdapter>;
beforeEach(() => { adapter = createMemoryAdapter(); });
afterEach(() => adapter.close());

it('keeps the last entries per client, newest first', async () => {
  const store = new ClientTraceStore({ adapter, entries: 3, ttlSeconds: 60 });
  await store.append('app-a', [entry(1), entry(2)]);
  await store.append('app-a', [entry(3), entry(4)]);
  await store.append('app-b', [entry(5)]);
  expect(summaries(await store.read('app-a'))).toEqual(['#4', '#3', '#2']);
  expect(summaries(await store.read('app-b'))).toEqual(['#5']);
  expect(await store.read('app-c')).toEqual([]);
});

it('writes the record with the trace lifetime, renewed by each append', async () => {
  const calls: number[] = [];
  const spying: AdapterFactory = (name) => {
    const inner = adapter(name) as Adapter & CompareAndSet;
    if (name !== TRACE_MODEL) return inner;
    return {
      find: (id: string) => inner.find(id),
      upsert: (id: string, payload: AdapterPayload, expiresIn: number) => inner.upsert(id, payload, expiresIn),
      compareAndSet: (id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) => {
        calls.push(expiresIn!);
        return inner.compareAndSet(id, expected, next, expiresIn);
      },
    } as unknown as Adapter;
  };
  const store = new ClientTraceStore({ adapter: spying, entries: 5, ttlSeconds: 123 });
  await store.append('app', [entry(1)]);
  await store.append('app', [entry(2)]);
  expect(calls).toEqual([123, 123]);
});

describe('the lifetime of a trace that holds only entries of clients nobody knows', () => {
  const WEEK = 7 * 86_400;
  /** a metadata document that could not be fetched: anyone can name any URL as client_id */
  const unknown = (n: number): TraceEntry => ({ ...entry(n), event: 'metadata_document.failed', outcome: 'refused' });
  /** the memory adapter's trace records, with the lifetime of every write noted */
  function notingLifetimes(lifetimes: number[], withCompareAndSet = true): AdapterFactory {
    return (name) => {
      const inner = adapter(name) as Adapter & CompareAndSet;
      if (name !== TRACE_MODEL) return inner;
      return {
        find: (id: string) => inner.find(id),
        upsert: (id: string, payload: AdapterPayload, expiresIn: number) => { lifetimes.push(expiresIn); return inner.upsert(id, payload, expiresIn); },
        ...(withCompareAndSet ? {
          compareAndSet: (id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) => {
            lifetimes.push(expiresIn!);
            return inner.compareAndSet(id, expected, next, expiresIn);
          },
        } : {}),
      } as unknown as Adapter;
    };
  }

  it('is an hour; a known client\'s entry gives the full lifetime, which unknown-only appends then keep', async () => {
    expect(UNKNOWN_CLIENT_TRACE_TTL_S).toBe(3600);
    const lifetimes: number[] = [];
    const store = new ClientTraceStore({ adapter: notingLifetimes(lifetimes), entries: 5, ttlSeconds: WEEK });
    await store.append('https://evil.example/a', [unknown(1), unknown(2)]);
    expect(lifetimes).toEqual([3600]);
    // the document was fetched later (or the client is known and its document failed to refresh)
    await store.append('https://evil.example/a', [entry(3)]);
    expect(lifetimes).toEqual([3600, WEEK]);
    // an unknown-only batch after that does not shorten the trace's lifetime
    await store.append('https://evil.example/a', [unknown(4)]);
    expect(lifetimes).toEqual([3600, WEEK, WEEK]);
    // a known client's trace gets the full lifetime from its first write
    await store.append('known-app', [unknown(5), entry(6)]);
    expect(lifetimes.at(-1)).toBe(WEEK);
  });

  it('is trace.ttlSeconds when that is shorter, and the same without compare-and-set', async () => {
    const lifetimes: number[] = [];
    const short = new ClientTraceStore({ adapter: notingLifetimes(lifetimes), entries: 5, ttlSeconds: 600 });
    await short.append('https://evil.example/b', [unknown(1)]);
    expect(lifetimes).toEqual([600]);
    lifetimes.length = 0;
    const plain = new ClientTraceStore({ adapter: notingLifetimes(lifetimes, false), entries: 5, ttlSeconds: WEEK });
    await plain.append('https://evil.example/c', [unknown(1)]);
    await plain.append('https://evil.example/c', [entry(2)]);
    await plain.append('https://evil.example/c', [unknown(3)]);
    expect(lifetimes).toEqual([3600, WEEK, WEEK]);
  });

  it('is what the memory adapter keeps: an unknown-only trace is gone after an hour, a known one is not', async () => {
    const start = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(start);
    try {
      const store = new ClientTraceStore({ adapter, entries: 5, ttlSeconds: WEEK });
      await store.append('https://evil.example/d', [unknown(1)]);
      await store.append('https://evil.example/e', [unknown(2)]);
      await store.append('https://evil.example/e', [entry(3)]);
      await store.append('https://evil.example/e', [unknown(4)]);
      now.mockReturnValue(start + 3599_000);
      expect(await store.read('https://evil.example/d')).toHaveLength(1);
      now.mockReturnValue(start + 3601_000);
      expect(await store.read('https://evil.example/d')).toEqual([]);
      expect(summaries(await store.read('https://evil.example/e'))).toEqual(['#4', '#3', '#2']);
      now.mockReturnValue(start + (WEEK - 1) * 1000);
      expect(await store.read('https://evil.example/e')).toHaveLength(3);
      now.mockReturnValue(start + (WEEK + 1) * 1000);
      expect(await store.read('https://evil.example/e')).toEqual([]);
    } finally {
      now.mockRestore();
    }
  });
});

it('loses nothing when several instances append to one trace at once', async () => {
  // each instance has one write of a client under way at a time (lib/trace/recorder.ts)
  const stores = [1, 2, 3].map(() => new ClientTraceStore({ adapter, entries: 100, ttlSeconds: 60 }));
  await Promise.all(stores.map(async (store, s) => {
    for (let i = 0; i < 4; i += 1) await store.append('app', [entry(s * 10 + i)]);
  }));
  const kept = summaries(await stores[0]!.read('app'));
  expect(kept).toHaveLength(12);
  expect(new Set(kept).size).toBe(12);
});

it('falls back to upsert on an adapter without compare-and-set', async () => {
  const plain: AdapterFactory = (name) => {
    const inner = adapter(name);
    return { upsert: inner.upsert.bind(inner), find: inner.find.bind(inner), destroy: inner.destroy.bind(inner) } as unknown as Adapter;
  };
  const store = new ClientTraceStore({ adapter: plain, entries: 2, ttlSeconds: 60 });
  await store.append('app', [entry(1)]);
  await store.append('app', [entry(2), entry(3)]);
  expect(summaries(await store.read('app'))).toEqual(['#3', '#2']);
});

/** The memory adapter's records of model `name`, every write noted in `writes`. */
function recordsNotingWrites(name: string, writes: string[]) {
  const inner = adapter(name) as Adapter & CompareAndSet;
  return {
    find: (id: string) => inner.find(id),
    upsert: (id: string, payload: AdapterPayload, expiresIn: number) => { writes.push(id); return inner.upsert(id, payload, expiresIn); },
    compareAndSet: (id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) => {
      writes.push(id);
      return inner.compareAndSet(id, expected, next, expiresIn);
    },
  };
}

describe('on an adapter with capped lists', () => {
  const lists = new Map<string, AdapterPayload[]>();
  const pushes: unknown[][] = [];
  const writes: string[] = [];
  /** the memory adapter's records, with a capped list beside them and every record write noted */
  const capped: AdapterFactory = (name) => {
    return {
      ...recordsNotingWrites(name, writes),
      async pushCapped(id: string, items: AdapterPayload[], max: number, expiresIn: number) {
        pushes.push([id, items.length, max, expiresIn]);
        lists.set(id, [...[...items].reverse(), ...(lists.get(id) ?? [])].slice(0, max));
      },
      async readCapped(id: string) { return lists.get(id) ?? []; },
    } as unknown as Adapter;
  };
  beforeEach(() => {
    lists.clear();
    pushes.length = 0;
    writes.length = 0;
  });

  it('asks an unknown-only batch for an hour and any other for the full lifetime (the list never shortens it)', async () => {
    const store = new ClientTraceStore({ adapter: capped, entries: 5, ttlSeconds: 86_400 });
    const unknown = (n: number): TraceEntry => ({ ...entry(n), event: 'metadata_document.failed', outcome: 'refused' });
    await store.append('https://evil.example/a', [unknown(1)]);
    await store.append('https://evil.example/a', [unknown(2), entry(3)]);
    expect(pushes).toEqual([['https://evil.example/a', 1, 5, 3600], ['https://evil.example/a', 2, 5, 86_400]]);
  });

  it('appends with one push of the new entries, and writes no record', async () => {
    const store = new ClientTraceStore({ adapter: capped, entries: 2, ttlSeconds: 60 });
    await store.append('app', [entry(1), entry(2), entry(3)]);
    expect(pushes).toEqual([['app', 3, 2, 60]]);
    expect(writes).toEqual([]);
    expect(summaries(await store.read('app'))).toEqual(['#3', '#2']);
  });

  it('still reads a trace written as one record before, merged with the list, newest first and capped', async () => {
    // what an instance of the previous version wrote: the whole trace as one record
    await adapter(TRACE_MODEL).upsert('app', { entries: [entry(5), entry(2), entry(1)] } as unknown as AdapterPayload, 60);
    const store = new ClientTraceStore({ adapter: capped, entries: 4, ttlSeconds: 60 });
    await store.append('app', [entry(3), entry(4)]);
    expect(summaries(await store.read('app'))).toEqual(['#5', '#4', '#3', '#2']);
    // the record is left to expire, never rewritten
    expect(writes).toEqual([]);
    await adapter(TRACE_MODEL).destroy('app');
    expect(summaries(await store.read('app'))).toEqual(['#4', '#3']);
  });
});

describe('on an adapter with an index of the latest per member', () => {
  const indexes = new Map<string, Map<string, { at: number; payload: AdapterPayload }>>();
  const puts: unknown[][] = [];
  const writes: string[] = [];
  /** the memory adapter's records, with a latest-per-member index beside them and every record write noted */
  const indexed: AdapterFactory = (name) => {
    return {
      ...recordsNotingWrites(name, writes),
      async putLatest(id: string, entries: LatestEntry[], max: number, expiresIn: number) {
        puts.push([id, entries.map((e) => [e.member, e.at]), max, expiresIn]);
        const index = indexes.get(id) ?? new Map<string, { at: number; payload: AdapterPayload }>();
        for (const e of entries) {
          const kept = index.get(e.member);
          if (!kept || kept.at < e.at) index.set(e.member, { at: e.at, payload: e.payload });
        }
        indexes.set(id, new Map([...index].sort((x, y) => y[1].at - x[1].at).slice(0, max)));
      },
      async readLatest(id: string) { return [...(indexes.get(id)?.values() ?? [])].map((v) => v.payload); },
    } as unknown as Adapter;
  };
  const at = (n: number) => new Date(1_700_000_000_000 + n).toISOString();
  beforeEach(() => {
    indexes.clear();
    puts.length = 0;
    writes.length = 0;
  });

  it('writes only the clients given, reads nothing, and writes no record', async () => {
    const store = new ClientTraceStore({ adapter: indexed, entries: 5, ttlSeconds: 60 });
    await store.touch([{ clientId: 'a', at: at(1), outcome: 'ok', summary: 'a1' }, { clientId: 'b', at: at(2), outcome: 'refused', summary: 'b2' }]);
    await store.touch([{ clientId: 'a', at: at(3), outcome: 'refused', summary: 'a3' }]);
    expect(puts).toEqual([
      ['recent', [['a', 1_700_000_000_001], ['b', 1_700_000_000_002]], TRACED_CLIENTS_KEPT, 60],
      ['recent', [['a', 1_700_000_000_003]], TRACED_CLIENTS_KEPT, 60],
    ]);
    expect(writes).toEqual([]);
    expect((await store.tracedClients()).map((c) => `${c.clientId} ${c.summary}`)).toEqual(['a a3', 'b b2']);
  });

  it('still lists the clients of a list written as one record before, merged, each once', async () => {
    // what an instance of the previous version wrote: the whole list as one record
    await adapter(TRACE_INDEX_MODEL).upsert('recent', {
      clients: [{ clientId: 'a', at: at(5), outcome: 'ok', summary: 'a5' }, { clientId: 'c', at: at(1), outcome: 'ok', summary: 'c1' }],
    } as unknown as AdapterPayload, 60);
    const store = new ClientTraceStore({ adapter: indexed, entries: 5, ttlSeconds: 60 });
    await store.touch([{ clientId: 'a', at: at(2), outcome: 'refused', summary: 'a2' }, { clientId: 'b', at: at(3), outcome: 'ok', summary: 'b3' }]);
    expect((await store.tracedClients()).map((c) => `${c.clientId} ${c.summary}`)).toEqual(['a a5', 'b b3', 'c c1']);
    expect(writes).toEqual([]);
  });
});

it('lists the traced clients, each once with its latest entry, most recent first', async () => {
  const stores = [1, 2].map(() => new ClientTraceStore({ adapter, entries: 5, ttlSeconds: 60 }));
  const at = (n: number) => new Date(1_700_000_000_000 + n).toISOString();
  await stores[0]!.touch([{ clientId: 'a', at: at(1), outcome: 'ok', summary: 'a1' }, { clientId: 'b', at: at(2), outcome: 'refused', summary: 'b2' }]);
  await Promise.all([
    stores[1]!.touch([{ clientId: 'a', at: at(3), outcome: 'refused', summary: 'a3' }]),
    stores[0]!.touch([{ clientId: 'c', at: at(4), outcome: 'ok', summary: 'c4' }]),
  ]);
  expect((await stores[1]!.tracedClients()).map((c) => `${c.clientId} ${c.summary}`)).toEqual(['c c4', 'a a3', 'b b2']);
});

describe('showsKnownClient: which entries make a client one this server knows', () => {
  const DOCUMENT = 'https://app.example/client.json';

  it('a metadata document\'s client: only once someone signed in with it or it held a code or refresh token', () => {
    for (const event of ['authorization.failed', 'token.failed', 'signin.failed', 'consent.denied', 'metadata_document.fetched', 'metadata_document.failed'] as const) {
      expect(showsKnownClient(DOCUMENT, event)).toBe(false);
    }
    for (const event of ['signin.succeeded', 'consent.granted', 'code.issued', 'code.redeemed', 'refresh.rotated'] as const) {
      expect(showsKnownClient(DOCUMENT, event)).toBe(true);
    }
  });

  it('a client stored here (static, member, registered): any entry but a metadata document\'s', () => {
    expect(showsKnownClient('demo-member-app', 'authorization.failed')).toBe(true);
    expect(showsKnownClient('demo-member-app', 'token.failed')).toBe(true);
    expect(showsKnownClient('demo-member-app', 'metadata_document.failed')).toBe(false);
  });
});
