/**
 * The code-replay rule on the storage of the AuthorizationCode model, without HTTP: a consumed
 * code's record lives as long as its grant could, and is found unexpired so that oidc-provider
 * reaches its "already consumed" revocation; an unconsumed code is left as it is.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, ConsumeAndKeep } from '../../adapters/types.ts';
import { CodeExchanges, withCodeReplay } from '../../lib/policies/code-replay.ts';

function setup({ consumeAndKeep = true, request = undefined as object | undefined, consumeTimesOut = false } = {}) {
  let now = 1_000_000;
  const exchanges = new CodeExchanges();
  const inner = createMemoryAdapter();
  const upserts: (number | undefined)[] = [];
  const kept: number[] = [];
  const failing = { find: false };
  const spied = ((model: string) => {
    const adapter = inner(model) as Adapter & Partial<ConsumeAndKeep>;
    if (model !== 'AuthorizationCode') return adapter;
    const find = adapter.find.bind(adapter);
    adapter.find = (id) => (failing.find ? Promise.reject(new Error('storage down')) : find(id));
    const upsert = adapter.upsert.bind(adapter);
    adapter.upsert = (id, payload, expiresIn) => {
      upserts.push(expiresIn);
      return upsert(id, payload, expiresIn);
    };
    const keep = adapter.consumeAndKeep!.bind(adapter);
    // a custom adapter may not offer it: the rule then consumes, reads and writes again
    adapter.consumeAndKeep = consumeAndKeep
      ? async (id, seconds) => {
        kept.push(seconds);
        await keep(id, seconds);
        // applied, and answered as a timeout
        if (consumeTimesOut) throw new Error('timed out');
      }
      : undefined;
    return adapter;
  }) as AdapterFactory;
  const factory = withCodeReplay(spied, { grantSeconds: 3600, now: () => now, exchanges, request: () => request });
  return { codes: factory('AuthorizationCode'), factory, inner, upserts, kept, exchanges, failing, advance: (s: number) => { now += s; }, at: () => now };
}

describe('withCodeReplay', () => {
  it('leaves every other model to the inner factory', async () => {
    const { factory, inner } = setup();
    await factory('RefreshToken').upsert('rt', { grantId: 'g' }, 60);
    expect(await inner('RefreshToken').find('rt')).toEqual({ grantId: 'g' });
  });

  it('an unconsumed code is found as stored, also past its exp', async () => {
    const { codes, advance, at } = setup();
    const record = { grantId: 'g', exp: at() + 60 };
    await codes.upsert('c', record, 60);
    advance(120);
    expect(await codes.find('c')).toEqual(record);
  });

  it('consuming keeps the record for the grant lifetime in one step, its exp unchanged', async () => {
    const { codes, inner, upserts, kept, at } = setup();
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    expect(kept).toEqual([3600]);
    expect(upserts).toEqual([60]);
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ exp: at() + 60, consumed: expect.any(Number) });
  });

  it('with an adapter without consumeAndKeep: consumed, then written again for the grant lifetime', async () => {
    const { codes, inner, upserts, kept, at } = setup({ consumeAndKeep: false });
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    expect(kept).toEqual([]);
    expect(upserts).toEqual([60, 3600]);
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ exp: at() + 60, consumed: expect.any(Number) });
    await expect(codes.consume('c')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a consumed code past its exp is found unexpired, still consumed', async () => {
    const { codes, advance, at } = setup();
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    advance(600);
    expect(await codes.find('c')).toMatchObject({ exp: at() + 1, consumed: expect.any(Number) });
  });

  it('a second consume is still refused by the inner adapter', async () => {
    const { codes, at } = setup();
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    await expect(codes.consume('c')).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('a code exchange answered 503 gives its code back (CodeExchanges)', () => {
  const answered = (request: object, status: number) => Object.assign(request, { status }) as never;

  it('a 503 makes the request\'s consumed code redeemable again, with what was left of its lifetime', async () => {
    const request = {};
    const { codes, inner, exchanges, advance, at } = setup({ request });
    const exp = at() + 60;
    await codes.upsert('c', { grantId: 'g', exp }, 60);
    await codes.consume('c');
    advance(10);
    await exchanges.afterAnswer(answered(request, 503));
    expect(await inner('AuthorizationCode').find('c')).toEqual({ grantId: 'g', exp });
    // redeemed by the retry, then replay as ever
    await codes.consume('c');
    await expect(codes.consume('c')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('any other answer keeps the code consumed, and the request is forgotten', async () => {
    const request = {};
    const { codes, inner, exchanges, at } = setup({ request });
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    expect(exchanges.afterAnswer(answered(request, 200))).toBeUndefined();
    expect(exchanges.afterAnswer(answered(request, 503))).toBeUndefined();
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ consumed: expect.any(Number) });
  });

  it('a 503 of another request, or one that consumed nothing, gives nothing back', async () => {
    const request = {};
    const { codes, inner, exchanges, at } = setup({ request });
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    expect(exchanges.afterAnswer(answered({}, 503))).toBeUndefined();
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ consumed: expect.any(Number) });
  });

  it('a code past its lifetime stays consumed (its retry is replay), and a failing release is no failure of the answer', async () => {
    const request = {};
    const { codes, inner, exchanges, failing, advance, at } = setup({ request });
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    advance(60);
    await exchanges.afterAnswer(answered(request, 503));
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ consumed: expect.any(Number) });

    await codes.upsert('d', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('d');
    failing.find = true;
    await expect(exchanges.afterAnswer(answered(request, 503))).resolves.toBeUndefined();
    failing.find = false;
    expect(await inner('AuthorizationCode').find('d')).toMatchObject({ consumed: expect.any(Number) });
  });

  it('a consume that failed is still given back on a 503: it may have been applied', async () => {
    const request = {};
    const { codes, inner, exchanges, at } = setup({ request, consumeTimesOut: true });
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await expect(codes.consume('c')).rejects.toThrow('timed out');
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ consumed: expect.any(Number) });
    await exchanges.afterAnswer(answered(request, 503));
    expect(await inner('AuthorizationCode').find('c')).not.toHaveProperty('consumed');
  });
});
