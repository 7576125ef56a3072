/**
 * The code-replay rule on the storage of the AuthorizationCode model, without HTTP: a consumed
 * code's record lives as long as its grant could, and is found unexpired so that oidc-provider
 * reaches its "already consumed" revocation; an unconsumed code is left as it is.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterFactory } from '../../adapters/types.ts';
import { withCodeReplay } from '../../lib/policies/code-replay.ts';

function setup() {
  let now = 1_000_000;
  const inner = createMemoryAdapter();
  const upserts: (number | undefined)[] = [];
  const spied = ((model: string) => {
    const adapter = inner(model);
    if (model !== 'AuthorizationCode') return adapter;
    const upsert = adapter.upsert.bind(adapter);
    adapter.upsert = (id, payload, expiresIn) => {
      upserts.push(expiresIn);
      return upsert(id, payload, expiresIn);
    };
    return adapter;
  }) as AdapterFactory;
  const factory = withCodeReplay(spied, { grantSeconds: 3600, now: () => now });
  return { codes: factory('AuthorizationCode'), factory, inner, upserts, advance: (s: number) => { now += s; }, at: () => now };
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

  it('consuming keeps the record for the grant lifetime, its exp unchanged', async () => {
    const { codes, inner, upserts, at } = setup();
    await codes.upsert('c', { grantId: 'g', exp: at() + 60 }, 60);
    await codes.consume('c');
    expect(upserts).toEqual([60, 3600]);
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ exp: at() + 60, consumed: expect.any(Number) });
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
