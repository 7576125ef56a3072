/**
 * The code-replay rule on the storage of the AuthorizationCode model, without HTTP: a consumed
 * code's record lives as long as its grant could, and is found unexpired so that oidc-provider
 * reaches its "already consumed" revocation; an unconsumed code is left as it is.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, ConsumeAndKeep } from '../../adapters/types.ts';
import { withCodeReplay } from '../../lib/policies/code-replay.ts';

function setup({ consumeAndKeep = true } = {}) {
  let now = 1_000_000;
  const inner = createMemoryAdapter();
  const upserts: (number | undefined)[] = [];
  const kept: number[] = [];
  const spied = ((model: string) => {
    const adapter = inner(model) as Adapter & Partial<ConsumeAndKeep>;
    if (model !== 'AuthorizationCode') return adapter;
    const upsert = adapter.upsert.bind(adapter);
    adapter.upsert = (id, payload, expiresIn) => {
      upserts.push(expiresIn);
      return upsert(id, payload, expiresIn);
    };
    const keep = adapter.consumeAndKeep!.bind(adapter);
    // a custom adapter may not offer it: the rule then consumes, reads and writes again
    adapter.consumeAndKeep = consumeAndKeep
      ? (id, seconds) => {
        kept.push(seconds);
        return keep(id, seconds);
      }
      : undefined;
    return adapter;
  }) as AdapterFactory;
  const factory = withCodeReplay(spied, { grantSeconds: 3600, now: () => now });
  return { codes: factory('AuthorizationCode'), factory, inner, upserts, kept, advance: (s: number) => { now += s; }, at: () => now };
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
