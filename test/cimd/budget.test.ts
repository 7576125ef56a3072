/**
 * The fetch budget without HTTP: the window rule, caller before host, two instances on one
 * storage, and concurrent spending that cannot overshoot (with and without compare-and-set).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { FETCH_BUDGET_MODEL, FetchBudget, spend } from '../../lib/cimd/budget.ts';
import type { BudgetWindow } from '../../lib/cimd/budget.ts';

const SETTINGS = { perHost: 5, perCaller: 2, windowSeconds: 60 };

/**
 * The budget model's adapter as the budget uses it; `onWrite` sees every key written, and
 * without `compareAndSet` the budget takes its read-modify-write path.
 */
function budgetStore(inner: AdapterFactory, { compare = true, onWrite = (_id: string) => {} } = {}): AdapterFactory {
  return (model) => {
    const adapter = inner(model) as Adapter & CompareAndSet;
    if (model !== FETCH_BUDGET_MODEL) return adapter;
    return {
      ...Object.fromEntries((['find', 'destroy', 'consume', 'revokeByGrantId', 'findByUid', 'findByUserCode'] as const)
        .map((name) => [name, adapter[name].bind(adapter)])),
      upsert: (id: string, payload: AdapterPayload, expiresIn: number) => {
        onWrite(id);
        return adapter.upsert(id, payload, expiresIn);
      },
      ...(compare ? {
        compareAndSet: (id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) => {
          onWrite(id);
          return adapter.compareAndSet(id, expected, next, expiresIn);
        },
      } : {}),
    } as unknown as Adapter;
  };
}

describe('the window rule', () => {
  it('counts up to the limit, then refuses with the seconds left in the window', () => {
    let record: BudgetWindow | undefined;
    for (let i = 1; i <= 3; i += 1) {
      const outcome = spend(record, 3, 60, 1000 + i);
      if (!outcome.allowed) throw new Error('refused within the limit');
      record = outcome.next;
    }
    expect(record).toEqual({ count: 3, start: 1001 });
    expect(spend(record, 3, 60, 1001)).toEqual({ allowed: false, retryAfter: 60 });
    expect(spend(record, 3, 60, 31_001)).toEqual({ allowed: false, retryAfter: 30 });
    expect(spend(record, 3, 60, 60_900)).toEqual({ allowed: false, retryAfter: 1 });
  });

  it('begins a new window with the first fetch after the last one ended', () => {
    expect(spend({ count: 3, start: 1000 }, 3, 60, 61_000)).toEqual({ allowed: true, next: { count: 1, start: 61_000 } });
    expect(spend(undefined, 1, 60, 5)).toEqual({ allowed: true, next: { count: 1, start: 5 } });
  });
});

describe('FetchBudget', () => {
  it('refuses the caller over its budget, without spending the host\'s', async () => {
    let now = 0;
    const budget = new FetchBudget(createMemoryAdapter(), SETTINGS, () => now);
    expect(await budget.spend('tools.example', '192.0.2.1')).toEqual({ allowed: true });
    expect(await budget.spend('tools.example', '192.0.2.1')).toEqual({ allowed: true });
    expect(await budget.spend('tools.example', '192.0.2.1')).toEqual({ allowed: false, retryAfter: 60, exhausted: 'caller' });
    // the refused fetch cost the host nothing: three more callers get the host's last three
    for (const caller of ['192.0.2.2', '192.0.2.3', '192.0.2.4']) {
      expect(await budget.spend('tools.example', caller)).toEqual({ allowed: true });
    }
    expect(await budget.spend('tools.example', '192.0.2.5')).toEqual({ allowed: false, retryAfter: 60, exhausted: 'host' });
    // another host is another budget
    expect(await budget.spend('other.example', '192.0.2.5')).toEqual({ allowed: true });
    now = 60_000;
    expect(await budget.spend('tools.example', '192.0.2.1')).toEqual({ allowed: true });
  });

  it('charges every request whose address is unknown (\'\') to one caller, never to none', async () => {
    const budget = new FetchBudget(createMemoryAdapter(), { ...SETTINGS, perCaller: 2 });
    expect(await budget.spend('a.example', '')).toEqual({ allowed: true });
    expect(await budget.spend('b.example', '')).toEqual({ allowed: true });
    expect(await budget.spend('c.example', '')).toMatchObject({ allowed: false, exhausted: 'caller' });
  });

  it('is shared by two instances on one storage, which keeps hashed keys only', async () => {
    const keys: string[] = [];
    const spy = budgetStore(createMemoryAdapter(), { onWrite: (id) => keys.push(id) });
    const a = new FetchBudget(spy, SETTINGS);
    const b = new FetchBudget(spy, SETTINGS);
    expect(await a.spend('tools.example', '192.0.2.1')).toEqual({ allowed: true });
    expect(await b.spend('tools.example', '192.0.2.1')).toEqual({ allowed: true });
    expect(await a.spend('tools.example', '192.0.2.1')).toMatchObject({ allowed: false, exhausted: 'caller' });
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toMatch(/tools\.example|192\.0\.2\.1/);
  });

  describe.each([
    ['with compare-and-set', (f: AdapterFactory) => budgetStore(f)],
    ['without compare-and-set', (f: AdapterFactory) => budgetStore(f, { compare: false })],
  ])('concurrent fetches %s', (_name, wrap) => {
    it('never overshoot the budget within one instance', async () => {
      const budget = new FetchBudget(wrap(createMemoryAdapter()), { perHost: 1000, perCaller: 7, windowSeconds: 60 });
      const verdicts = await Promise.all(Array.from({ length: 40 }, () => budget.spend('tools.example', '192.0.2.9')));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(7);
    });
  });

  it('never overshoot across two instances on storage with compare-and-set', async () => {
    const adapter = createMemoryAdapter();
    const instances = [new FetchBudget(adapter, SETTINGS), new FetchBudget(adapter, SETTINGS)];
    const verdicts = await Promise.all(Array.from({ length: 30 }, (_, i) => instances[i % 2]!.spend(`h${i}.example`, '192.0.2.7')));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(SETTINGS.perCaller);
  });
});
