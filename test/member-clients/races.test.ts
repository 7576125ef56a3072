/**
 * `auth.memberClients` when a deletion and a secret rotation of one client race, within one
 * instance and across two instances on one store (memory, and a real Redis): the client stays
 * deleted and its tokens refused whatever the interleaving, and a rotation that lost the race
 * answers `not_found`. Two rotations racing both return, one after the other: the later
 * written secret works, the earlier one stops working as a rotation makes it.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { Adapter, AdapterFactory, ClosableAdapterFactory } from '../../adapters/types.ts';
import { MemberClientError } from '../../lib/index.ts';
import type { MemberClientInput } from '../../lib/index.ts';
import { STUDENT, obtainTokens, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { sharedDeployment } from '../support/instances.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import type { RunningApp } from '../support/start-app.ts';

const SITE = 'demo-school';
const INPUT: MemberClientInput = {
  name: 'Buddy', type: 'confidential', scopes: ['openid', 'account:read'], redirectUris: ['http://127.0.0.1/callback'],
};
const FLOW_REDIRECT = 'http://127.0.0.1:8765/callback';

/** A hold on one read: `reached` once the read has its answer, which it returns only after `release()`. */
interface Hold {
  readonly reached: Promise<void>;
  release(): void;
}

/**
 * Storage whose next read of one Client record, once `hold(id)` is called, waits for the
 * test: an operation of the manager stopped between its read of the client and its write.
 */
function holdable(inner: AdapterFactory) {
  let held: { id: string; reached: () => void; released: Promise<void> } | undefined;
  const factory = (model: string): Adapter => {
    const adapter = inner(model);
    if (model !== 'Client') return adapter;
    // every other method (compareAndSet too) is the inner adapter's own
    return new Proxy(adapter, {
      get(target, property) {
        if (property === 'find') {
          return async (id: string) => {
            const found = await target.find(id);
            if (held?.id === id) {
              const { reached, released } = held;
              held = undefined;
              reached();
              await released;
            }
            return found;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return Object.assign(factory, inner, {
    hold(id: string): Hold {
      let reached!: () => void;
      let release!: () => void;
      const hold = { reached: new Promise<void>((resolve) => { reached = resolve; }), release: () => release() };
      held = { id, reached, released: new Promise<void>((resolve) => { release = resolve; }) };
      return hold;
    },
  });
}

type Store = 'memory' | 'redis';
let redis: RedisHandle | undefined;
const closables: ClosableAdapterFactory[] = [];
const silent = { info() {}, warn() {} };

afterAll(async () => {
  await Promise.all(closables.map((a) => a.close()));
  await redis?.stop();
});

describe.each<Store>(['memory', 'redis'])('on %s', (kind) => {
  let a: RunningApp;
  let b: RunningApp;
  let storeA: ReturnType<typeof holdable>;
  let storeB: ReturnType<typeof holdable>;

  beforeAll(async () => {
    const deployment = await sharedDeployment();
    let open: () => ClosableAdapterFactory;
    if (kind === 'memory') {
      const memory = createMemoryAdapter();
      closables.push(memory);
      open = () => memory;
    } else {
      redis ??= await startRedis();
      const url = redis.url;
      open = () => {
        const adapter = createRedisAdapter({ url, keyPrefix: deployment.keyPrefix, logger: silent });
        closables.push(adapter);
        return adapter;
      };
    }
    storeA = holdable(open());
    storeB = holdable(open());
    a = await deployment.start(storeA);
    b = await deployment.start(storeB, a.baseUrl);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  async function createWithTokens(): Promise<{ clientId: string; clientSecret: string; tokens: TokenSet }> {
    const { client, clientSecret } = await a.auth.memberClients.create(SITE, INPUT);
    const tokens = await obtainTokens(a.baseUrl, { clientId: client.clientId, redirectUri: FLOW_REDIRECT, clientSecret }, { scope: 'openid account:read' }, STUDENT);
    expect(await userinfo(tokens.access_token)).toBe(200);
    return { clientId: client.clientId, clientSecret: clientSecret!, tokens };
  }

  async function userinfo(accessToken: string): Promise<number> {
    return (await fetch(`${a.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
  }

  /** 200 when the secret authenticates the client, 401 when it does not */
  async function introspect(clientId: string, secret: string): Promise<number> {
    return (await postForm(`${a.baseUrl}/api/oauth/introspect`, { token: 'x', client_id: clientId, client_secret: secret })).status;
  }

  async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
    const err = await promise.then(() => undefined, (e: unknown) => e);
    if (err !== undefined) expect(err).toBeInstanceOf(MemberClientError);
    return (err as MemberClientError | undefined)?.code;
  }

  /** Everything that shows a deleted client gone, on both instances. */
  async function expectDeleted(clientId: string, tokens: TokenSet, secrets: string[]): Promise<void> {
    for (const app of [a, b]) {
      expect({ clientId, listed: (await app.auth.memberClients.list(SITE)).some((c) => c.clientId === clientId) }).toEqual({ clientId, listed: false });
      expect(await codeOf(app.auth.memberClients.get(SITE, clientId))).toBe('not_found');
      // the provider's own lookup, which every use of a token makes
      expect(await app.auth.provider.Client.find(clientId)).toBeUndefined();
    }
    expect(await userinfo(tokens.access_token)).toBe(401);
    for (const secret of secrets) expect(await introspect(clientId, secret)).toBe(401);
  }

  it('a rotation and a deletion asked for at once on one instance: the client stays deleted', async () => {
    const { clientId, clientSecret, tokens } = await createWithTokens();
    const [rotated, deleted] = await Promise.allSettled([
      a.auth.memberClients.rotateSecret(SITE, clientId),
      a.auth.memberClients.delete(SITE, clientId),
    ]);
    expect(deleted.status).toBe('fulfilled');
    const secrets = [clientSecret];
    if (rotated.status === 'fulfilled') secrets.push(rotated.value.clientSecret);
    else expect((rotated.reason as MemberClientError).code).toBe('not_found');
    await expectDeleted(clientId, tokens, secrets);
  });

  it('a deletion on B between a rotation\'s read and its write on A: the rotation answers not_found, the client stays deleted', async () => {
    const { clientId, clientSecret, tokens } = await createWithTokens();
    const hold = storeA.hold(clientId);
    const rotating = a.auth.memberClients.rotateSecret(SITE, clientId);
    await hold.reached;
    await b.auth.memberClients.delete(SITE, clientId);
    hold.release();
    expect(await codeOf(rotating)).toBe('not_found');
    await expectDeleted(clientId, tokens, [clientSecret]);
  });

  it('a rotation on A between a deletion\'s read and its removal on B: the client is deleted, the new secret refused', async () => {
    const { clientId, clientSecret, tokens } = await createWithTokens();
    const hold = storeB.hold(clientId);
    const deleting = b.auth.memberClients.delete(SITE, clientId);
    await hold.reached;
    const rotated = await a.auth.memberClients.rotateSecret(SITE, clientId);
    hold.release();
    await deleting;
    await expectDeleted(clientId, tokens, [clientSecret, rotated.clientSecret]);
  });

  it('a rotation on B between another rotation\'s read and its write on A: both return, the later written secret works', async () => {
    const { clientId, clientSecret } = await createWithTokens();
    const hold = storeA.hold(clientId);
    const rotatingOnA = a.auth.memberClients.rotateSecret(SITE, clientId);
    await hold.reached;
    const onB = await b.auth.memberClients.rotateSecret(SITE, clientId);
    hold.release();
    // A read the client before B's rotation: it reads it again and rotates after B
    const onA = await rotatingOnA;
    expect(await introspect(clientId, onA.clientSecret)).toBe(200);
    expect(await introspect(clientId, onB.clientSecret)).toBe(401);
    expect(await introspect(clientId, clientSecret)).toBe(401);
    expect((await b.auth.memberClients.list(SITE)).map((c) => c.clientId)).toContain(clientId);
  });

  it('many rotations at once on both instances: each returns, and exactly the last one written works', async () => {
    const { clientId } = await createWithTokens();
    const rotations = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).auth.memberClients.rotateSecret(SITE, clientId)));
    const working = [];
    for (const { clientSecret } of rotations) if (await introspect(clientId, clientSecret) === 200) working.push(clientSecret);
    expect(working).toHaveLength(1);
  });
});
