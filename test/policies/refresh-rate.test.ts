/**
 * The refresh rate per grant without HTTP: the storage decorator that counts a refresh when
 * its token is read and holds the refresh's writes until the count is back (all of them, in
 * order, in one turn; none when refused), the 429 it answers through the access token's save,
 * who is counted, and off.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { grantRecordKey, REFRESH_RATE_MODEL, refreshRateRefusal, withRefreshRate } from '../../lib/policies/refresh-rate.ts';

const TOKEN: AdapterPayload = { grantId: 'grant-1', clientId: 'app', accountId: 'acc' };

/** A request of oidc-provider's, as the decorator reads it. */
function request(params: { route?: string; grantType?: string; clientId?: string } = {}) {
  const headers: Record<string, string> = {};
  return {
    headers,
    oidc: { route: params.route ?? 'token', params: { grant_type: params.grantType ?? 'refresh_token' }, client: { clientId: params.clientId ?? 'app' } },
    set(name: string, value: string) { headers[name] = value; },
  };
}
type Request = ReturnType<typeof request>;

/** Storage that records the order of the writes it is asked for (and the turn they come in). */
function recorder() {
  const calls: string[] = [];
  // the turn of the event loop a call came in: one number for the calls of one turn
  let turn = 0;
  let counting = false;
  const turnNow = () => {
    if (!counting) {
      counting = true;
      setImmediate(() => { turn += 1; counting = false; });
    }
    return turn;
  };
  const factory: AdapterFactory = (model) => ({
    find: async () => (model === 'RefreshToken' ? { ...TOKEN } : undefined),
    consume: async (id: string) => { calls.push(`consume ${model} ${id} @${turnNow()}`); },
    upsert: async (id: string) => { calls.push(`upsert ${model} ${id} @${turnNow()}`); },
    destroy: async () => {},
    revokeByGrantId: async () => {},
    findByUid: async () => undefined,
    findByUserCode: async () => undefined,
  } as Adapter);
  return { calls, factory };
}

/** A refresh as oidc-provider makes one: read, consume, successor, access token. */
async function refresh(storage: AdapterFactory) {
  await storage('RefreshToken').find('rt-1');
  await storage('RefreshToken').consume('rt-1');
  await storage('RefreshToken').upsert('rt-2', { ...TOKEN }, 60);
  await storage('AccessToken').upsert('at-1', { grantId: 'grant-1' }, 60);
}

function counted(inner: AdapterFactory, budgets: AdapterFactory, perGrant: number, current: () => Request | undefined) {
  return withRefreshRate(inner, budgets, { perGrant, windowSeconds: 60 }, { now: () => 1_000_000, request: current });
}

describe('withRefreshRate', () => {
  it('false: the storage as it is', () => {
    const inner = createMemoryAdapter();
    expect(withRefreshRate(inner, inner, false)).toBe(inner);
  });

  it('holds the writes until the count is back, then asks for them in order, in one turn', async () => {
    const { calls, factory } = recorder();
    const ctx = request();
    // a count that comes back only when released
    let release!: () => void;
    const budgets = createMemoryAdapter();
    const slow: AdapterFactory = (model) => {
      const store = budgets(model) as Adapter & { spendBudget: (...a: never[]) => Promise<unknown> };
      return Object.assign(Object.create(store) as object, {
        spendBudget: (...args: never[]) => new Promise((resolve) => { release = () => resolve(store.spendBudget(...args)); }),
      }) as unknown as Adapter;
    };
    const storage = counted(factory, slow, 5, () => ctx);
    await storage('RefreshToken').find('rt-1');
    await storage('RefreshToken').consume('rt-1');
    await storage('RefreshToken').upsert('rt-2', { ...TOKEN }, 60);
    const saving = storage('AccessToken').upsert('at-1', {}, 60);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
    release();
    await saving;
    expect(calls.map((c) => c.replace(/ @\d+$/, ''))).toEqual(['consume RefreshToken rt-1', 'upsert RefreshToken rt-2', 'upsert AccessToken at-1']);
    expect(new Set(calls.map((c) => c.split('@')[1])).size).toBe(1);
  });

  it('counts each request once; over the budget nothing is written, the access token\'s save rejects with the 429, Retry-After set', async () => {
    const { calls, factory } = recorder();
    const budgets = createMemoryAdapter();
    let ctx = request();
    const storage = counted(factory, budgets, 1, () => ctx);
    await refresh(storage);
    expect(calls).toHaveLength(3);
    ctx = request();
    await expect(refresh(storage)).rejects.toMatchObject({ status: 429 });
    expect(calls).toHaveLength(3);
    expect(ctx.headers).toEqual({ 'Retry-After': '60' });
    expect(await budgets(REFRESH_RATE_MODEL).find(grantRecordKey('grant-1'))).toEqual({ tat: 1_060_000 });
  });

  it('a storage failure while counting: the save rejects with it, nothing written', async () => {
    const { calls, factory } = recorder();
    const failing: AdapterFactory = () => ({ spendBudget: () => Promise.reject(new StorageUnavailableError('redis: injected')) }) as unknown as Adapter;
    const ctx = request();
    await expect(refresh(counted(factory, failing, 5, () => ctx))).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(calls).toEqual([]);
  });

  it.each([
    ['an introspection', request({ route: 'introspection', grantType: '' })],
    ['a code exchange', request({ grantType: 'authorization_code' })],
    ['another client presenting the token', request({ clientId: 'other-app' })],
  ])('%s spends nothing and waits for nothing', async (_, ctx) => {
    const { calls, factory } = recorder();
    const budgets = createMemoryAdapter();
    await refresh(counted(factory, budgets, 1, () => ctx));
    expect(calls).toHaveLength(3);
    expect(await budgets(REFRESH_RATE_MODEL).find(grantRecordKey('grant-1'))).toBeUndefined();
  });

  it('outside a request: every call goes straight through', async () => {
    const { calls, factory } = recorder();
    const budgets = createMemoryAdapter();
    await refresh(counted(factory, budgets, 1, () => undefined));
    await refresh(counted(factory, budgets, 1, () => undefined));
    expect(calls).toHaveLength(6);
  });
});

describe('the records', () => {
  it('a grant\'s budget is keyed by its id hashed', () => {
    const key = grantRecordKey('grant-secretish');
    expect(key).toMatch(/^grant:[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('grant-secretish');
  });

  it('the refusal is a JSON error of the token endpoint: 429, never redirected, saying when to retry', () => {
    expect(refreshRateRefusal(7)).toMatchObject({
      status: 429, statusCode: 429, expose: true, error: 'temporarily_unavailable', error_description: 'too many refreshes of this grant; try again in 7 seconds', allow_redirect: false,
    });
  });
});
