/**
 * The budget per key without HTTP (GCRA over the adapter): a burst of exactly `size`, the
 * refill, the wait it tells, keys and models apart, instances counting one key at once
 * without losing units, off, and a key that keeps changing under it.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import { admitWithin, RateBudget } from '../../lib/policies/rate-budget.ts';
import type { RateRecord } from '../../lib/policies/rate-budget.ts';

// four units per 20 seconds: one every 5 s
const BUDGET = { size: 4, windowSeconds: 20 };
const INTERVAL = 5_000;

describe('admitWithin', () => {
  it('serves a burst of exactly size, then tells the wait until one unit is back', () => {
    let record: RateRecord | undefined;
    const allowed: boolean[] = [];
    for (let i = 0; i < 6; i += 1) {
      const a = admitWithin(record, BUDGET, 0);
      allowed.push(a.allowed);
      if (a.allowed) record = a.next;
    }
    expect(allowed).toEqual([true, true, true, true, false, false]);
    expect(admitWithin(record, BUDGET, 0)).toEqual({ allowed: false, retryAfter: 5 });
    expect(admitWithin(record, BUDGET, INTERVAL - 1).allowed).toBe(false);
    expect(admitWithin(record, BUDGET, INTERVAL)).toEqual({ allowed: true, next: { tat: 5 * INTERVAL }, keepFor: 20 });
  });

  it('a state in the past is a full bucket, never credit beyond it', () => {
    const a = admitWithin({ tat: 0 }, BUDGET, 1_000_000);
    expect(a).toEqual({ allowed: true, next: { tat: 1_000_000 + INTERVAL }, keepFor: 5 });
  });
});

describe('RateBudget', () => {
  it('keeps each key apart, and each model', async () => {
    const adapter = createMemoryAdapter();
    const now = () => 1_000_000;
    const a = new RateBudget(adapter, 'BudgetA', { size: 1, windowSeconds: 60 }, now);
    const b = new RateBudget(adapter, 'BudgetB', { size: 1, windowSeconds: 60 }, now);
    expect(await a.attempt('k1')).toEqual({ allowed: true });
    expect(await a.attempt('k1')).toEqual({ allowed: false, retryAfter: 60 });
    expect(await a.attempt('k2')).toEqual({ allowed: true });
    expect(await b.attempt('k1')).toEqual({ allowed: true });
  });

  it('two instances counting one key at once lose no unit: exactly size served', async () => {
    const adapter = createMemoryAdapter();
    const now = () => 5_000_000;
    // two instances: two budgets (two in-process queues) over one store
    const one = new RateBudget(adapter, 'Shared', { size: 10, windowSeconds: 3600 }, now);
    const two = new RateBudget(adapter, 'Shared', { size: 10, windowSeconds: 3600 }, now);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).attempt('grant')));
    expect(answers.filter((a) => a.allowed)).toHaveLength(10);
  });

  it('false: every request served and nothing stored', async () => {
    const writes: string[] = [];
    const inner = createMemoryAdapter();
    const adapter: AdapterFactory = (model) => {
      writes.push(model);
      return inner(model);
    };
    const off = new RateBudget(adapter, 'Off', false);
    expect(off.enabled).toBe(false);
    for (let i = 0; i < 5; i += 1) expect(await off.attempt('k')).toEqual({ allowed: true });
    expect(writes).toEqual([]);
  });

  it('a key that keeps changing under it (every compare-and-set lost) is refused, the safe side', async () => {
    const inner = createMemoryAdapter();
    const adapter: AdapterFactory = (model) => {
      const store = inner(model);
      return { find: (id: string) => store.find(id), compareAndSet: async () => false } as unknown as Adapter;
    };
    const budget = new RateBudget(adapter, 'Hammered', { size: 100, windowSeconds: 60 });
    expect(await budget.attempt('k')).toEqual({ allowed: false, retryAfter: 1 });
  });
});
