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
    expect(await storage('SiteMemberClients').find(SITE)).toEqual({ clientIds: [], addedAt: {} });

    const { client } = await app.auth.memberClients.create(SITE, INPUT);
    expect((await app.auth.memberClients.list(SITE)).map((c) => c.clientId)).toEqual([client.clientId]);
  });
});

describe('leftover entries of failed writes (maxPerSite: 1)', () => {
  const control: StorageSwitch = { failure: 'none' };
  const storage = switchableAdapter(control);
  const index = () => storage('SiteMemberClients');
  /** as the list is written: without a lifetime */
  const NO_EXPIRY = undefined as unknown as number;
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { adapter: storage, memberClients: { betaEnabled: [SITE], maxPerSite: 1 } } });
  });
  afterAll(() => app.stop());
  afterEach(async () => {
    Object.assign(control, { failure: 'none', models: undefined, methods: undefined });
    for (const { clientId } of await app.auth.memberClients.list(SITE)) await app.auth.memberClients.delete(SITE, clientId);
    await index().destroy(SITE);
  });

  it('a delete that failed between its two writes, asked again, is 404 and takes the entry out: the site can create again', async () => {
    const { client } = await app.auth.memberClients.create(SITE, INPUT);
    Object.assign(control, { failure: 'unavailable', models: new Set(['SiteMemberClients']), methods: new Set(['upsert', 'compareAndSet']) });
    await storageFailure(app.auth.memberClients.delete(SITE, client.clientId));
    control.failure = 'none';
    // the client is gone, its entry is not
    expect(await app.auth.provider.Client.find(client.clientId)).toBeUndefined();
    expect((await index().find(SITE))?.clientIds).toEqual([client.clientId]);

    const again = await app.auth.memberClients.delete(SITE, client.clientId).then(() => undefined, (e: unknown) => e);
    expect(again).toMatchObject({ code: 'not_found', status: 404 });
    expect((await index().find(SITE))?.clientIds).toEqual([]);
    const next = await app.auth.memberClients.create(SITE, INPUT);
    expect((await app.auth.memberClients.list(SITE)).map((c) => c.clientId)).toEqual([next.client.clientId]);
  });

  it('an entry naming no client is dropped by a full list once older than a create can take, not before', async () => {
    // a create whose client write failed, and its clean-up too: the entry stays
    Object.assign(control, { failure: 'unavailable', models: new Set(['Client']), methods: new Set(['upsert', 'destroy']) });
    await storageFailure(app.auth.memberClients.create(SITE, INPUT));
    control.failure = 'none';
    const stored = await index().find(SITE);
    const [leftover] = stored?.clientIds as string[];
    expect(await app.auth.memberClients.list(SITE)).toEqual([]);

    // as fresh as a create under way: it still counts
    const refused = await app.auth.memberClients.create(SITE, INPUT).then(() => undefined, (e: unknown) => e);
    expect(refused).toMatchObject({ code: 'access_denied', status: 403 });

    // a minute later, it no longer does
    const addedAt = (stored?.addedAt as Record<string, number>)[leftover!]!;
    await index().upsert(SITE, { ...stored, addedAt: { [leftover!]: addedAt - 61 } }, NO_EXPIRY);
    const { client } = await app.auth.memberClients.create(SITE, INPUT);
    expect((await index().find(SITE))?.clientIds).toEqual([client.clientId]);
  });

  it('an entry of a list written before entries were dated counts as old', async () => {
    await index().upsert(SITE, { clientIds: ['mc_written_before_and_gone'] }, NO_EXPIRY);
    const { client } = await app.auth.memberClients.create(SITE, INPUT);
    expect((await index().find(SITE))?.clientIds).toEqual([client.clientId]);
  });

  it('a full list of live clients is still full', async () => {
    await app.auth.memberClients.create(SITE, INPUT);
    const refused = await app.auth.memberClients.create(SITE, INPUT).then(() => undefined, (e: unknown) => e);
    expect(refused).toMatchObject({ code: 'access_denied', status: 403 });
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
