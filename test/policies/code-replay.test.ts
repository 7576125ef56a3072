/**
 * The code-replay rule on the storage of the AuthorizationCode model, without HTTP: a consumed
 * code's record lives as long as its grant could, and is found unexpired so that oidc-provider
 * reaches its "already consumed" revocation; an unconsumed code is left as it is.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, ConsumeAndKeep } from '../../adapters/types.ts';
import { CodeExchanges, withCodeReplay } from '../../lib/policies/code-replay.ts';

/** What the next calls of the inner consume do, in order (`consume`: the inner adapter's own); then each goes through. */
type ConsumeStep = (consume: () => Promise<void>) => Promise<void>;

function setup({
  consumeAndKeep = true, request = undefined as object | undefined, consumeTimesOut = false, keepsMark = true,
} = {}) {
  let now = 1_000_000;
  const exchanges = new CodeExchanges();
  const inner = createMemoryAdapter();
  const upserts: (number | undefined)[] = [];
  const kept: number[] = [];
  const failing = { find: false };
  const steps: ConsumeStep[] = [];
  /** runs once, after the next read of a code (between a release's read and its write) */
  const afterFind: (() => Promise<void>)[] = [];
  // the request being served, as Provider.ctx gives it; set per call below
  let current = request;
  const spied = ((model: string) => {
    const adapter = inner(model) as Adapter & Partial<ConsumeAndKeep>;
    if (model !== 'AuthorizationCode') return adapter;
    const find = adapter.find.bind(adapter);
    adapter.find = async (id) => {
      if (failing.find) throw new Error('storage down');
      const found = await find(id);
      await afterFind.shift()?.();
      return found;
    };
    const upsert = adapter.upsert.bind(adapter);
    adapter.upsert = (id, payload, expiresIn) => {
      upserts.push(expiresIn);
      return upsert(id, payload, expiresIn);
    };
    const scriptedConsume = adapter.consume.bind(adapter);
    const keep = adapter.consumeAndKeep!.bind(adapter);
    // a custom adapter may not offer it: the rule then consumes, reads and writes again
    adapter.consumeAndKeep = consumeAndKeep
      ? async (id, seconds, mark) => {
        kept.push(seconds);
        // a custom adapter may keep no mark
        const consume = () => keep(id, seconds, keepsMark ? mark : undefined);
        const step = steps.shift();
        await (step ? step(consume) : consume());
        // applied, and answered as a timeout
        if (consumeTimesOut) throw new Error('timed out');
      }
      : undefined;
    if (!consumeAndKeep) {
      adapter.consume = (id) => {
        const step = steps.shift();
        return step ? step(() => scriptedConsume(id)) : scriptedConsume(id);
      };
    }
    return adapter;
  }) as AdapterFactory;
  const factory = withCodeReplay(spied, { grantSeconds: 3600, now: () => now, exchanges, request: () => current });
  const codes = factory('AuthorizationCode');
  /** `codes.consume(id)` as made while serving `by` */
  const consumeAs = (by: object, id: string) => {
    current = by;
    const consumed = codes.consume(id);
    current = request;
    return consumed;
  };
  return {
    codes, factory, inner, upserts, kept, exchanges, failing, steps, afterFind, consumeAs,
    advance: (s: number) => { now += s; }, at: () => now,
  };
}

/** A one-shot signal. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => { fire = resolve; });
  return { fire, fired };
}

const refused = () => new StorageUnavailableError('test: refused');

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

  it('the consume writes its own mark with the consumed mark, and a code given back has neither', async () => {
    const request = {};
    const { codes, inner, exchanges, at } = setup({ request });
    const exp = at() + 60;
    await codes.upsert('c', { grantId: 'g', exp }, 60);
    await codes.consume('c');
    expect(await inner('AuthorizationCode').find('c')).toMatchObject({ consumed: expect.any(Number), consumedBy: expect.any(String) });
    await exchanges.afterAnswer(answered(request, 503));
    expect(await inner('AuthorizationCode').find('c')).toEqual({ grantId: 'g', exp });
  });

  describe('never another request\'s consume', () => {
    const winner = {};
    const loser = {};

    /** Two requests that both read code `c` before either consumes it; the loser's consume as `loserConsume` does. */
    async function race(s: ReturnType<typeof setup>, loserConsume: ConsumeStep) {
      const loserCalled = signal();
      const winnerConsumed = signal();
      s.steps.push(
        async (consume) => {
          await loserCalled.fired;
          await consume();
          winnerConsumed.fire();
        },
        async (consume) => {
          loserCalled.fire();
          await winnerConsumed.fired;
          await loserConsume(consume);
        },
      );
      return Promise.allSettled([s.consumeAs(winner, 'c'), s.consumeAs(loser, 'c')]);
    }

    it('a racer\'s consume refused by storage (not applied): its 503 leaves the winner\'s consume, and a retry is replay', async () => {
      const s = setup();
      await s.codes.upsert('c', { grantId: 'g', exp: s.at() + 60 }, 60);
      const [won, lost] = await race(s, async () => { throw refused(); });
      expect(won.status).toBe('fulfilled');
      expect(lost).toMatchObject({ status: 'rejected', reason: { error: 'temporarily_unavailable' } });
      const consumed = await s.inner('AuthorizationCode').find('c');
      await s.exchanges.afterAnswer(answered(loser, 503));
      expect(await s.inner('AuthorizationCode').find('c')).toEqual(consumed);
      await expect(s.codes.consume('c')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('a replay answered 503 (the grant\'s revocation failed, as on a Cluster whose grant node is down) gives nothing back', async () => {
      const s = setup();
      await s.codes.upsert('c', { grantId: 'g', exp: s.at() + 60 }, 60);
      await s.consumeAs(winner, 'c');
      const consumed = await s.inner('AuthorizationCode').find('c');
      // the consume found the code consumed; the revocation after it met the outage
      s.steps.push(async () => { throw refused(); });
      await expect(s.consumeAs(loser, 'c')).rejects.toMatchObject({ error: 'temporarily_unavailable' });
      await s.exchanges.afterAnswer(answered(loser, 503));
      expect(await s.inner('AuthorizationCode').find('c')).toEqual(consumed);
    });

    it('a racer whose consume met a consumed code and failed, while the winner\'s reply was lost: only the winner gives it back', async () => {
      const s = setup();
      await s.codes.upsert('c', { grantId: 'g', exp: s.at() + 60 }, 60);
      const loserCalled = signal();
      const winnerConsumed = signal();
      s.steps.push(
        async (consume) => {
          await loserCalled.fired;
          await consume();
          winnerConsumed.fire();
          throw refused();
        },
        async () => {
          loserCalled.fire();
          await winnerConsumed.fired;
          throw refused();
        },
      );
      await Promise.allSettled([s.consumeAs(winner, 'c'), s.consumeAs(loser, 'c')]);
      const consumed = await s.inner('AuthorizationCode').find('c');
      await s.exchanges.afterAnswer(answered(loser, 503));
      expect(await s.inner('AuthorizationCode').find('c')).toEqual(consumed);
      await s.exchanges.afterAnswer(answered(winner, 503));
      expect(await s.inner('AuthorizationCode').find('c')).not.toHaveProperty('consumed');
    });

    it('the code is written back only over the record as read: a revocation between the read and the write stays', async () => {
      const request = {};
      const s = setup({ request });
      await s.codes.upsert('c', { grantId: 'g', exp: s.at() + 60 }, 60);
      await s.codes.consume('c');
      s.afterFind.push(() => s.inner('AuthorizationCode').revokeByGrantId('g'));
      await s.exchanges.afterAnswer(answered(request, 503));
      expect(await s.inner('AuthorizationCode').find('c')).toBeUndefined();
    });
  });

  describe('an adapter that keeps no mark', () => {
    for (const [kind, options] of [
      ['without consumeAndKeep', { consumeAndKeep: false }],
      ['whose consumeAndKeep ignores the mark', { keepsMark: false }],
    ] as const) {
      it(`${kind}: a consume that resolved is given back`, async () => {
        const request = {};
        const s = setup({ request, ...options });
        const exp = s.at() + 60;
        await s.codes.upsert('c', { grantId: 'g', exp }, 60);
        await s.codes.consume('c');
        expect(await s.inner('AuthorizationCode').find('c')).not.toHaveProperty('consumedBy');
        await s.exchanges.afterAnswer(answered(request, 503));
        expect(await s.inner('AuthorizationCode').find('c')).toEqual({ grantId: 'g', exp });
      });

      it(`${kind}: a consume that failed gives nothing back (nothing tells whose the consumed mark is)`, async () => {
        const request = {};
        const s = setup({ request, ...options });
        await s.codes.upsert('c', { grantId: 'g', exp: s.at() + 60 }, 60);
        s.steps.push(async (consume) => {
          await consume();
          throw refused();
        });
        await expect(s.codes.consume('c')).rejects.toMatchObject({ error: 'temporarily_unavailable' });
        await s.exchanges.afterAnswer(answered(request, 503));
        expect(await s.inner('AuthorizationCode').find('c')).toMatchObject({ consumed: expect.any(Number) });
      });
    }
  });
});
