/**
 * `auth.memberClients.create` when storage fails part-way, or the site's list keeps changing:
 * a 503 `StorageUnavailableError`, and never a working client that no list shows (which no
 * operator could see or delete, and which a retry would double). The switchable store has no
 * `compareAndSet`, so these run the manager's path for adapters without it.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import type { MemberClientInput } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { switchableAdapter } from '../support/switchable-adapter.ts';
import type { StorageSwitch } from '../support/switchable-adapter.ts';

const SITE = 'demo-school';
const INPUT: MemberClientInput = { name: 'Buddy', type: 'confidential', scopes: ['openid', 'account:read'], redirectUris: ['https://buddy.example/cb'] };

/** `adapter` with `overrides` in place of its own methods (the rest bound to it, private fields and all). */
function overriding(adapter: Adapter, overrides: Record<string, unknown>): Adapter {
  return new Proxy(adapter, {
    get: (target, property) => {
      if (typeof property === 'string' && property in overrides) return overrides[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `inner` with the ids of the Client records written through it noted in `written`. */
function noteClientWrites(inner: AdapterFactory, written: string[]): AdapterFactory {
  return Object.assign((model: string): Adapter => {
    const adapter = inner(model);
    if (model !== 'Client') return adapter;
    // a create stores its client with upsert
    return overriding(adapter, {
      upsert: (id: string, payload: AdapterPayload, expiresIn: number) => adapter.upsert(id, payload, expiresIn).then(() => {
        written.push(id);
      }),
    });
  }, inner);
}

async function storageFailure(promise: Promise<unknown>): Promise<StorageUnavailableError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(StorageUnavailableError);
  expect((err as StorageUnavailableError).status).toBe(503);
  return err as StorageUnavailableError;
}

describe('a storage failure during create', () => {
  const control: StorageSwitch = { failure: 'none' };
  const written: string[] = [];
  const storage = noteClientWrites(switchableAdapter(control), written);
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { adapter: storage } });
  });
  afterAll(() => app.stop());
  afterEach(() => {
    Object.assign(control, { failure: 'none', models: undefined, methods: undefined });
    written.length = 0;
  });

  it('writing the site\'s list fails: 503, and no client was stored; a retry makes exactly one', async () => {
    Object.assign(control, { failure: 'unavailable', models: new Set(['SiteMemberClients']) });
    await storageFailure(app.auth.memberClients.create(SITE, INPUT));
    control.failure = 'none';
    for (const id of written) expect({ id, stored: (await app.auth.provider.Client.find(id)) !== undefined }).toEqual({ id, stored: false });
    expect(written).toEqual([]);
    expect(await app.auth.memberClients.list(SITE)).toEqual([]);

    const { client } = await app.auth.memberClients.create(SITE, INPUT);
    expect((await app.auth.memberClients.list(SITE)).map((c) => c.clientId)).toEqual([client.clientId]);
    await app.auth.memberClients.delete(SITE, client.clientId);
  });

  it('writing the client fails: 503, and the list (which names it) leaves it out; a retry makes exactly one', async () => {
    Object.assign(control, { failure: 'unavailable', models: new Set(['Client']), methods: new Set(['upsert']) });
    await storageFailure(app.auth.memberClients.create(SITE, INPUT));
    control.failure = 'none';
    expect(await app.auth.memberClients.list(SITE)).toEqual([]);
    // the entry written before the client was taken back: failed creates leave nothing behind
    expect(await storage('SiteMemberClients').find(SITE)).toEqual({ clientIds: [] });

    const { client } = await app.auth.memberClients.create(SITE, INPUT);
    expect((await app.auth.memberClients.list(SITE)).map((c) => c.clientId)).toEqual([client.clientId]);
  });
});

describe('a site\'s list that keeps changing under create', () => {
  const written: string[] = [];
  let app: RunningApp;
  beforeAll(async () => {
    // every conditional write of a site's list finds it changed, as if other instances kept writing it
    const memory = createMemoryAdapter();
    const adapter = Object.assign((model: string): Adapter => {
      const inner = memory(model);
      return model === 'SiteMemberClients' ? overriding(inner, { compareAndSet: async () => false }) : inner;
    }, memory);
    app = await startApp({ auth: { adapter: noteClientWrites(adapter, written) } });
  });
  afterAll(() => app.stop());

  it('gives up with a 503 StorageUnavailableError (not a 500) that names the site, having stored no client', async () => {
    const err = await storageFailure(app.auth.memberClients.create(SITE, INPUT));
    expect(err.error).toBe('temporarily_unavailable');
    expect(err.error_detail).toMatch(`the list of OAuth applications of site ${SITE} kept changing`);
    expect(await app.auth.memberClients.list(SITE)).toEqual([]);
    expect(written).toEqual([]);
  });
});
