import { jest } from '@jest/globals';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { REFRESH_USE_MODEL } from '../../adapters/types.ts';
import type { Adapter, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { describeAdapterContract } from './contract.ts';

describeAdapterContract('memory', async () => {
  const factory = createMemoryAdapter();
  return { factory, teardown: () => factory.close() };
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * V8 keeps a key removed from a Map in its bucket's chain until the table is rebuilt, so a
 * key removed and added again on every sign-in (a throttle counter) made each of its reads
 * walk one dead entry per earlier removal: in the login bench the server's CPU per sign-in
 * grew by a third within a minute. A deleted record's key therefore stays in the map (as a
 * tombstone) until the sweep. Counting the Map removals is what shows it; timing would not
 * belong in a test.
 */
describe('memory adapter: deleted keys', () => {
  const removalsOf = (key: string, run: () => Promise<void>) => async () => {
    const remove = jest.spyOn(Map.prototype, 'delete');
    try {
      await run();
      return remove.mock.calls.filter(([k]) => k === key).length;
    } finally {
      remove.mockRestore();
    }
  };

  it('a record deleted and written again, over and over, never leaves the map between sweeps', async () => {
    const factory = createMemoryAdapter();
    try {
      const counter = factory('SignInThrottle') as Adapter & CompareAndSet;
      const removals = await removalsOf('SignInThrottle:account:k', async () => {
        for (let i = 0; i < 500; i += 1) {
          await counter.upsert('account:k', { failures: i, last: 1 }, 60);
          const stored = await counter.find('account:k') ?? undefined;
          expect(stored).toEqual({ failures: i, last: 1 });
          // deleted both ways the throttle deletes: unconditionally, and by compare-and-set
          if (i % 2 === 0) await counter.destroy('account:k');
          else expect(await counter.compareAndSet('account:k', stored, undefined)).toBe(true);
          expect(await counter.find('account:k')).toBeUndefined();
        }
      })();
      expect(removals).toBe(0);
    } finally {
      await factory.close();
    }
  });

  it('the sweep removes deleted and expired records, and their indexes, for good', async () => {
    const factory = createMemoryAdapter({ sweepIntervalMs: 20 });
    try {
      const sessions = factory('Session');
      await sessions.upsert('deleted', { uid: 'u-deleted', accountId: 'a' }, 60);
      await sessions.destroy('deleted');
      await sessions.upsert('expiring', { uid: 'u-expiring', accountId: 'a' }, 0.01);
      await sessions.upsert('kept', { uid: 'u-kept', accountId: 'a' }, 60);
      const removed = jest.spyOn(Map.prototype, 'delete');
      try {
        await sleep(120);
        const keys = removed.mock.calls.map(([k]) => k);
        expect(keys).toEqual(expect.arrayContaining(['Session:deleted', 'Session:expiring', 'Session:u-expiring']));
        expect(keys).not.toContain('Session:kept');
      } finally {
        removed.mockRestore();
      }
      expect(await sessions.findByUid('u-expiring')).toBeUndefined();
      expect(await sessions.findByUid('u-deleted')).toBeUndefined();
      expect(await sessions.findByUid('u-kept')).toEqual({ uid: 'u-kept', accountId: 'a' });
      // a key written again after its tombstone was swept is an ordinary record
      await sessions.upsert('deleted', { uid: 'u-again', accountId: 'b' }, 60);
      expect(await sessions.findByUid('u-again')).toEqual({ uid: 'u-again', accountId: 'b' });
      expect(await sessions.find('deleted')).toEqual({ uid: 'u-again', accountId: 'b' });
    } finally {
      await factory.close();
    }
  });
});

/**
 * The refresh grace writes a use record per rotation (lib/policies/refresh-grace.ts). As
 * records of their own, with their JSON, in the map of every record, they cost a refresh 8–11%
 * through HTTP; the memory adapter keeps them apart, one small entry per id, answering
 * exactly as Redis answers for its keys (adapters/types.ts, REFRESH_USE_MODEL).
 */
describe('memory adapter: the refresh grace\'s use records', () => {
  const use = (grantId: string) => ({ grantId });
  let factory: ReturnType<typeof createMemoryAdapter>;

  beforeEach(() => {
    factory = createMemoryAdapter();
  });

  afterEach(() => factory.close());

  it('are kept apart from the records, never as a record with its JSON', async () => {
    const stringified = jest.spyOn(JSON, 'stringify');
    const added = jest.spyOn(Map.prototype, 'set');
    try {
      for (let rotation = 0; rotation < 50; rotation += 1) {
        // as the grace writes them: with the marked token where it can, else on their own
        if (rotation % 2 === 0) {
          await factory.putRecords([{ model: REFRESH_USE_MODEL, id: `t${String(rotation)}`, payload: use('g1'), expiresIn: 60 }]);
        } else {
          await factory(REFRESH_USE_MODEL).upsert(`t${String(rotation)}`, use('g1'), 60);
        }
      }
      const keys = added.mock.calls.map(([k]) => k);
      expect(keys.filter((k) => typeof k === 'string' && k.startsWith(`${REFRESH_USE_MODEL}:`))).toEqual([]);
      expect(stringified).not.toHaveBeenCalled();
    } finally {
      added.mockRestore();
      stringified.mockRestore();
    }
    for (let rotation = 0; rotation < 50; rotation += 1) expect(await factory(REFRESH_USE_MODEL).find(`t${String(rotation)}`)).toEqual(use('g1'));
  });

  it('answer for their own id only: no generation of a grant or chain stands for another', async () => {
    const uses = factory(REFRESH_USE_MODEL);
    // ids and the payload as the grace wrote them when it counted generations per chain: the
    // highest kept per chain answered for every generation below it, one fork's progress read
    // as another's successor being used (and kept as long as the latest use, where Redis let
    // each record expire)
    await uses.upsert('g1.c:3', { grantId: 'g1.c', generation: 3 }, 60);
    await uses.upsert('g1.d:3', use('g1.d'), 60);
    for (const line of ['g1.c', 'g1.d']) {
      for (const generation of [0, 1, 2, 4]) expect(await uses.find(`${line}:${String(generation)}`)).toBeUndefined();
    }
    expect(await uses.find('g1.c:3')).toEqual({ grantId: 'g1.c', generation: 3 });
    expect(await uses.find('g1.d:3')).toEqual(use('g1.d'));
  });

  it('expire with their own lifetime, and are forgotten by a deletion', async () => {
    const uses = factory(REFRESH_USE_MODEL);
    await uses.upsert('a', use('g1'), 1);
    await uses.upsert('b', use('g1'), 60);
    await uses.upsert('c', use('g1'), 60);
    await sleep(1_100);
    expect(await uses.find('a')).toBeUndefined();
    expect(await uses.find('b')).toEqual(use('g1'));
    // written again, one lives again
    await uses.upsert('a', use('g1'), 60);
    expect(await uses.find('a')).toEqual(use('g1'));
    // a rewrite takes its lifetime, shorter too, as a Redis SET does
    await uses.upsert('b', use('g1'), 1);
    await uses.destroy('c');
    expect(await uses.find('c')).toBeUndefined();
    await factory.putRecords([{ model: REFRESH_USE_MODEL, id: 'a', payload: use('g1'), expiresIn: 0 }]);
    expect(await uses.find('a')).toBeUndefined();
    await sleep(1_100);
    expect(await uses.find('b')).toBeUndefined();
  });

  it('a record of that model not in the grace\'s form is kept as any record, one record per id', async () => {
    const uses = factory(REFRESH_USE_MODEL);
    const odd = [
      ['x', { generation: 1 }],
      ['g1:1', { grantId: 'g1', generation: 1 }],
      ['y', { grantId: 7 } as unknown as AdapterPayload],
      ['z', {}],
    ] as const;
    for (const [id, payload] of odd) await uses.upsert(id, { ...payload }, 60);
    for (const [id, payload] of odd) expect(await uses.find(id)).toEqual(payload);
    // the last write under an id is what it holds, whichever form
    await uses.upsert('x', use('g2'), 60);
    expect(await uses.find('x')).toEqual(use('g2'));
    await uses.upsert('x', { grantId: 'g2', more: true }, 60);
    expect(await uses.find('x')).toEqual({ grantId: 'g2', more: true });
    await uses.destroy('x');
    expect(await uses.find('x')).toBeUndefined();
  });
});

test('a record written with a lifetime that is not a finite number is kept, as Redis keeps it (no TTL)', async () => {
  const factory = createMemoryAdapter({ sweepIntervalMs: 20 });
  try {
    const tokens = factory('AccessToken');
    await tokens.upsert('nan', { grantId: 'g' }, Number.NaN);
    await tokens.upsert('inf', { grantId: 'g' }, Number.POSITIVE_INFINITY);
    // past a few sweeps: a NaN expiry was readable until the first sweep, then gone
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await tokens.find('nan')).toEqual({ grantId: 'g' });
    expect(await tokens.find('inf')).toEqual({ grantId: 'g' });
  } finally {
    await factory.close();
  }
});
