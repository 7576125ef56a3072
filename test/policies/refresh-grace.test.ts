/**
 * The refresh grace rule on the storage of the RefreshToken model, without HTTP: a rotated
 * token is usable again only by a retry or a race within the grace and before its successor
 * is used; otherwise oidc-provider sees it consumed (and revokes the grant).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterFactory } from '../../adapters/types.ts';
import { REFRESH_USE_MODEL, withRefreshGrace } from '../../lib/policies/refresh-grace.ts';

const GRACE = 30;

function setup(grace = GRACE) {
  let now = 1_000_000;
  const inner = createMemoryAdapter();
  const factory = withRefreshGrace(inner as AdapterFactory, { graceSeconds: grace, now: () => now });
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

describe('withRefreshGrace', () => {
  it('changes nothing when the grace is 0: the factory is the inner one', () => {
    const inner = createMemoryAdapter();
    expect(withRefreshGrace(inner, { graceSeconds: 0 })).toBe(inner);
  });

  it('leaves every other model to the inner factory', async () => {
    const { factory, inner } = setup();
    await factory('AuthorizationCode').upsert('code', { grantId: 'g' }, 60);
    await factory('AuthorizationCode').consume('code');
    expect((await inner('AuthorizationCode').find('code'))?.consumed).toEqual(expect.any(Number));
  });

  it('a fresh token is found as stored', async () => {
    const { tokens } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    expect(await tokens.find('rt0')).toEqual(record('g1'));
  });

  it('rotating marks the token and records its generation as used, instead of consuming it', async () => {
    const { tokens, raw, uses, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.find('rt0');
    await tokens.consume('rt0');
    const stored = await raw.find('rt0');
    expect(stored).toMatchObject({ rotatedAt: at() });
    expect(stored?.consumed).toBeUndefined();
    expect(await uses.find('g1:0')).toEqual({ grantId: 'g1', generation: 0 });
  });

  it('within the grace, before the successor is used, a rotated token is found usable (a retry or a race)', async () => {
    const { tokens, advance } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.consume('rt0');
    advance(GRACE);
    const found = await tokens.find('rt0');
    expect(found?.consumed).toBeUndefined();
    expect(found).not.toHaveProperty('rotatedAt');
  });

  it('a second rotation keeps the first rotation time, so the grace cannot be stretched', async () => {
    const { tokens, raw, advance, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.consume('rt0');
    const first = at();
    advance(10);
    await tokens.find('rt0');
    await tokens.consume('rt0');
    expect((await raw.find('rt0'))?.rotatedAt).toBe(first);
    advance(GRACE - 9);
    expect((await tokens.find('rt0'))?.consumed).toBe(first);
  });

  it('after the grace, a rotated token is found consumed: reuse', async () => {
    const { tokens, advance, at } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.consume('rt0');
    const rotatedAt = at();
    advance(GRACE + 1);
    expect((await tokens.find('rt0'))?.consumed).toBe(rotatedAt);
  });

  it('once a token of the next generation is used, the rotated one is consumed even within the grace', async () => {
    const { tokens } = setup();
    await tokens.upsert('rt0', record('g1'), 3600);
    await tokens.consume('rt0');
    await tokens.upsert('rt1', record('g1', 1), 3600);
    expect((await tokens.find('rt0'))?.consumed).toBeUndefined();
    await tokens.consume('rt1');
    expect((await tokens.find('rt0'))?.consumed).toEqual(expect.any(Number));
    // the successor itself is still within its own grace
    expect((await tokens.find('rt1'))?.consumed).toBeUndefined();
  });

  it('another grant\'s use is not this grant\'s', async () => {
    const { tokens } = setup();
    await tokens.upsert('a0', record('gA'), 3600);
    await tokens.consume('a0');
    await tokens.upsert('b1', record('gB', 1), 3600);
    await tokens.consume('b1');
    expect((await tokens.find('a0'))?.consumed).toBeUndefined();
  });

  it('consuming a token that is gone is a no-op', async () => {
    const { tokens, uses } = setup();
    await tokens.consume('missing');
    expect(await uses.find('undefined:0')).toBeUndefined();
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
