/**
 * The refresh rate per grant without HTTP: the `RefreshToken` storage that counts a refresh
 * where its token is read (with the storage's `findSpending`, or a read then a count), once
 * per request, only for a refresh by the token's own client; the refusal thrown from the read
 * (429, `Retry-After`, the account for the event); the reserve a retry within the grace draws
 * on; and off.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { REFRESH_RATE_MODEL, RETRY_RESERVE, refreshRateRefusal, withRefreshRate } from '../../lib/policies/refresh-rate.ts';

const NOW = 1_800_000_000_000;
const TOKEN = { grantId: 'grant-1', clientId: 'app', accountId: 'acc-1' };

/** A request of oidc-provider's, as the count reads it. */
function request(params: { route?: string; grantType?: string; clientId?: string } = {}) {
  const headers: Record<string, string> = {};
  return {
    headers,
    oidc: { route: params.route ?? 'token', params: { grant_type: params.grantType ?? 'refresh_token' }, client: { clientId: params.clientId ?? 'app' } },
    set(name: string, value: string) { headers[name] = value; },
  };
}
type Request = ReturnType<typeof request>;

/** Memory storage holding refresh token `rt-1` (and, when asked, it rotated at `rotatedAt`). */
async function storage(token: AdapterPayload = TOKEN) {
  const memory = createMemoryAdapter();
  await memory('RefreshToken').upsert('rt-1', token, 600);
  return memory;
}

/** `inner` without `findSpending`: a custom adapter's (a read, then the count). */
function withoutFindSpending(inner: AdapterFactory): AdapterFactory {
  const plain: AdapterFactory = (model) => {
    const adapter = inner(model);
    if (model !== 'RefreshToken') return adapter;
    return { find: (id: string) => adapter.find(id) } as unknown as Adapter;
  };
  return plain;
}

function counted(inner: AdapterFactory, perGrant: number, ctx: () => Request | undefined, graceSeconds = 30) {
  return withRefreshRate(inner, { perGrant, windowSeconds: 60 }, { graceSeconds, now: () => NOW, request: ctx });
}

describe('withRefreshRate', () => {
  it('false: the storage as it is', () => {
    const inner = createMemoryAdapter();
    expect(withRefreshRate(inner, false, { graceSeconds: 30 })).toBe(inner);
  });

  it.each([
    ['with the storage\'s findSpending', (inner: AdapterFactory) => inner],
    ['with a read, then the count', withoutFindSpending],
  ])('%s: one unit per refresh request, however often it reads its token; over the budget the read throws the 429', async (_, shape) => {
    const memory = await storage();
    let ctx = request();
    const tokens = counted(shape(memory), 2, () => ctx)('RefreshToken');
    expect(await tokens.find('rt-1')).toMatchObject(TOKEN);
    // another read in the same request (the after-answer's reuse check) counts nothing
    expect(await tokens.find('rt-1')).toMatchObject(TOKEN);
    ctx = request();
    expect(await tokens.find('rt-1')).toMatchObject(TOKEN);
    expect(await memory(REFRESH_RATE_MODEL).find('grant-1')).toEqual({ tat: NOW + 60_000 });
    ctx = request();
    const refusal = await tokens.find('rt-1').then(() => undefined, (error: unknown) => error);
    expect(refusal).toMatchObject({ status: 429, error: 'temporarily_unavailable', error_description: 'too many refreshes of this grant; try again in 15 seconds' });
    // the account, for the token.failed event, never in the answer
    expect((refusal as { accountId?: string }).accountId).toBe('acc-1');
    expect(Object.keys(refusal as object)).not.toContain('accountId');
    // the wait is capped at half the grace (30 s here), so a racing refresh comes back within it
    expect(ctx.headers).toEqual({ 'Retry-After': '15' });
  });

  it('with the grace off, the wait is the budget\'s', async () => {
    let ctx = request();
    const tokens = counted(await storage(), 1, () => ctx, 0)('RefreshToken');
    await tokens.find('rt-1');
    ctx = request();
    await expect(tokens.find('rt-1')).rejects.toMatchObject({ status: 429 });
    expect(ctx.headers).toEqual({ 'Retry-After': '60' });
  });

  it(`a token rotated within the grace draws on a reserve of ${RETRY_RESERVE}; after the grace, or not rotated, it does not`, async () => {
    const rotatedNow = { ...TOKEN, rotatedAt: NOW / 1000 - 5 };
    let ctx = request();
    const memory = await storage(rotatedNow);
    await memory('RefreshToken').upsert('rt-old', { ...TOKEN, rotatedAt: NOW / 1000 - 31 }, 600);
    await memory('RefreshToken').upsert('rt-new', { ...TOKEN }, 600);
    const tokens = counted(memory, 1, () => ctx)('RefreshToken');
    await tokens.find('rt-new');
    for (let i = 0; i < RETRY_RESERVE; i += 1) {
      ctx = request();
      expect(await tokens.find('rt-1')).toMatchObject(rotatedNow);
    }
    ctx = request();
    await expect(tokens.find('rt-1')).rejects.toMatchObject({ status: 429 });
    ctx = request();
    await expect(tokens.find('rt-old')).rejects.toMatchObject({ status: 429 });
    ctx = request();
    await expect(tokens.find('rt-new')).rejects.toMatchObject({ status: 429 });
  });

  it('the last second of the grace is the grace\'s: a token rotated 30 s ago (by whole seconds) still draws on the reserve', async () => {
    // 30.4 s after the rotation by the clock, 30 s by the grace's whole seconds: served there
    const at = NOW + 400;
    const rotated = { ...TOKEN, rotatedAt: NOW / 1000 - 30 };
    const memory = await storage(rotated);
    await memory('RefreshToken').upsert('rt-new', { ...TOKEN }, 600);
    let ctx = request();
    const tokens = withRefreshRate(memory, { perGrant: 1, windowSeconds: 60 }, { graceSeconds: 30, now: () => at, request: () => ctx })('RefreshToken');
    await tokens.find('rt-new');
    ctx = request();
    expect(await tokens.find('rt-1')).toMatchObject(rotated);
  });

  it('a token the storage read without spending (its record unreadable to Redis\' script) is counted after the read', async () => {
    const memory = await storage();
    // findSpending that spends nothing for a token that spends, as Redis' cjson does for a lone surrogate
    const unreadable: AdapterFactory = (model) => {
      const adapter = memory(model);
      if (model !== 'RefreshToken') return adapter;
      return { find: (id: string) => adapter.find(id), findSpending: async (id: string) => ({ payload: await adapter.find(id), spent: undefined }) } as unknown as Adapter;
    };
    let ctx = request();
    const tokens = counted(unreadable, 1, () => ctx)('RefreshToken');
    await tokens.find('rt-1');
    expect(await memory(REFRESH_RATE_MODEL).find('grant-1')).toEqual({ tat: NOW + 60_000 });
    ctx = request();
    await expect(tokens.find('rt-1')).rejects.toMatchObject({ status: 429 });
  });

  it.each([
    ['an introspection', request({ route: 'introspection', grantType: '' })],
    ['a code exchange', request({ grantType: 'authorization_code' })],
    ['another client presenting the token', request({ clientId: 'other-app' })],
  ])('%s spends nothing', async (_, ctx) => {
    const memory = await storage();
    const tokens = counted(memory, 1, () => ctx)('RefreshToken');
    for (let i = 0; i < 3; i += 1) expect(await tokens.find('rt-1')).toMatchObject(TOKEN);
    expect(await memory(REFRESH_RATE_MODEL).find('grant-1')).toBeUndefined();
  });

  it('outside a request: reads go straight through', async () => {
    const memory = await storage();
    const tokens = counted(memory, 1, () => undefined)('RefreshToken');
    for (let i = 0; i < 3; i += 1) expect(await tokens.find('rt-1')).toMatchObject(TOKEN);
  });

  it('a storage failure while counting fails the read with it', async () => {
    const memory = await storage();
    const failing: AdapterFactory = (model) => (model === REFRESH_RATE_MODEL
      ? { find: () => Promise.reject(new StorageUnavailableError('redis: injected')) } as unknown as Adapter
      : withoutFindSpending(memory)(model));
    const ctx = request();
    await expect(counted(failing, 5, () => ctx)('RefreshToken').find('rt-1')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe('refreshRateRefusal', () => {
  it('is a JSON error of the token endpoint: 429, never redirected, saying when to retry', () => {
    expect(refreshRateRefusal(7)).toMatchObject({
      status: 429, statusCode: 429, expose: true, error: 'temporarily_unavailable', error_description: 'too many refreshes of this grant; try again in 7 seconds', allow_redirect: false,
    });
  });
});
