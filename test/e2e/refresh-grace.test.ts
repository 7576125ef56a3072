/**
 * No member signed out by a storage fault or a racing refresh (issue: refresh retried after a
 * storage error killed the grant), on the memory store and on a real Redis:
 * - storage fails after the old refresh token was consumed and before the new ones were
 *   stored: the client gets 503, its retry gets tokens for the same grant;
 * - with the grace off (0) the same retry is reuse and the grant dies (the control that shows
 *   the test would fail without the work);
 * - two concurrent refreshes of one token both succeed, for the same grant;
 * - reuse after the grace, after the successor was used, or by another client revokes it.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterFactory, ClosableAdapterFactory } from '../../adapters/types.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import type { AccountStore } from '../../lib/index.ts';
import { DelegatingAdapter } from '../../lib/storage/model-decorator.ts';
import { Browser } from '../support/browser.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, obtainTokens, operator, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

/** Storage that can be told to fail the next write of a new refresh token (the save after the consume). */
function faultable(inner: AdapterFactory) {
  let failNextNewRefreshToken = false;
  let failures = 0;
  const factory = (model: string): Adapter => {
    const adapter = inner(model);
    if (model !== 'RefreshToken') return adapter;
    return new (class extends DelegatingAdapter {
      override async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
        if (failNextNewRefreshToken && !(await adapter.find(id))) {
          failNextNewRefreshToken = false;
          failures += 1;
          throw new StorageUnavailableError('injected: storage failed after the consume');
        }
        return adapter.upsert(id, payload, expiresIn as number);
      }
    })(adapter);
  };
  return Object.assign(factory, {
    armSaveFailure() {
      failNextNewRefreshToken = true;
    },
    failures: () => failures,
  });
}

/** Storage whose grant revocation can be made to fail (the grant's keys on a failing node). */
function revocationFaults(inner: AdapterFactory) {
  let failing = false;
  const factory = (model: string): Adapter => {
    const adapter = inner(model);
    return new (class extends DelegatingAdapter {
      override revokeByGrantId(grantId: string) {
        if (failing) return Promise.reject(new StorageUnavailableError('injected: the grant\'s revocation failed'));
        return adapter.revokeByGrantId(grantId);
      }

      override destroy(id: string) {
        if (failing && model === 'Grant') return Promise.reject(new StorageUnavailableError('injected: the grant\'s deletion failed'));
        return adapter.destroy(id);
      }
    })(adapter);
  };
  return Object.assign(factory, inner, {
    failRevocations(on: boolean) {
      failing = on;
    },
  });
}

type Store = 'memory' | 'redis';
let redis: RedisHandle | undefined;
const closables: ClosableAdapterFactory[] = [];

async function storage(kind: Store): Promise<AdapterFactory> {
  if (kind === 'memory') return createMemoryAdapter();
  redis ??= await startRedis();
  const adapter = createRedisAdapter({ url: redis.url, keyPrefix: `grace-${Math.random().toString(36).slice(2)}:`, logger: { info() {}, warn() {} } });
  closables.push(adapter);
  return adapter;
}

afterAll(async () => {
  await Promise.all(closables.map((a) => a.close()));
  await redis?.stop();
});

function refresh(app: RunningApp, refreshToken: string, clientId: string = MEMBER.clientId, extra: Record<string, string> = {}) {
  return postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });
}

async function userinfoStatus(app: RunningApp, accessToken: string): Promise<number> {
  return (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

/** The demo on `kind`, whose accounts store answers nothing for the ids put in `hidden`. */
async function appWithHideableAccounts(kind: Store): Promise<{ hidden: Set<string>; own: RunningApp }> {
  const hidden = new Set<string>();
  const seeded = createAccountStore();
  const accounts: AccountStore = { authenticate: seeded.authenticate, findById: async (id) => (hidden.has(id) ? undefined : seeded.findById(id)) };
  return { hidden, own: await startApp({ auth: { adapter: await storage(kind), accounts } }) };
}

async function signIn(app: RunningApp): Promise<TokenSet> {
  return obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
}

describe.each<Store>(['memory', 'redis'])('on %s', (kind) => {
  describe('with the default grace', () => {
    let app: RunningApp;
    let store: ReturnType<typeof faultable>;
    beforeAll(async () => {
      store = faultable(await storage(kind));
      app = await startApp({ auth: { adapter: store } });
    });
    afterAll(() => app.stop());

    it('a refresh retried after a storage failure between consume and save keeps the grant', async () => {
      const tokens = await signIn(app);
      store.armSaveFailure();
      const failed = await refresh(app, tokens.refresh_token);
      expect(failed.status).toBe(503);
      expect((await failed.json()).error).toBe('temporarily_unavailable');
      expect(store.failures()).toBe(1);

      const retried = await refresh(app, tokens.refresh_token);
      expect(retried.status).toBe(200);
      const next = await retried.json() as TokenSet;
      expect(await userinfoStatus(app, next.access_token)).toBe(200);
      // the grant lives on: its first access token too, and the chain continues
      expect(await userinfoStatus(app, tokens.access_token)).toBe(200);
      expect((await refresh(app, next.refresh_token)).status).toBe(200);
    });

    it('a retry within the grace on a second chain of one grant is served: another chain\'s generations are not its successor\'s', async () => {
      const browser = new Browser(app.baseUrl);
      const chain = async () => {
        const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT, browser);
        const response = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
        expect(response.status).toBe(200);
        return await response.json() as TokenSet;
      };
      // tab A signs in and refreshes twice: its generations 0 and 1 are used
      const a0 = await chain();
      const a1 = await (await refresh(app, a0.refresh_token)).json() as TokenSet;
      const a2 = await (await refresh(app, a1.refresh_token)).json() as TokenSet;
      // tab B authorizes the same client in the same browser session: the grant is reused,
      // and its code exchange starts a second chain at generation 0
      const b0 = await chain();
      expect((await refresh(app, b0.refresh_token)).status).toBe(200);
      // B's answer was lost: it retries within the grace, its successor never used
      const retried = await refresh(app, b0.refresh_token);
      expect(retried.status).toBe(200);
      expect(await userinfoStatus(app, ((await retried.json()) as TokenSet).access_token)).toBe(200);
      expect(await userinfoStatus(app, a2.access_token)).toBe(200);
    });

    it('two racers of one token fork it: a retry within the grace on one fork is served while the other goes on, and both live', async () => {
      const tokens = await signIn(app);
      // racers A and B both present the first token: both are served, successors of one generation
      const a1 = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const b1 = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      // A goes on with its own chain
      const a2 = await (await refresh(app, a1.refresh_token)).json() as TokenSet;
      const a3 = await (await refresh(app, a2.refresh_token)).json() as TokenSet;
      // B refreshes its own token once, its answer lost: it retries within the grace, its
      // successor never used (A's use of generation 2 is not B's successor being used)
      expect((await refresh(app, b1.refresh_token)).status).toBe(200);
      const retried = await refresh(app, b1.refresh_token);
      expect(retried.status).toBe(200);
      const b2 = await retried.json() as TokenSet;
      // both chains live, each keeping to its own tokens
      expect(await userinfoStatus(app, b2.access_token)).toBe(200);
      expect(await userinfoStatus(app, a3.access_token)).toBe(200);
      expect((await refresh(app, b2.refresh_token)).status).toBe(200);
      expect((await refresh(app, a3.refresh_token)).status).toBe(200);
    });

    it('across forks, a token the other racer rotated and went on from is reuse: the whole grant ends', async () => {
      const tokens = await signIn(app);
      const a1 = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const b1 = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const a2 = await (await refresh(app, a1.refresh_token)).json() as TokenSet;
      const a3 = await (await refresh(app, a2.refresh_token)).json() as TokenSet;
      // A's token, whose successor A used, presented again (by B or a thief holding it)
      const crossed = await refresh(app, a1.refresh_token);
      expect(crossed.status).toBe(400);
      expect((await crossed.json()).error).toBe('invalid_grant');
      expect(await userinfoStatus(app, a3.access_token)).toBe(401);
      expect((await refresh(app, a3.refresh_token)).status).toBe(400);
      expect((await refresh(app, b1.refresh_token)).status).toBe(400);
    });

    it('two concurrent refreshes of one token both succeed, for the same grant', async () => {
      const tokens = await signIn(app);
      const [a, b] = await Promise.all([refresh(app, tokens.refresh_token), refresh(app, tokens.refresh_token)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const [ta, tb] = await Promise.all([a.json() as Promise<TokenSet>, b.json() as Promise<TokenSet>]);
      expect(ta.refresh_token).not.toBe(tb.refresh_token);
      expect(await userinfoStatus(app, ta.access_token)).toBe(200);
      expect(await userinfoStatus(app, tb.access_token)).toBe(200);
      expect(await userinfoStatus(app, tokens.access_token)).toBe(200);
    });

    it('reuse after the successor was used revokes the whole grant', async () => {
      const tokens = await signIn(app);
      const first = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const second = await (await refresh(app, first.refresh_token)).json() as TokenSet;
      const replay = await refresh(app, tokens.refresh_token);
      expect(replay.status).toBe(400);
      expect((await replay.json()).error).toBe('invalid_grant');
      expect(await userinfoStatus(app, second.access_token)).toBe(401);
      expect((await refresh(app, second.refresh_token)).status).toBe(400);
    });

    it('reuse sent with a scope the token does not hold is refused invalid_scope and still revokes the whole grant', async () => {
      const tokens = await signIn(app);
      const first = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const second = await (await refresh(app, first.refresh_token)).json() as TokenSet;
      // oidc-provider checks the scope before the token's state: the refusal is invalid_scope
      const replay = await refresh(app, tokens.refresh_token, MEMBER.clientId, { scope: 'openid account:read courses:write' });
      expect(replay.status).toBe(400);
      expect((await replay.json()).error).toBe('invalid_scope');
      expect(await userinfoStatus(app, second.access_token)).toBe(401);
      expect((await refresh(app, second.refresh_token)).status).toBe(400);
    });

    it('reuse refused because its account was not found at that moment still revokes the whole grant', async () => {
      // oidc-provider looks the account up before the token's state: the refusal is
      // "referenced account not found", and the grant's reuse would go unnoticed
      const { hidden, own } = await appWithHideableAccounts(kind);
      try {
        const tokens = await signIn(own);
        const first = await (await refresh(own, tokens.refresh_token)).json() as TokenSet;
        const second = await (await refresh(own, first.refresh_token)).json() as TokenSet;
        hidden.add('acc-student');
        const replay = await refresh(own, tokens.refresh_token);
        expect(replay.status).toBe(400);
        expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
        hidden.delete('acc-student');
        expect(await userinfoStatus(own, second.access_token)).toBe(401);
        expect((await refresh(own, second.refresh_token)).status).toBe(400);
      } finally {
        await own.stop();
      }
    });

    it('a fresh token refused because its account was not found at that moment: the grant lives on', async () => {
      const { hidden, own } = await appWithHideableAccounts(kind);
      try {
        const tokens = await signIn(own);
        const first = await (await refresh(own, tokens.refresh_token)).json() as TokenSet;
        hidden.add('acc-student');
        expect((await refresh(own, first.refresh_token)).status).toBe(400);
        hidden.delete('acc-student');
        expect(await userinfoStatus(own, first.access_token)).toBe(200);
        expect((await refresh(own, first.refresh_token)).status).toBe(200);
      } finally {
        await own.stop();
      }
    });

    it('a retry within the grace sent with a scope the token does not hold is refused, and the grant lives on', async () => {
      const tokens = await signIn(app);
      const first = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const retried = await refresh(app, tokens.refresh_token, MEMBER.clientId, { scope: 'openid account:read courses:write' });
      expect(retried.status).toBe(400);
      expect((await retried.json()).error).toBe('invalid_scope');
      expect(await userinfoStatus(app, first.access_token)).toBe(200);
      expect((await refresh(app, first.refresh_token)).status).toBe(200);
    });

    it('a fresh token sent with a scope it does not hold is refused, and the grant lives on', async () => {
      const tokens = await signIn(app);
      const refused = await refresh(app, tokens.refresh_token, MEMBER.clientId, { scope: 'openid account:read courses:write' });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toBe('invalid_scope');
      expect(await userinfoStatus(app, tokens.access_token)).toBe(200);
      expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
    });

    it('reuse whose revocation failed is still reuse when retried: the grant ends', async () => {
      const faults = revocationFaults(await storage(kind));
      const faulty = await startApp({ auth: { adapter: faults } });
      try {
        const tokens = await signIn(faulty);
        const first = await (await refresh(faulty, tokens.refresh_token)).json() as TokenSet;
        const second = await (await refresh(faulty, first.refresh_token)).json() as TokenSet;
        faults.failRevocations(true);
        const replay = await refresh(faulty, tokens.refresh_token);
        expect(replay.status).toBe(503);
        expect((await replay.json()).error).toBe('temporarily_unavailable');
        faults.failRevocations(false);
        // the client retries, as told: the reused token is found again and the grant revoked
        const retried = await refresh(faulty, tokens.refresh_token);
        expect(retried.status).toBe(400);
        expect((await retried.json()).error).toBe('invalid_grant');
        expect(await userinfoStatus(faulty, second.access_token)).toBe(401);
        expect((await refresh(faulty, second.refresh_token)).status).toBe(400);
      } finally {
        await faulty.stop();
      }
    });

    it('reuse by another client revokes the whole grant', async () => {
      const tokens = await signIn(app);
      const rotated = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const op = operator(app.baseUrl, app.operatorSecret);
      const foreign = await refresh(app, tokens.refresh_token, op.clientId, { client_secret: op.clientSecret });
      expect(foreign.status).toBe(400);
      expect((await foreign.json()).error).toBe('invalid_grant');
      expect(await userinfoStatus(app, rotated.access_token)).toBe(401);
      expect((await refresh(app, rotated.refresh_token)).status).toBe(400);
    });

    it('reuse by another client whose revocation failed is answered 503, and the retry ends the grant', async () => {
      const faults = revocationFaults(await storage(kind));
      const faulty = await startApp({ auth: { adapter: faults } });
      try {
        const tokens = await signIn(faulty);
        const rotated = await (await refresh(faulty, tokens.refresh_token)).json() as TokenSet;
        const op = operator(faulty.baseUrl, faulty.operatorSecret);
        faults.failRevocations(true);
        const foreign = await refresh(faulty, tokens.refresh_token, op.clientId, { client_secret: op.clientSecret });
        // not a 400 with the grant still alive: the client is told to come back
        expect(foreign.status).toBe(503);
        expect((await foreign.json()).error).toBe('temporarily_unavailable');
        expect(await userinfoStatus(faulty, rotated.access_token)).toBe(200);
        faults.failRevocations(false);
        const retried = await refresh(faulty, tokens.refresh_token, op.clientId, { client_secret: op.clientSecret });
        expect(retried.status).toBe(400);
        expect((await retried.json()).error).toBe('invalid_grant');
        expect(await userinfoStatus(faulty, rotated.access_token)).toBe(401);
        expect((await refresh(faulty, rotated.refresh_token)).status).toBe(400);
      } finally {
        await faulty.stop();
      }
    });
  });

  describe('with a 1 s grace', () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await startApp({ auth: { adapter: await storage(kind), refreshTokenGrace: 1 } });
    });
    afterAll(() => app.stop());

    it('reuse after the grace revokes the whole grant', async () => {
      const tokens = await signIn(app);
      const rotated = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const replay = await refresh(app, tokens.refresh_token);
      expect(replay.status).toBe(400);
      expect((await replay.json()).error).toBe('invalid_grant');
      expect(await userinfoStatus(app, rotated.access_token)).toBe(401);
    });

    it('a refresh refused for its resource rotates nothing: the corrected retry after the grace keeps the grant', async () => {
      const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: `${app.baseUrl}/` }, STUDENT);
      const otherSpelling = await refresh(app, tokens.refresh_token, MEMBER.clientId, { resource: app.baseUrl });
      expect(otherSpelling.status).toBe(400);
      expect((await otherSpelling.json()).error).toBe('invalid_target');
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const corrected = await refresh(app, tokens.refresh_token, MEMBER.clientId, { resource: `${app.baseUrl}/` });
      expect(corrected.status).toBe(200);
      expect(await userinfoStatus(app, tokens.access_token)).toBe(200);
      expect(await userinfoStatus(app, (await corrected.json() as TokenSet).access_token)).toBe(200);
    });
  });

  describe('with the grace off (strict single use)', () => {
    let app: RunningApp;
    let store: ReturnType<typeof faultable>;
    beforeAll(async () => {
      store = faultable(await storage(kind));
      app = await startApp({ auth: { adapter: store, refreshTokenGrace: 0 } });
    });
    afterAll(() => app.stop());

    it('the same retry after a storage failure is reuse: the grant is lost', async () => {
      const tokens = await signIn(app);
      store.armSaveFailure();
      expect((await refresh(app, tokens.refresh_token)).status).toBe(503);
      const retried = await refresh(app, tokens.refresh_token);
      expect(retried.status).toBe(400);
      expect((await retried.json()).error).toBe('invalid_grant');
      expect(await userinfoStatus(app, tokens.access_token)).toBe(401);
    });

    it('reuse sent with a scope the token does not hold is refused invalid_scope and still revokes the whole grant', async () => {
      const tokens = await signIn(app);
      const next = await (await refresh(app, tokens.refresh_token)).json() as TokenSet;
      const replay = await refresh(app, tokens.refresh_token, MEMBER.clientId, { scope: 'openid account:read courses:write' });
      expect(replay.status).toBe(400);
      expect((await replay.json()).error).toBe('invalid_scope');
      expect(await userinfoStatus(app, next.access_token)).toBe(401);
    });

    it('a token rotated by an instance with the grace on is reuse here: the grant ends (a rolling deploy, or the grace turned off)', async () => {
      const lenient = await startApp({ auth: { adapter: store } });
      try {
        const tokens = await signIn(lenient);
        const next = await (await refresh(lenient, tokens.refresh_token)).json() as TokenSet;
        const latest = await (await refresh(lenient, next.refresh_token)).json() as TokenSet;
        // the first token again, at the instance without the grace (one store, its own issuer)
        const strictTokens = await postForm(`${app.baseUrl}/api/oauth/token`, {
          grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId,
        });
        expect(strictTokens.status).toBe(400);
        expect((await strictTokens.json()).error).toBe('invalid_grant');
        expect(await userinfoStatus(lenient, latest.access_token)).toBe(401);
        expect((await refresh(lenient, latest.refresh_token)).status).toBe(400);
      } finally {
        await lenient.stop();
      }
    });

    it('reuse whose revocation failed is still reuse when retried: the grant ends, the other holder\'s token refused', async () => {
      const faults = revocationFaults(await storage(kind));
      const strict = await startApp({ auth: { adapter: faults, refreshTokenGrace: 0 } });
      try {
        const tokens = await signIn(strict);
        // a thief rotates the stolen token first
        const thief = await (await refresh(strict, tokens.refresh_token)).json() as TokenSet;
        faults.failRevocations(true);
        // the member presents it: reuse, whose revocation meets a fault (the token's own delete would not)
        const replay = await refresh(strict, tokens.refresh_token);
        expect(replay.status).toBe(503);
        expect((await replay.json()).error).toBe('temporarily_unavailable');
        faults.failRevocations(false);
        // the member retries, as told: the reused token is found again and the grant revoked
        const retried = await refresh(strict, tokens.refresh_token);
        expect(retried.status).toBe(400);
        expect((await retried.json()).error).toBe('invalid_grant');
        expect(await userinfoStatus(strict, thief.access_token)).toBe(401);
        expect((await refresh(strict, thief.refresh_token)).status).toBe(400);
      } finally {
        await strict.stop();
      }
    });

    it('a token consumed here is reuse at an instance with the grace, and its failed revocation is retried there too', async () => {
      const faults = revocationFaults(await storage(kind));
      const strict = await startApp({ auth: { adapter: faults, refreshTokenGrace: 0 } });
      const lenient = await startApp({ auth: { adapter: faults } });
      try {
        const tokens = await signIn(strict);
        // a thief rotates the stolen token where the grace is 0: the storage consumes it
        const thief = await (await refresh(strict, tokens.refresh_token)).json() as TokenSet;
        faults.failRevocations(true);
        // the member presents it at an instance with the grace (a rolling deploy): reuse, whose revocation meets a fault
        const replay = await refresh(lenient, tokens.refresh_token);
        expect(replay.status).toBe(503);
        faults.failRevocations(false);
        // the retry finds the reused token again, not "not found": the grant is revoked
        const retried = await refresh(lenient, tokens.refresh_token);
        expect(retried.status).toBe(400);
        expect((await retried.json()).error).toBe('invalid_grant');
        // the thief's tokens, at the instance that issued them (each instance its own issuer)
        expect(await userinfoStatus(strict, thief.access_token)).toBe(401);
        expect((await refresh(strict, thief.refresh_token)).status).toBe(400);
      } finally {
        await lenient.stop();
        await strict.stop();
      }
    });

    it('of two concurrent refreshes exactly one succeeds', async () => {
      const tokens = await signIn(app);
      const responses = await Promise.all([refresh(app, tokens.refresh_token), refresh(app, tokens.refresh_token)]);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 400]);
    });
  });
});
