import { jest } from '@jest/globals';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, CompareAndSet } from '../../adapters/types.ts';
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
