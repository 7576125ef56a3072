/**
 * The refresh grace rule on the storage of the RefreshToken model, without HTTP: a rotated
 * token is usable again only by a retry or a race within the grace and before its successor
 * is used; otherwise oidc-provider sees it consumed (and revokes the grant).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload, ClosableAdapterFactory, PutRecords, RecordWrite } from '../../adapters/types.ts';
import { REFRESH_USE_MODEL, USE_RECORD_MARGIN_S, withRefreshGrace } from '../../lib/policies/refresh-grace.ts';
import { DelegatingAdapter } from '../../lib/storage/model-decorator.ts';

const GRACE = 30;

/** The request being served, as oidc-provider's `Provider.ctx` names it. */
const requests = new AsyncLocalStorage<object>();
const request = () => requests.getStore();
const inRequest = <T>(run: () => Promise<T>) => requests.run({}, run);

/**
 * Storage as a Redis is to the rule: every write a round trip, so a rotation is held back for
 * its successor's write. The memory adapter without its `writesSynchronously` mark.
 */
function withRoundTrips(memory: ReturnType<typeof createMemoryAdapter>): ClosableAdapterFactory & PutRecords {
  return Object.assign((model: string) => memory(model), { putRecords: memory.putRecords.bind(memory), close: memory.close.bind(memory) });
}

/** The two kinds of storage the rule meets; its outcome is the same on both. */
const STORAGES = [
  ['storage with round trips (Redis)', () => withRoundTrips(createMemoryAdapter())],
  ['storage that writes at once (memory)', () => createMemoryAdapter()],
] as const;

function setupOn(grace: number, storage: () => ClosableAdapterFactory & PutRecords) {
  let now = 1_000_000;
  const inner = storage();
  const factory = withRefreshGrace(inner as AdapterFactory, { graceSeconds: grace, now: () => now, request });
  return {
    tokens: factory('RefreshToken'),
    raw: inner('RefreshToken'),
    uses: inner(REFRESH_USE_MODEL),
    factory,
    inner,
    advance(seconds: number) {
      now += seconds;
    },
    at: () => now,
  };
}

const record = (grantId: string, rotations?: number) => ({
  grantId, accountId: 'acc', clientId: 'c', exp: 2_000_000_000, ...(rotations === undefined ? {} : { rotations }),
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The name of the token `id`, which its use record is keyed by: never the token (its SHA-256). */
const nameOf = (id: string) => createHash('sha256').update(id).digest('base64url').slice(0, 22);
/** The successor of generation `rotations` of the token `predecessor`, as stored. */
const successor = (grantId: string, rotations: number, predecessor: string) => ({ ...record(grantId, rotations), parent: nameOf(predecessor) });
/** The record that a successor of `id` was used. */
const useOf = (grantId: string) => ({ grantId });

/** The rule on storage with round trips, where a rotation is held for its successor. */
const setup = (grace = GRACE) => setupOn(grace, STORAGES[0][1]);

/** What oidc-provider's refresh grant does, in one request: read the token, consume it, store its successor. */
function rotate(tokens: Adapter, id: string, successorId: string): Promise<void> {
  return inRequest(async () => {
    const found = await tokens.find(id);
    await tokens.consume(id);
    await tokens.upsert(successorId, record(found!.grantId as string, ((found!.rotations as number | undefined) ?? 0) + 1), 3600);
  });
}

describe('withRefreshGrace on storage with round trips: a rotation waits for its successor', () => {
  it('with the grace 0, a token rotated under a grace reads as consumed; every other read and model is unchanged', async () => {
    const inner = createMemoryAdapter();
    const strict = withRefreshGrace(inner, { graceSeconds: 0 });
    await inner('RefreshToken').upsert('rotated', { ...record('g'), rotatedAt: 1_000 }, 3600);
    await inner('RefreshToken').upsert('fresh', record('g'), 3600);
    expect(await strict('RefreshToken').find('rotated')).toMatchObject({ rotatedAt: 1_000, consumed: 1_000 });
    expect(await strict('RefreshToken').find('fresh')).toEqual(record('g'));
    expect(await strict('RefreshToken').find('missing')).toBeUndefined();
    // the stored record is left as it is: an instance with the grace on still reads its mark
    expect((await inner('RefreshToken').find('rotated'))?.consumed).toBeUndefined();
    // the rule is the RefreshToken model's only
    await strict('Grant').upsert('marked', { rotatedAt: 1_000 }, 3600);
    expect((await strict('Grant').find('marked'))?.consumed).toBeUndefined();
  });

  it('with the grace 0, a consumed token a request found is kept by that request\'s destroy, for its grant\'s revocation', async () => {
    const inner = createMemoryAdapter();
    const tokens = withRefreshGrace(inner, { graceSeconds: 0, request })('RefreshToken');
    await inner('RefreshToken').upsert('consumed', { ...record('g'), consumed: 1_000 }, 3600);
    await inner('RefreshToken').upsert('rotated', { ...record('g'), rotatedAt: 1_000 }, 3600);
    await inner('RefreshToken').upsert('fresh', record('g'), 3600);
    await inner('RefreshToken').upsert('other', record('g'), 3600);
    // oidc-provider's answer to reuse: the token destroyed and its grant revoked, at once
    for (const id of ['consumed', 'rotated']) {
      await inRequest(async () => {
        expect((await tokens.find(id))?.consumed).toBe(1_000);
        await tokens.destroy(id);
      });
      expect(await inner('RefreshToken').find(id)).toBeDefined();
    }
    // any other destroy reaches the storage: an unused token found, another token, outside a request
    await inRequest(async () => {
      await tokens.find('fresh');
      await tokens.destroy('fresh');
      await tokens.find('consumed');
      await tokens.destroy('other');
    });
    expect(await inner('RefreshToken').find('fresh')).toBeUndefined();
    expect(await inner('RefreshToken').find('other')).toBeUndefined();
    await tokens.destroy('consumed');
    expect(await inner('RefreshToken').find('consumed')).toBeUndefined();
    // and the grant's revocation removes a kept one
    await tokens.revokeByGrantId('g');
    expect(await inner('RefreshToken').find('rotated')).toBeUndefined();
  });

  it('leaves every other model to the inner factory', async () => {
    const { factory, inner } = setup();
    await factory('AuthorizationCode').upsert('code', { grantId: 'g' }, 60);
    await factory('AuthorizationCode').consume('code');
    expect((await inner('AuthorizationCode').find('code'))?.consumed).toEqual(expect.any(Number));
  });

  it('a rotation is written with its successor, in the same write, not on consume', async () => {
    let now = 1_000_000;
    const inner = createMemoryAdapter();
    const batches: RecordWrite[][] = [];
    const upserts: string[] = [];
    const counting = Object.assign((model: string) => {
      const adapter = inner(model);
      if (model !== 'RefreshToken') return adapter;
      return new (class extends DelegatingAdapter {
        override upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
          upserts.push(`${id}@${batches.length}`);
          return super.upsert(id, payload, expiresIn);
        }
      })(adapter);
    }, {
      putRecords: (writes: readonly RecordWrite[]) => {
        batches.push([...writes]);
        return inner.putRecords(writes);
      },
    });
    const tokens = withRefreshGrace(counting as AdapterFactory, { graceSeconds: GRACE, now: () => now, request })('RefreshToken');
    // a successor itself (of rt-1): its rotation records that a successor of rt-1 was used
    await tokens.upsert('rt0', { ...record('g1'), parent: nameOf('rt-1') }, 3600);
    await inRequest(async () => {
      await tokens.find('rt0');
      await tokens.consume('rt0');
      // nothing written yet: the token is still unmarked, its predecessor's successor unused
      expect(batches).toEqual([]);
      expect(await inner('RefreshToken').find('rt0')).not.toHaveProperty('rotatedAt');
      expect(await inner(REFRESH_USE_MODEL).find(nameOf('rt-1'))).toBeUndefined();
      now += 1;
      // a token of another grant or generation stored meanwhile carries nothing
      await tokens.upsert('other', record('g1', 2), 3600);
      expect(batches).toEqual([]);
      await tokens.upsert('rt1', record('g1', 1), 3600);
    });
    // asked for in one synchronous step with the successor (one script on a single Redis)
    expect(upserts).toEqual(['rt0@0', 'other@0', 'rt1@0']);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((w) => `${w.model}:${w.id}`)).toEqual(['RefreshToken:rt0', `${REFRESH_USE_MODEL}:${nameOf('rt-1')}`]);
    // marked with the time of the consume
    expect(batches[0]![0]!.payload).toMatchObject({ rotatedAt: 1_000_000 });
    // a successor stored in another request carries nothing either
    await inRequest(() => tokens.upsert('rt1b', record('g1', 1), 3600));
    expect(batches).toHaveLength(1);
  });

  it('a use record is kept as long as a retry within the grace can ask for it, not for the token\'s lifetime', async () => {
    const inner = createMemoryAdapter();
    const written: RecordWrite[] = [];
    const recording = Object.assign((model: string) => inner(model), {
      putRecords: (writes: readonly RecordWrite[]) => {
        written.push(...writes);
        return inner.putRecords(writes);
      },
    });
    const now = 1_000_000;
    const tokens = withRefreshGrace(recording as AdapterFactory, { graceSeconds: GRACE, now: () => now, request })('RefreshToken');
    // a token with two weeks to live, and one with less than the grace and the margin (successors both)
    await tokens.upsert('long', { ...record('g1'), exp: now + 14 * 24 * 3600, parent: nameOf('long0') }, 3600);
    await tokens.upsert('short', { ...record('g2'), exp: now + 20, parent: nameOf('short0') }, 20);
    await rotate(tokens, 'long', 'long1');
    await rotate(tokens, 'short', 'short1');
    const lifetimes = Object.fromEntries(written.map((w) => [`${w.model}:${w.id}`, w.expiresIn]));
    expect(lifetimes).toEqual({
      'RefreshToken:long': 14 * 24 * 3600,
      [`${REFRESH_USE_MODEL}:${nameOf('long0')}`]: GRACE + USE_RECORD_MARGIN_S,
      'RefreshToken:short': 20,
      [`${REFRESH_USE_MODEL}:${nameOf('short0')}`]: 20,
    });
  });

  it('a rotation whose successor is not stored in its turn is written on its own at the end of the turn', async () => {
    const { tokens, raw, uses, at } = setup();
    await tokens.upsert('rt0', { ...record('g1'), parent: nameOf('rt-1') }, 3600);
    await inRequest(async () => {
      await tokens.find('rt0');
      await tokens.consume('rt0');
    });
    expect(await raw.find('rt0')).not.toHaveProperty('rotatedAt');
    await turn();
    expect(await raw.find('rt0')).toMatchObject({ rotatedAt: at() });
    expect(await uses.find(nameOf('rt-1'))).toEqual(useOf('g1'));
    // and a successor stored later is written as itself only
    await tokens.upsert('rt1', record('g1', 1), 3600);
    expect(await raw.find('rt1')).toEqual(record('g1', 1));
  });

  it('a successor stored after a wait in its request still carries its predecessor\'s name', async () => {
    const { tokens, raw } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await inRequest(async () => {
      await tokens.find('rt0');
      await tokens.consume('rt0');
      // a wait for I/O (the account's claims) between the consume and the successor
      await turn();
      await tokens.upsert('rt1', record('g1', 1), 3600);
    });
    expect(await raw.find('rt1')).toEqual(successor('g1', 1, 'rt0'));
    // and its successor too, named after its own predecessor
    await rotate(tokens, 'rt1', 'rt2');
    expect(await raw.find('rt2')).toEqual(successor('g1', 2, 'rt1'));
  });

  it('a rotation written on its own at the end of its turn: its request\'s access token waits for it and fails with it', async () => {
    const inner = createMemoryAdapter();
    const failing = Object.assign((model: string) => inner(model), {
      putRecords: () => Promise.reject(new StorageUnavailableError('injected: the rotation was not written')),
    });
    const factory = withRefreshGrace(failing as AdapterFactory, { graceSeconds: GRACE, request });
    const tokens = factory('RefreshToken');
    await tokens.upsert('rt0', record('g1'), 3600);
    await inRequest(async () => {
      await tokens.find('rt0');
      await tokens.consume('rt0');
      // a wait for I/O before the successor's save: the rotation goes out alone, and fails
      await turn();
      await tokens.upsert('rt1', record('g1', 1), 3600);
      // so the answer cannot go out with rt1 while rt0 stays unmarked
      await expect(factory('AccessToken').upsert('at1', { grantId: 'g1' }, 60)).rejects.toThrow(StorageUnavailableError);
    });
    expect(await inner('RefreshToken').find('rt0')).not.toHaveProperty('rotatedAt');
  });
});

describe('withRefreshGrace where writes take effect when asked for', () => {
  const atOnce = STORAGES[1][1];

  it('consume writes the rotation itself: nothing is held for the successor', async () => {
    const { tokens, raw, uses, at } = setupOn(GRACE, atOnce);
    await tokens.upsert('rt0', { ...record('g1'), parent: nameOf('rt-1') }, 3600);
    await inRequest(async () => {
      await tokens.find('rt0');
      await tokens.consume('rt0');
      // before the successor exists, as a held rotation is written after an error
      expect(await raw.find('rt0')).toMatchObject({ rotatedAt: at() });
      expect(await uses.find(nameOf('rt-1'))).toEqual(useOf('g1'));
    });
  });

  it('a rotation that cannot be written fails its consume, before any successor is stored', async () => {
    const inner = createMemoryAdapter();
    const failing = Object.assign((model: string) => inner(model), {
      writesSynchronously: true as const,
      putRecords: () => Promise.reject(new StorageUnavailableError('injected: the rotation was not written')),
    });
    const tokens = withRefreshGrace(failing as AdapterFactory, { graceSeconds: GRACE, request })('RefreshToken');
    await tokens.upsert('rt0', record('g1'), 3600);
    await inRequest(async () => {
      await tokens.find('rt0');
      await expect(tokens.consume('rt0')).rejects.toThrow(StorageUnavailableError);
    });
    expect(await inner('RefreshToken').find('rt0')).not.toHaveProperty('rotatedAt');
  });

  it('access tokens are the storage\'s own: no successor\'s write to wait for', () => {
    const { factory } = setupOn(GRACE, atOnce);
    expect(factory('AccessToken')).not.toBeInstanceOf(DelegatingAdapter);
    // where writes take round trips, the access token's save is wrapped to wait
    expect(setup().factory('AccessToken')).toBeInstanceOf(DelegatingAdapter);
  });
});

describe.each(STORAGES)('withRefreshGrace on %s', (_kind, storage) => {
  const setup = (grace = GRACE) => setupOn(grace, storage);

  it('a fresh token is found as stored', async () => {
    const { tokens } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    expect(await tokens.find('rt0')).toEqual(record('g1'));
  });

  it('rotating marks the token and records that a successor of its predecessor was used, instead of consuming it', async () => {
    const { tokens, raw, uses, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await rotate(tokens, 'rt0', 'rt1');
    const stored = await raw.find('rt0');
    expect(stored).toMatchObject({ rotatedAt: at() });
    expect(stored?.consumed).toBeUndefined();
    // the first token of a chain has no predecessor: no use is recorded for it
    expect(await uses.find(nameOf('rt0'))).toBeUndefined();
    expect(await raw.find('rt1')).toEqual(successor('g1', 1, 'rt0'));
    await rotate(tokens, 'rt1', 'rt2');
    expect(await uses.find(nameOf('rt0'))).toEqual(useOf('g1'));
    expect(await uses.find(nameOf('rt1'))).toBeUndefined();
  });

  it('consume uses what its own request read, not a racing request\'s later read', async () => {
    const { tokens, raw, advance, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await rotate(tokens, 'rt0', 'rt1');
    const first = at();
    advance(5);
    let finishSlowRead!: () => void;
    const slowRead = new Promise<void>((resolve) => {
      finishSlowRead = resolve;
    });
    await inRequest(async () => {
      await tokens.find('rt0');
      // another request's read of rt0 lands now (it found it still unmarked before)
      void inRequest(async () => {
        await raw.upsert('rt0', record('g1'), 3600);
        await tokens.find('rt0');
        finishSlowRead();
      });
      await slowRead;
      await raw.upsert('rt0', { ...record('g1'), rotatedAt: first }, 3600);
      await tokens.consume('rt0');
      await tokens.upsert('rt1b', record('g1', 1), 3600);
    });
    // the first rotation time stands: the grace was not stretched
    expect((await raw.find('rt0'))?.rotatedAt).toBe(first);
  });

  it('outside a request, a rotation is written by consume itself', async () => {
    const { tokens, raw, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.find('rt0');
    await tokens.consume('rt0');
    expect(await raw.find('rt0')).toMatchObject({ rotatedAt: at() });
  });

  it('two tokens of one grant and generation rotated at once: each is marked (reuse detection keeps both)', async () => {
    const { tokens, raw, advance } = setup();
    await tokens.upsert('x1', record('g1', 1), 3600);
    await tokens.upsert('y1', record('g1', 1), 3600);
    await Promise.all([rotate(tokens, 'x1', 'x2'), rotate(tokens, 'y1', 'y2')]);
    expect(await raw.find('x1')).toMatchObject({ rotatedAt: expect.any(Number) });
    expect(await raw.find('y1')).toMatchObject({ rotatedAt: expect.any(Number) });
    advance(GRACE + 1);
    expect((await tokens.find('y1'))?.consumed).toEqual(expect.any(Number));
  });

  it('racing rotations of one token in one process: every successor carries the rotation', async () => {
    const { tokens, raw, inner } = setup();
    const writes: string[][] = [];
    const put = inner.putRecords.bind(inner);
    inner.putRecords = (batch) => {
      writes.push(batch.map((w) => w.id));
      return put(batch);
    };
    const factory = withRefreshGrace(inner as AdapterFactory, { graceSeconds: GRACE, now: () => 1_000_000, request });
    const racing = factory('RefreshToken');
    await tokens.upsert('rt0', record('g1'), 3600);
    await Promise.all([rotate(racing, 'rt0', 'rt1a'), rotate(racing, 'rt0', 'rt1b')]);
    // were the first successor's write lost, the second would still mark the token
    expect(writes).toEqual([['rt0'], ['rt0']]);
    expect(await raw.find('rt0')).toMatchObject({ rotatedAt: 1_000_000 });
    expect(await raw.find('rt1a')).toEqual(successor('g1', 1, 'rt0'));
    expect(await raw.find('rt1b')).toEqual(successor('g1', 1, 'rt0'));
  });

  it('within the grace, before the successor is used, a rotated token is found usable (a retry or a race)', async () => {
    const { tokens, advance } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await rotate(tokens, 'rt0', 'rt1');
    advance(GRACE);
    const found = await tokens.find('rt0');
    expect(found?.consumed).toBeUndefined();
    expect(found).not.toHaveProperty('rotatedAt');
  });

  it('a second rotation keeps the first rotation time, so the grace cannot be stretched', async () => {
    const { tokens, raw, advance, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await rotate(tokens, 'rt0', 'rt1');
    const first = at();
    advance(10);
    await rotate(tokens, 'rt0', 'rt1b');
    expect((await raw.find('rt0'))?.rotatedAt).toBe(first);
    advance(GRACE - 9);
    expect((await tokens.find('rt0'))?.consumed).toBe(first);
  });

  it('after the grace, a rotated token is found consumed: reuse', async () => {
    const { tokens, advance, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await rotate(tokens, 'rt0', 'rt1');
    const rotatedAt = at();
    advance(GRACE + 1);
    expect((await tokens.find('rt0'))?.consumed).toBe(rotatedAt);
  });

  it('once its successor is used, the rotated token is consumed even within the grace', async () => {
    const { tokens } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await rotate(tokens, 'rt0', 'rt1');
    expect((await tokens.find('rt0'))?.consumed).toBeUndefined();
    await rotate(tokens, 'rt1', 'rt2');
    expect((await tokens.find('rt0'))?.consumed).toEqual(expect.any(Number));
    // the successor itself is still within its own grace
    expect((await tokens.find('rt1'))?.consumed).toBeUndefined();
  });

  it('a token served again within the grace forks its chain: each fork\'s retry is judged by its own successor only', async () => {
    const { tokens } = setup();
    await tokens.upsert('t0', record('g1'), 3600);
    // two racers of t0: both are served, both successors of generation 1
    await rotate(tokens, 't0', 't1a');
    await rotate(tokens, 't0', 't1b');
    // fork A goes on; fork B uses its own token once, its answer lost
    await rotate(tokens, 't1a', 't2a');
    await rotate(tokens, 't2a', 't3a');
    await rotate(tokens, 't1b', 't2b');
    // B's retry within the grace: t2b was never used, and A's generation 2 is not its successor
    expect((await tokens.find('t1b'))?.consumed).toBeUndefined();
    // a token A rotated and went on from is reuse, whoever presents it (B holds no such token)
    expect((await tokens.find('t1a'))?.consumed).toEqual(expect.any(Number));
    expect((await tokens.find('t0'))?.consumed).toEqual(expect.any(Number));
    expect((await tokens.find('t2a'))?.consumed).toBeUndefined();
  });

  it('a token served twice is reuse once either of its successors was used', async () => {
    const { tokens } = setup();
    await tokens.upsert('t0', record('g1'), 3600);
    await rotate(tokens, 't0', 't1a');
    await rotate(tokens, 't0', 't1b');
    expect((await tokens.find('t0'))?.consumed).toBeUndefined();
    // the second holder (a thief within the window) uses its own successor
    await rotate(tokens, 't1b', 't2b');
    expect((await tokens.find('t0'))?.consumed).toEqual(expect.any(Number));
  });

  it('another grant\'s use is not this grant\'s', async () => {
    const { tokens } = setup();
    await tokens.upsert('a0', record('gA'), 3600);
    await rotate(tokens, 'a0', 'a1');
    await tokens.upsert('b1', record('gB', 1), 3600);
    await rotate(tokens, 'b1', 'b2');
    expect((await tokens.find('a0'))?.consumed).toBeUndefined();
  });

  it('consuming a token that is gone is a no-op', async () => {
    const { tokens, raw, uses } = setup();
    await tokens.consume('missing');
    expect(await raw.find('missing')).toBeUndefined();
    expect(await uses.find(nameOf('missing'))).toBeUndefined();
  });

  it('destroy and revokeByGrantId reach the stored tokens', async () => {
    const { tokens, raw } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.upsert('rt9', record('g9'), 3600);
    await tokens.destroy('rt0');
    expect(await raw.find('rt0')).toBeUndefined();
    await tokens.revokeByGrantId('g9');
    expect(await raw.find('rt9')).toBeUndefined();
  });
});
