/**
 * The grant index without HTTP: a saved grant joins its account's chain (before the grant
 * itself is stored) at a cost that does not grow with the account's grants, the chain lives
 * as long as the grants it reaches, stays whole under racing writers through
 * compare-and-set, and the last use of a grant is recorded beside each access token.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { ACCOUNT_GRANTS_MODEL, GRANT_LINK_MODEL, GRANT_USE_MODEL, GrantIndex, withGrantIndex } from '../../lib/storage/grant-index.ts';

interface Write {
  model: string;
  op: 'upsert' | 'compareAndSet' | 'destroy';
  id: string;
  expiresIn: number | undefined;
}

/** A memory store whose writes are recorded; `withoutCas` hides compareAndSet, as a custom adapter may. */
function setup(options: { withoutCas?: boolean } = {}) {
  let now = 1_000_000;
  const inner = createMemoryAdapter();
  const writes: Write[] = [];
  const factory = ((model: string) => {
    const adapter = inner(model) as Adapter & { compareAndSet?: (...args: unknown[]) => Promise<boolean> };
    const spied: Record<string, unknown> = {
      find: adapter.find.bind(adapter),
      findByUid: adapter.findByUid.bind(adapter),
      findByUserCode: adapter.findByUserCode.bind(adapter),
      consume: adapter.consume.bind(adapter),
      revokeByGrantId: adapter.revokeByGrantId.bind(adapter),
      upsert(id: string, payload: AdapterPayload, expiresIn: number) {
        writes.push({ model, op: 'upsert', id, expiresIn });
        return adapter.upsert(id, payload, expiresIn);
      },
      destroy(id: string) {
        writes.push({ model, op: 'destroy', id, expiresIn: undefined });
        return adapter.destroy(id);
      },
    };
    if (!options.withoutCas) {
      spied.compareAndSet = (id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) => {
        writes.push({ model, op: 'compareAndSet', id, expiresIn });
        return adapter.compareAndSet!(id, expected, next, expiresIn);
      };
    }
    return spied as unknown as Adapter;
  }) as AdapterFactory;
  const clock = { now: () => now };
  const index = new GrantIndex(factory, { grantSeconds: 7200, now: clock.now });
  return {
    inner, factory, index, writes, clock,
    advance: (s: number) => { now += s; },
    at: () => now,
    listWrites: () => writes.filter((w) => w.model === ACCOUNT_GRANTS_MODEL),
  };
}

describe('GrantIndex', () => {
  it('chains the grants of an account, newest first; other accounts\' chains are their own', async () => {
    const { index, at } = setup();
    await index.add('acc-1', 'g1', at() + 100);
    await index.add('acc-1', 'g2', at() + 300);
    await index.add('acc-2', 'g3', at() + 300);
    expect(await index.grantsOf('acc-1')).toEqual(['g2', 'g1']);
    expect(await index.grantsOf('acc-2')).toEqual(['g3']);
    expect(await index.grantsOf('acc-3')).toEqual([]);
  });

  it('adds a grant once: saving it again reads its link and writes nothing', async () => {
    const { index, at, writes } = setup();
    await index.add('acc-1', 'g1', at() + 100);
    const before = writes.length;
    await index.add('acc-1', 'g1', at() + 100);
    expect(writes).toHaveLength(before);
    expect(await index.grantsOf('acc-1')).toEqual(['g1']);
  });

  it('costs a consent the same two small writes however many grants the account has (one app, many sign-ins)', async () => {
    const { index, inner, at, writes } = setup();
    const cost = async (grantId: string) => {
      const before = writes.length;
      await index.add('acc-1', grantId, at() + 1000);
      return writes.slice(before).map((w) => `${w.model}.${w.op}`);
    };
    const first = await cost('g0');
    for (let i = 1; i < 200; i += 1) await index.add('acc-1', `g${i}`, at() + 1000);
    const later = await cost('g200');
    expect(later).toEqual([`${GRANT_LINK_MODEL}.upsert`, `${ACCOUNT_GRANTS_MODEL}.compareAndSet`]);
    expect(later).toEqual(first);
    // nothing stored grows with the chain
    expect(JSON.stringify(await inner(ACCOUNT_GRANTS_MODEL).find('acc-1')).length).toBeLessThan(60);
    expect(await index.grantsOf('acc-1')).toHaveLength(201);
  });

  it('reads the grant\'s link and the account\'s head together: one round trip to storage, not two', async () => {
    const inner = createMemoryAdapter();
    const asked: string[] = [];
    const held: (() => void)[] = [];
    let holding = true;
    const factory = ((model: string) => {
      const adapter = inner(model) as Adapter & CompareAndSet;
      return {
        upsert: adapter.upsert.bind(adapter),
        destroy: adapter.destroy.bind(adapter),
        compareAndSet: adapter.compareAndSet.bind(adapter),
        find(id: string) {
          asked.push(`${model}:${id}`);
          // answered only when the test lets go: a read asked for after another's answer is not here yet
          if (!holding) return adapter.find(id);
          return new Promise<void>((resolve) => held.push(resolve)).then(() => adapter.find(id));
        },
      } as unknown as Adapter;
    }) as AdapterFactory;
    const index = new GrantIndex(factory, { grantSeconds: 7200, now: () => 1_000_000 });
    const adding = index.add('acc-1', 'g1', 1_000_100);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([`${GRANT_LINK_MODEL}:g1`, `${ACCOUNT_GRANTS_MODEL}:acc-1`]);
    holding = false;
    while (held.length) held.shift()!();
    await adding;
    expect(await index.grantsOf('acc-1')).toEqual(['g1']);
  });

  it('keeps every link as long as the longest-lived grant it leads to, and the head as long as the chain', async () => {
    const { index, at, writes } = setup();
    await index.add('acc-1', 'long', at() + 300);
    await index.add('acc-1', 'short', at() + 100);
    expect(writes.map((w) => [w.model, w.id, w.expiresIn])).toEqual([
      [GRANT_LINK_MODEL, 'long', 300], [ACCOUNT_GRANTS_MODEL, 'acc-1', 300],
      [GRANT_LINK_MODEL, 'short', 300], [ACCOUNT_GRANTS_MODEL, 'acc-1', 300],
    ]);
  });

  it('does not follow a link of another account', async () => {
    const { index, inner, at } = setup();
    await index.add('acc-1', 'g1', at() + 100);
    await index.add('acc-1', 'g2', at() + 100);
    await inner(GRANT_LINK_MODEL).upsert('g1', { accountId: 'acc-2', exp: at() + 100 }, 100);
    expect(await index.grantsOf('acc-1')).toEqual(['g2']);
  });

  it('on one instance, adds many grants of one account at once in turn: every one chained, no retry', async () => {
    const { index, at, writes } = setup();
    // as a host minting tokens in bulk does; racing each other, 200 failed ("moved 16 times")
    const ids = Array.from({ length: 200 }, (_, i) => `g${i}`);
    await Promise.all(ids.map((id) => index.add('acc-1', id, at() + 100)));
    expect((await index.grantsOf('acc-1')).sort()).toEqual([...ids].sort());
    const headWrites = writes.filter((w) => w.model === ACCOUNT_GRANTS_MODEL);
    expect(headWrites.map((w) => w.op)).toEqual(ids.map(() => 'compareAndSet'));
  });

  it('across instances, loses no grant when many are added for one account at the same time (compare-and-set retries)', async () => {
    const { factory, at, writes } = setup();
    const instances = Array.from({ length: 5 }, () => new GrantIndex(factory, { grantSeconds: 7200, now: at }));
    const ids = Array.from({ length: 25 }, (_, i) => `g${i}`);
    await Promise.all(ids.map((id, i) => instances[i % instances.length]!.add('acc-1', id, at() + 100)));
    expect((await instances[0]!.grantsOf('acc-1')).sort()).toEqual([...ids].sort());
    // racing writers had to retry: more head writes than grants, all through compare-and-set
    const headWrites = writes.filter((w) => w.model === ACCOUNT_GRANTS_MODEL);
    expect(headWrites.length).toBeGreaterThan(ids.length);
    expect(new Set(headWrites.map((w) => w.op))).toEqual(new Set(['compareAndSet']));
  });

  it('works on an adapter without compareAndSet (read, then write)', async () => {
    const { index, at, writes } = setup({ withoutCas: true });
    await index.add('acc-1', 'g1', at() + 100);
    await index.add('acc-1', 'g2', at() + 200);
    expect(await index.grantsOf('acc-1')).toEqual(['g2', 'g1']);
    expect(writes.filter((w) => w.model === ACCOUNT_GRANTS_MODEL).map((w) => [w.op, w.expiresIn])).toEqual([['upsert', 100], ['upsert', 200]]);
  });

  it('gives up when the head keeps moving under it: storage it cannot have, a 503 to retry (not a 500)', async () => {
    const inner = createMemoryAdapter();
    const busy = ((model: string) => Object.assign(inner(model), { compareAndSet: async () => false })) as AdapterFactory;
    const index = new GrantIndex(busy, { grantSeconds: 60 });
    const error = await index.add('acc-1', 'g1', Math.floor(Date.now() / 1000) + 60).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ statusCode: 503, error: 'temporarily_unavailable', error_detail: expect.stringMatching(/moved 16 times .*; retry$/) });
  });

  it('deletes nothing: a chain whose grants are all gone stays until it expires, and the next grant joins it', async () => {
    const { index, inner, at, writes } = setup();
    await index.add('acc-1', 'g1', at() + 100);
    // g1 is revoked (the index is not told) and the chain is walked: the head stays, since a
    // grant whose link is written but which is not stored yet looks just the same
    expect(await index.grantsOf('acc-1')).toEqual(['g1']);
    expect(await inner(ACCOUNT_GRANTS_MODEL).find('acc-1')).toEqual({ head: 'g1', exp: at() + 100 });
    await index.add('acc-1', 'g2', at() + 50);
    expect(await index.grantsOf('acc-1')).toEqual(['g2', 'g1']);
    // the dead link expires with the chain: the new head and link keep the chain's expiry
    expect(await inner(ACCOUNT_GRANTS_MODEL).find('acc-1')).toEqual({ head: 'g2', exp: at() + 100 });
    expect(writes.filter((w) => w.op === 'destroy')).toEqual([]);
  });

  it('records the last use of a grant in one write with the longest grant lifetime, and forgets it', async () => {
    const { index, writes } = setup();
    expect(await index.lastUse('g1')).toBeUndefined();
    await index.recordUse('g1', 1234);
    await index.recordUse('g1', 1240);
    expect(await index.lastUse('g1')).toBe(1240);
    expect(writes.filter((w) => w.model === GRANT_USE_MODEL)).toEqual([
      { model: GRANT_USE_MODEL, op: 'upsert', id: 'g1', expiresIn: 7200 },
      { model: GRANT_USE_MODEL, op: 'upsert', id: 'g1', expiresIn: 7200 },
    ]);
    await index.forgetUse('g1');
    expect(await index.lastUse('g1')).toBeUndefined();
  });

  it('writes a grant\'s use once per second: more tokens of the same second store the same value', async () => {
    const { index, writes } = setup();
    const uses = () => writes.filter((w) => w.model === GRANT_USE_MODEL).length;
    await Promise.all([index.recordUse('g1', 2000), index.recordUse('g1', 2000), index.recordUse('g1', 2000)]);
    expect(uses()).toBe(1);
    await index.recordUse('g2', 2000);
    await index.recordUse('g1', 2001);
    expect(uses()).toBe(3);
    expect(await index.lastUse('g1')).toBe(2001);
  });
});

describe('withGrantIndex', () => {
  it('chains a saved grant to its account before the grant is stored', async () => {
    const { factory, index, writes, at, clock } = setup();
    const decorated = withGrantIndex(factory, index, clock);
    await decorated('Grant').upsert('g1', { accountId: 'acc-1', clientId: 'app-a', exp: at() + 500, iat: at() }, 500);
    expect(writes.map((w) => w.model)).toEqual([GRANT_LINK_MODEL, ACCOUNT_GRANTS_MODEL, 'Grant']);
    expect(await index.grantsOf('acc-1')).toEqual(['g1']);
    expect(await factory('Grant').find('g1')).toMatchObject({ accountId: 'acc-1' });
  });

  it('stores no grant when it cannot be chained', async () => {
    const { factory, at, clock } = setup();
    const failing = ((model: string) => {
      const adapter = factory(model);
      if (model !== ACCOUNT_GRANTS_MODEL) return adapter;
      return { ...adapter, find: adapter.find, compareAndSet: async () => { throw new Error('storage down'); } } as unknown as Adapter;
    }) as AdapterFactory;
    const index = new GrantIndex(failing, { grantSeconds: 60, now: clock.now });
    const decorated = withGrantIndex(failing, index, clock);
    await expect(decorated('Grant').upsert('g1', { accountId: 'acc-1', clientId: 'app-a', exp: at() + 500 }, 500)).rejects.toThrow('storage down');
    expect(await factory('Grant').find('g1')).toBeUndefined();
  });

  it('records a use of the grant for every access token stored, at the token\'s iat', async () => {
    const { factory, index, at, clock } = setup();
    const decorated = withGrantIndex(factory, index, clock);
    await decorated('AccessToken').upsert('at1', { grantId: 'g1', iat: at() - 5, accountId: 'acc-1' }, 60);
    expect(await index.lastUse('g1')).toBe(at() - 5);
    expect(await factory('AccessToken').find('at1')).toMatchObject({ grantId: 'g1' });
    // no grant, no use: a token without a grant (client credentials) writes nothing else
    await decorated('AccessToken').upsert('at2', { iat: at() }, 60);
    expect(await factory('AccessToken').find('at2')).toBeDefined();
  });

  it('leaves every other model, and close(), to the inner factory', async () => {
    const inner = createMemoryAdapter();
    const index = new GrantIndex(inner, { grantSeconds: 60 });
    const decorated = withGrantIndex(inner, index);
    expect(decorated('RefreshToken')).not.toBe(decorated('Grant'));
    await decorated('RefreshToken').upsert('rt', { grantId: 'g', accountId: 'acc-1' }, 60);
    expect(await inner('RefreshToken').find('rt')).toEqual({ grantId: 'g', accountId: 'acc-1' });
    expect(await index.grantsOf('acc-1')).toEqual([]);
    expect(decorated.close).toBe(inner.close);
  });
});

describe('adopt: a grant no consent chained (0.1.0 kept no chains)', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('two instances adopting one grant at once chain it once, ahead of the account\'s other grants', async () => {
    const adapter = createMemoryAdapter();
    try {
      const a = new GrantIndex(adapter, { grantSeconds: 3600 });
      const b = new GrantIndex(adapter, { grantSeconds: 3600 });
      await a.add('acc', 'H', now() + 3600);
      await adapter('Grant').upsert('G', { accountId: 'acc', clientId: 'c', exp: now() + 3600, jti: 'G' }, 3600);
      // a token of G issued on each instance at about the same time: a self-link cut H off
      await Promise.all([a.adopt('G'), b.adopt('G')]);
      expect({ chain: await a.grantsOf('acc'), prev: (await adapter(GRANT_LINK_MODEL).find('G'))?.prev }).toEqual({ chain: ['G', 'H'], prev: 'H' });
      // remembered: no more storage calls for it on either
      expect([a.isChained('G'), b.isChained('G')]).toEqual([true, true]);
    } finally {
      await adapter.close();
    }
  });

  it('a failure is reported (not a storage outage) and tried again with the next token', async () => {
    const adapter = createMemoryAdapter();
    const warnings: string[] = [];
    let failing = true;
    const flaky = ((model: string) => {
      const inner = adapter(model);
      if (model !== GRANT_LINK_MODEL) return inner;
      const find = inner.find.bind(inner);
      return Object.assign(inner, { find: (id: string) => (failing ? Promise.reject(new Error('boom')) : find(id)) });
    }) as AdapterFactory;
    try {
      const index = new GrantIndex(flaky, { grantSeconds: 3600, logger: { warn: (m) => warnings.push(m) } });
      await adapter('Grant').upsert('G', { accountId: 'acc', exp: now() + 3600 }, 3600);
      await index.adopt('G');
      expect(warnings).toEqual([expect.stringMatching(/could not be chained.*boom$/)]);
      expect(index.isChained('G')).toBe(false);
      failing = false;
      await index.adopt('G');
      expect(await index.grantsOf('acc')).toEqual(['G']);
    } finally {
      await adapter.close();
    }
  });
});
