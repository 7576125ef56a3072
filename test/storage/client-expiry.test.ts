/**
 * Unused registered clients expire, without HTTP: which client records get a TTL, how grant
 * activity pushes it back (and how rarely it writes), the clients it never touches, and the
 * record really gone from the memory adapter once the time is up.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { Adapter, AdapterFactory, AdapterPayload, CompareAndSet } from '../../adapters/types.ts';
import { CLIENT_EXPIRY_FIELD, GRANT_ACTIVITY_MODELS, withClientExpiry } from '../../lib/storage/client-expiry.ts';

const DAY = 86_400;
const REGISTERED = { client_id: 'reg-1', client_name: 'Desk Agent', redirect_uris: ['https://app.example/cb'], audience: 'operator' };

/** `adapter` with some methods replaced (its own are bound: the memory adapter has private fields). */
function overriding(adapter: Adapter, overrides: Partial<Adapter>): Adapter {
  const methods = ['upsert', 'find', 'findByUid', 'findByUserCode', 'consume', 'destroy', 'revokeByGrantId', 'compareAndSet'] as const;
  const bound = Object.fromEntries(methods
    .filter((m) => typeof (adapter as unknown as Record<string, unknown>)[m] === 'function')
    .map((m) => [m, ((adapter as unknown as Record<string, (...a: unknown[]) => unknown>)[m]!).bind(adapter)]));
  return { ...bound, ...overrides } as unknown as Adapter;
}

/** A factory recording every write (upsert or compareAndSet: model, id, expiresIn) that reaches the storage. */
function recording(inner: AdapterFactory) {
  const writes: { model: string; id: string; expiresIn: number | undefined }[] = [];
  const factory: AdapterFactory = (model) => {
    const adapter = inner(model) as Adapter & CompareAndSet;
    return overriding(adapter, {
      upsert(id: string, payload: AdapterPayload, expiresIn: number) {
        writes.push({ model, id, expiresIn });
        return adapter.upsert(id, payload, expiresIn);
      },
      compareAndSet(id: string, expected: AdapterPayload | undefined, next: AdapterPayload | undefined, expiresIn?: number) {
        writes.push({ model, id, expiresIn });
        return adapter.compareAndSet(id, expected, next, expiresIn);
      },
    } as Partial<Adapter>);
  };
  return { factory, writes };
}

function setup(unusedSeconds = 30 * DAY) {
  let now = 1_700_000_000;
  let registering = false;
  const store = createMemoryAdapter();
  const { factory, writes } = recording(store);
  const adapter = withClientExpiry(factory, { unusedSeconds, isRegistration: () => registering, now: () => now });
  const register = async (payload: AdapterPayload = REGISTERED) => {
    registering = true;
    try {
      await adapter('Client').upsert(String(payload.client_id), payload, undefined as unknown as number);
    } finally {
      registering = false;
    }
  };
  return { adapter, store, writes, register, advance: (s: number) => { now += s; }, now: () => now };
}

describe('registration', () => {
  it('stores a registered client with the unused TTL and its expiry in the record', async () => {
    const { adapter, writes, register, now } = setup();
    await register();
    expect(writes).toEqual([{ model: 'Client', id: 'reg-1', expiresIn: 30 * DAY }]);
    expect(await adapter('Client').find('reg-1')).toEqual({ ...REGISTERED, [CLIENT_EXPIRY_FIELD]: now() + 30 * DAY });
  });

  it('stores clients written outside a registration (member clients) as they are, without TTL', async () => {
    const { adapter, writes } = setup();
    const member = { client_id: 'mc_1', audience: 'member', org_id: 'demo-school' };
    await adapter('Client').upsert('mc_1', member, undefined as unknown as number);
    expect(writes).toEqual([{ model: 'Client', id: 'mc_1', expiresIn: undefined }]);
    expect(await adapter('Client').find('mc_1')).toEqual(member);
  });

  it('when off: models other than Client are the inner factory\'s, and nothing gets a TTL', async () => {
    const store = createMemoryAdapter();
    const { factory, writes } = recording(store);
    const off = withClientExpiry(factory, { unusedSeconds: false, isRegistration: () => true });
    await off('Client').upsert('reg-2', { ...REGISTERED, client_id: 'reg-2' }, undefined as unknown as number);
    await off('AccessToken').upsert('at-1', { clientId: 'reg-2' }, 3600);
    expect(writes).toEqual([{ model: 'Client', id: 'reg-2', expiresIn: undefined }, { model: 'AccessToken', id: 'at-1', expiresIn: 3600 }]);
  });

  it('when off: a client stored with an expiry (registered while it was on) is made permanent at its first lookup, once', async () => {
    const { store, register } = setup(4);
    await register();
    const { factory, writes } = recording(store);
    const off = withClientExpiry(factory, { unusedSeconds: false });
    expect(await off('Client').find('reg-1')).toEqual(REGISTERED);
    expect(writes).toEqual([{ model: 'Client', id: 'reg-1', expiresIn: undefined }]);
    expect(await store('Client').find('reg-1')).toEqual(REGISTERED);
    await off('Client').find('reg-1');
    expect(writes).toHaveLength(1);
    // a client without the field is not written
    await store('Client').upsert('static-ish', { client_id: 'static-ish' }, undefined as unknown as number);
    expect(await off('Client').find('static-ish')).toEqual({ client_id: 'static-ish' });
    expect(await off('Client').find('missing')).toBeUndefined();
    expect(writes).toHaveLength(1);
  });
});

describe('grant activity', () => {
  it.each(GRANT_ACTIVITY_MODELS.map((m) => [m]))('a %s stored for the client pushes its expiry back, to the artefact\'s own lifetime when longer', async (model) => {
    const { adapter, writes, register, advance, now } = setup();
    await register();
    advance(10 * DAY);
    await adapter(model).upsert('artefact-1', { clientId: 'reg-1', grantId: 'g-1' }, 14 * DAY);
    expect(writes.filter((w) => w.model === 'Client')).toEqual([
      { model: 'Client', id: 'reg-1', expiresIn: 30 * DAY },
      { model: 'Client', id: 'reg-1', expiresIn: 30 * DAY },
    ]);
    expect((await adapter('Client').find('reg-1'))?.[CLIENT_EXPIRY_FIELD]).toBe(now() + 30 * DAY);
    // the artefact itself is stored as given
    expect(await adapter(model).find('artefact-1')).toEqual({ clientId: 'reg-1', grantId: 'g-1' });

    const short = setup(60);
    await short.register();
    await short.adapter(model).upsert('artefact-2', { clientId: 'reg-1' }, 14 * DAY);
    expect(short.writes.at(-1)).toEqual({ model: 'Client', id: 'reg-1', expiresIn: 14 * DAY });
  });

  it('writes the client at most once per thirtieth of the period, whatever the number of tokens', async () => {
    const { adapter, writes, register, advance } = setup();
    await register();
    advance(5 * DAY);
    for (let i = 0; i < 50; i += 1) {
      await adapter('AccessToken').upsert(`at-${i}`, { clientId: 'reg-1' }, 3600);
      advance(600);
    }
    // 50 tokens over ~8 hours: one extension
    expect(writes.filter((w) => w.model === 'Client')).toHaveLength(2);
    advance(DAY);
    await adapter('AccessToken').upsert('at-next', { clientId: 'reg-1' }, 3600);
    expect(writes.filter((w) => w.model === 'Client')).toHaveLength(3);
  });

  it('never touches member, static or metadata-document clients', async () => {
    const { adapter, writes } = setup();
    await adapter('Client').upsert('mc_1', { client_id: 'mc_1', audience: 'member' }, undefined as unknown as number);
    for (const clientId of ['mc_1', 'demo-member-app', 'https://tools.example/client.json']) {
      await adapter('Grant').upsert(`g-${clientId}`, { clientId }, 14 * DAY);
      await adapter('AccessToken').upsert(`at-${clientId}`, { clientId }, 3600);
    }
    expect(writes.filter((w) => w.model === 'Client')).toEqual([{ model: 'Client', id: 'mc_1', expiresIn: undefined }]);
    expect(await adapter('Client').find('mc_1')).toEqual({ client_id: 'mc_1', audience: 'member' });
  });

  it('does not bring back a client deleted while it was being extended', async () => {
    const store = createMemoryAdapter();
    let registering = true;
    const deleting: AdapterFactory = (model) => {
      const adapter = store(model);
      if (model !== 'Client') return adapter;
      return overriding(adapter, {
        async find(id: string) {
          const found = await adapter.find(id);
          if (!registering) await adapter.destroy(id);
          return found;
        },
      });
    };
    const adapter = withClientExpiry(deleting, { unusedSeconds: 30 * DAY, isRegistration: () => registering });
    await adapter('Client').upsert('reg-1', REGISTERED, undefined as unknown as number);
    registering = false;
    await adapter('Grant').upsert('g-1', { clientId: 'reg-1' }, 14 * DAY);
    expect(await store('Client').find('reg-1')).toBeUndefined();
  });
});

describe('expiry in the memory adapter', () => {
  it('an unused registered client is gone after the period, a used one stays', async () => {
    let registering = false;
    const store = createMemoryAdapter();
    const adapter = withClientExpiry(store, { unusedSeconds: 1, isRegistration: () => registering });
    registering = true;
    await adapter('Client').upsert('unused', { ...REGISTERED, client_id: 'unused' }, undefined as unknown as number);
    await adapter('Client').upsert('used', { ...REGISTERED, client_id: 'used' }, undefined as unknown as number);
    registering = false;
    await adapter('Grant').upsert('g-1', { clientId: 'used' }, 60);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await store('Client').find('unused')).toBeUndefined();
    expect(await store('Client').find('used')).toMatchObject({ client_id: 'used' });
  });
});
