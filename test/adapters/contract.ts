/**
 * The storage contract (adapters/types.ts) as tests: every adapter runs this suite.
 *
 * Ids are random per test, so the tests share one store without seeing each other's data.
 * Every record gets a TTL, so nothing is left behind in a shared Redis.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import type { Adapter, AdapterPayload, ClosableAdapterFactory, CompareAndSet, ConsumeAndKeep, FindSpending, PutRecords, SpendBudget } from '../../adapters/types.ts';

export interface ContractSetup {
  factory: ClosableAdapterFactory;
  teardown(): Promise<void>;
}

const TTL = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const uid = () => randomUUID();
const epoch = () => Math.floor(Date.now() / 1000);

/** A payload with the shapes a JSON round trip could damage: empty arrays and objects, nesting. */
function samplePayload(extra: AdapterPayload = {}): AdapterPayload {
  return {
    accountId: 'account-1',
    clientId: 'client-1',
    scope: 'openid offline_access',
    claims: { id_token: { email: null }, userinfo: {} },
    resource: [],
    extra: { nested: { list: [1, 'two', { three: 3 }], empty: [] }, bigish: 1_700_000_000_123 },
    iat: epoch(),
    exp: epoch() + TTL,
    ...extra,
  } as AdapterPayload;
}

export function describeAdapterContract(name: string, setup: () => Promise<ContractSetup>): void {
  describe(`${name} adapter contract`, () => {
    let factory: ClosableAdapterFactory;
    let teardown: () => Promise<void>;

    beforeAll(async () => {
      ({ factory, teardown } = await setup());
    });

    afterAll(async () => {
      await teardown?.();
    });

    /** A grant with an authorization code and an access token of its own. */
    async function grantWithCode() {
      const grantId = uid();
      const codeId = uid();
      const tokenId = uid();
      await factory('Grant').upsert(grantId, { jti: grantId }, TTL);
      await factory('AuthorizationCode').upsert(codeId, samplePayload({ grantId }), TTL);
      await factory('AccessToken').upsert(tokenId, samplePayload({ grantId }), TTL);
      return { grantId, codeId, tokenId };
    }

    test('upsert then find returns an equal payload', async () => {
      const adapter = factory('AccessToken');
      const id = uid();
      const payload = samplePayload({ grantId: uid() });
      await adapter.upsert(id, payload, TTL);
      expect(await adapter.find(id)).toEqual(payload);
    });

    test('the store is isolated from the objects passed in and handed out', async () => {
      const adapter = factory('Session');
      const id = uid();
      const payload = samplePayload();
      const original = structuredClone(payload);
      await adapter.upsert(id, payload, TTL);
      (payload.extra as { nested: { list: unknown[] } }).nested.list.push('mutated');
      payload.accountId = 'mutated';

      const found = (await adapter.find(id))!;
      expect(found).toEqual(original);
      found.accountId = 'mutated again';
      (found.extra as { nested: { list: unknown[] } }).nested.list.length = 0;
      expect(await adapter.find(id)).toEqual(original);
    });

    test('a record reads back as its JSON: a Date as its ISO string, no undefined member', async () => {
      // every adapter answers alike, so code tested on memory behaves the same on Redis
      const adapter = factory('Session');
      const id = uid();
      const at = new Date('2026-03-01T09:00:00.000Z');
      await adapter.upsert(id, { ...samplePayload(), at, gone: undefined } as unknown as AdapterPayload, TTL);
      const found = (await adapter.find(id))!;
      expect(found.at).toBe('2026-03-01T09:00:00.000Z');
      expect(Object.hasOwn(found, 'gone')).toBe(false);
    });

    test('upsert replaces the stored payload', async () => {
      const adapter = factory('Interaction');
      const id = uid();
      await adapter.upsert(id, samplePayload({ accountId: 'first' }), TTL);
      await adapter.upsert(id, samplePayload({ accountId: 'second' }), TTL);
      expect((await adapter.find(id))?.accountId).toBe('second');
    });

    test('a record rewritten under the same indexes keeps following them', async () => {
      const tokens = factory('RefreshToken');
      const id = uid();
      const [grantId, sessionUid] = [uid(), uid()];
      await tokens.upsert(id, samplePayload({ grantId, uid: sessionUid }), TTL);
      // as a rotated refresh token is marked: same id, same grant and uid
      await tokens.upsert(id, samplePayload({ grantId, uid: sessionUid, rotatedAt: 1 }), TTL);
      expect(await tokens.findByUid(sessionUid)).toMatchObject({ rotatedAt: 1 });
      await tokens.revokeByGrantId(grantId);
      expect(await tokens.find(id)).toBeUndefined();
      expect(await tokens.findByUid(sessionUid)).toBeUndefined();
    });

    test('find of an unknown id is undefined', async () => {
      expect(await factory('AccessToken').find(uid())).toBeUndefined();
      expect(await factory('Session').findByUid(uid())).toBeUndefined();
      expect(await factory('DeviceCode').findByUserCode(uid())).toBeUndefined();
    });

    test('every model name stores and finds', async () => {
      const models = [
        'Session', 'Interaction', 'AuthorizationCode', 'AccessToken', 'RefreshToken',
        'ClientCredentials', 'DeviceCode', 'BackchannelAuthenticationRequest', 'Grant',
        'Client', 'InitialAccessToken', 'RegistrationAccessToken', 'ReplayDetection',
        'PushedAuthorizationRequest', 'PreAuthorizedCode', 'GrantContext',
      ];
      const id = uid();
      await Promise.all(models.map((model) => factory(model).upsert(id, { model, grantId: uid() }, TTL)));
      for (const model of models) {
        expect(await factory(model).find(id)).toEqual(expect.objectContaining({ model }));
      }
    });

    test('records expire after expiresIn seconds', async () => {
      const adapter = factory('Session');
      const id = uid();
      const sessionUid = uid();
      await adapter.upsert(id, samplePayload({ uid: sessionUid }), 1);
      expect(await adapter.find(id)).toBeDefined();
      await sleep(1_200);
      expect(await adapter.find(id)).toBeUndefined();
      expect(await adapter.findByUid(sessionUid)).toBeUndefined();
    });

    test('records are not evicted before they expire (5000 access tokens)', async () => {
      const adapter = factory('AccessToken');
      const ids = Array.from({ length: 5_000 }, () => uid());
      // in batches: the property is eviction, not how many calls fit in one call's deadline
      // (each call settles within 3 s on Redis, and a loaded CI machine runs six Cluster nodes)
      const inBatches = async <T>(run: (id: string) => Promise<T>): Promise<T[]> => {
        const results: T[] = [];
        for (let i = 0; i < ids.length; i += 500) results.push(...await Promise.all(ids.slice(i, i + 500).map(run)));
        return results;
      };
      await inBatches((id) => adapter.upsert(id, { accountId: id, grantId: uid() }, TTL));
      const found = await inBatches((id) => adapter.find(id));
      expect(found.filter((payload) => payload?.accountId === undefined)).toHaveLength(0);
      expect(found.every((payload, i) => payload?.accountId === ids[i])).toBe(true);
    });

    test('findByUid finds a record by its uid', async () => {
      const adapter = factory('Session');
      const id = uid();
      const sessionUid = uid();
      const payload = samplePayload({ uid: sessionUid });
      await adapter.upsert(id, payload, TTL);
      expect(await adapter.findByUid(sessionUid)).toEqual(payload);
      expect(await factory('Interaction').findByUid(sessionUid)).toBeUndefined();
    });

    test('findByUid follows a session whose id was reset (new id, same uid)', async () => {
      const adapter = factory('Session');
      const oldId = uid();
      const newId = uid();
      const sessionUid = uid();
      await adapter.upsert(oldId, samplePayload({ uid: sessionUid, accountId: 'old' }), TTL);
      // Session.save after resetIdentifier destroys the old id, then stores the new one;
      // concurrent requests can produce the other order, which must not lose the lookup
      await adapter.upsert(newId, samplePayload({ uid: sessionUid, accountId: 'new' }), TTL);
      await adapter.destroy(oldId);
      expect((await adapter.findByUid(sessionUid))?.accountId).toBe('new');
    });

    test('findByUserCode finds a record by its user code', async () => {
      const adapter = factory('DeviceCode');
      const id = uid();
      const userCode = 'ABCD-' + uid().slice(0, 8);
      const payload = samplePayload({ userCode, grantId: uid() });
      await adapter.upsert(id, payload, TTL);
      expect(await adapter.findByUserCode(userCode)).toEqual(payload);
    });

    test('destroy removes the record and its lookups', async () => {
      const adapter = factory('Session');
      const id = uid();
      const sessionUid = uid();
      await adapter.upsert(id, samplePayload({ uid: sessionUid }), TTL);
      await adapter.destroy(id);
      expect(await adapter.find(id)).toBeUndefined();
      expect(await adapter.findByUid(sessionUid)).toBeUndefined();
      await expect(adapter.destroy(id)).resolves.toBeUndefined();
    });

    test("revokeByGrantId removes the grant's artefacts and Grant record, not another grant's", async () => {
      const models = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'GrantContext'];
      const revoked = uid();
      const kept = uid();
      const ids = new Map(models.map((model) => [model, { revoked: uid(), kept: uid() }]));
      for (const model of models) {
        const { revoked: revokedId, kept: keptId } = ids.get(model)!;
        await factory(model).upsert(revokedId, samplePayload({ grantId: revoked }), TTL);
        await factory(model).upsert(keptId, samplePayload({ grantId: kept }), TTL);
      }
      await factory('Grant').upsert(revoked, { jti: revoked, accountId: 'a' }, TTL);
      await factory('Grant').upsert(kept, { jti: kept, accountId: 'a' }, TTL);

      await factory('AccessToken').revokeByGrantId(revoked);

      for (const model of models) {
        const { revoked: revokedId, kept: keptId } = ids.get(model)!;
        expect(await factory(model).find(revokedId)).toBeUndefined();
        expect(await factory(model).find(keptId)).toEqual(expect.objectContaining({ grantId: kept }));
      }
      expect(await factory('Grant').find(revoked)).toBeUndefined();
      expect(await factory('Grant').find(kept)).toBeDefined();
      await expect(factory('AccessToken').revokeByGrantId(uid())).resolves.toBeUndefined();
    });

    test('revokeByGrantId leaves records of non-grant models alone', async () => {
      const grantId = uid();
      const id = uid();
      await factory('Session').upsert(id, samplePayload({ grantId }), TTL);
      await factory('AccessToken').revokeByGrantId(grantId);
      expect(await factory('Session').find(id)).toBeDefined();
    });

    test('consume marks the record consumed and keeps it otherwise unchanged', async () => {
      const adapter = factory('AuthorizationCode');
      const id = uid();
      const payload = samplePayload({ grantId: uid() });
      await adapter.upsert(id, payload, TTL);
      const before = epoch();
      await adapter.consume(id);
      const found = (await adapter.find(id))!;
      expect(typeof found.consumed).toBe('number');
      expect(found.consumed).toBeGreaterThanOrEqual(before);
      expect(found.consumed).toBeLessThanOrEqual(epoch());
      const { consumed: _, ...rest } = found;
      expect(rest).toEqual(payload);
    });

    test('consume keeps the remaining lifetime', async () => {
      const adapter = factory('AuthorizationCode');
      const id = uid();
      await adapter.upsert(id, samplePayload({ grantId: uid() }), 1);
      await adapter.consume(id);
      expect((await adapter.find(id))?.consumed).toBeDefined();
      await sleep(1_200);
      expect(await adapter.find(id)).toBeUndefined();
    });

    test('consume of an unknown id is a no-op', async () => {
      const adapter = factory('AuthorizationCode');
      const id = uid();
      await expect(adapter.consume(id)).resolves.toBeUndefined();
      expect(await adapter.find(id)).toBeUndefined();
    });

    test('a second consume rejects with invalid_grant and revokes the grant, keeping the replayed artefact', async () => {
      const { grantId, codeId, tokenId } = await grantWithCode();
      await factory('AuthorizationCode').consume(codeId);
      await expect(factory('AuthorizationCode').consume(codeId)).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(await factory('AccessToken').find(tokenId)).toBeUndefined();
      expect(await factory('Grant').find(grantId)).toBeUndefined();
      // the replayed code stays, consumed, so that every later replay is detected as well
      expect((await factory('AuthorizationCode').find(codeId))?.consumed).toEqual(expect.any(Number));
      await expect(factory('AuthorizationCode').consume(codeId)).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    test('a record holding a lone surrogate (a host\'s value, stored as JSON writes it) is consumed, then refused as replayed', async () => {
      const adapter = factory('AuthorizationCode');
      const id = uid();
      const payload = samplePayload({ grantId: uid(), accountId: 'acc-\ud800', nonce: 'n\udfffx' });
      await adapter.upsert(id, payload, TTL);
      await expect(adapter.consume(id)).resolves.toBeUndefined();
      const found = (await adapter.find(id))!;
      expect(found.consumed).toEqual(expect.any(Number));
      // the stored values stay as they were
      expect(found).toMatchObject({ accountId: 'acc-\ud800', nonce: 'n\udfffx' });
      await expect(adapter.consume(id)).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    test('a replay of such a record revokes its own grant, also when the grant id reads like an escape (uD9ab)', async () => {
      // nanoid ids can hold text like "uD9ab": only real \\ud800 escapes may be read around
      const grantId = `g-uD9ab-${uid()}`;
      const codeId = uid();
      const tokenId = uid();
      await factory('Grant').upsert(grantId, { jti: grantId }, TTL);
      await factory('AuthorizationCode').upsert(codeId, samplePayload({ grantId, accountId: 'acc-\ud800' }), TTL);
      await factory('AccessToken').upsert(tokenId, samplePayload({ grantId }), TTL);
      await factory('AuthorizationCode').consume(codeId);
      await expect(factory('AuthorizationCode').consume(codeId)).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(await factory('AccessToken').find(tokenId)).toBeUndefined();
      expect(await factory('Grant').find(grantId)).toBeUndefined();
    });

    test('concurrent consume: exactly one wins, the others get invalid_grant, the grant dies', async () => {
      const grantId = uid();
      const codeId = uid();
      const accessTokenId = uid();
      const refreshTokenId = uid();
      const otherGrantToken = uid();
      await factory('Grant').upsert(grantId, { jti: grantId }, TTL);
      await factory('GrantContext').upsert(grantId, { grantId, orgId: 'org-1' }, TTL);
      await factory('AuthorizationCode').upsert(codeId, samplePayload({ grantId }), TTL);
      await factory('AccessToken').upsert(accessTokenId, samplePayload({ grantId }), TTL);
      await factory('RefreshToken').upsert(refreshTokenId, samplePayload({ grantId }), TTL);
      await factory('AccessToken').upsert(otherGrantToken, samplePayload({ grantId: uid() }), TTL);

      // a fresh adapter instance per caller, as oidc-provider does per request
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => factory('AuthorizationCode').consume(codeId)));

      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      expect(rejected).toHaveLength(19);
      for (const { reason } of rejected) expect((reason as { error?: string }).error).toBe('invalid_grant');

      expect((await factory('AuthorizationCode').find(codeId))?.consumed).toEqual(expect.any(Number));
      expect(await factory('AccessToken').find(accessTokenId)).toBeUndefined();
      expect(await factory('RefreshToken').find(refreshTokenId)).toBeUndefined();
      expect(await factory('GrantContext').find(grantId)).toBeUndefined();
      expect(await factory('Grant').find(grantId)).toBeUndefined();
      expect(await factory('AccessToken').find(otherGrantToken)).toBeDefined();
    });

    test('consumeAndKeep marks the record consumed and keeps it, unchanged otherwise, for the seconds given', async () => {
      const adapter = factory('AuthorizationCode') as Adapter & ConsumeAndKeep;
      const id = uid();
      const payload = samplePayload({ grantId: uid() });
      await adapter.upsert(id, payload, 1);
      const before = epoch();
      await adapter.consumeAndKeep(id, 3);
      await sleep(1_200);
      const found = (await adapter.find(id))!;
      expect(found.consumed).toBeGreaterThanOrEqual(before);
      const { consumed: _, ...rest } = found;
      expect(rest).toEqual(payload);
      await sleep(2_000);
      expect(await adapter.find(id)).toBeUndefined();
    });

    test('consumeAndKeep with a mark writes it as consumedBy; a replay leaves the first consumer\'s; compareAndSet over the record read gives it back', async () => {
      const adapter = factory('AuthorizationCode') as Adapter & ConsumeAndKeep & CompareAndSet;
      const id = uid();
      // its jti is the id, as oidc-provider stores a code (the Redis adapter keeps it as `true`)
      const payload = samplePayload({ grantId: uid(), jti: id });
      await adapter.upsert(id, payload, TTL);
      // any string, JSON escapes included
      const mark = `${uid()} "quoted" \\ é`;
      await adapter.consumeAndKeep(id, TTL, mark);
      const consumed = (await adapter.find(id))!;
      expect(consumed).toEqual({ ...payload, consumed: expect.any(Number), consumedBy: mark });

      await expect(adapter.consumeAndKeep(id, TTL, 'another')).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(await adapter.find(id)).toEqual(consumed);

      // the code-replay rule gives a code back over the record exactly as read
      const { consumed: _c, consumedBy: _b, ...unconsumed } = consumed;
      expect(await adapter.compareAndSet(id, { ...consumed, consumedBy: 'another' }, unconsumed, TTL)).toBe(false);
      expect(await adapter.compareAndSet(id, consumed, unconsumed, TTL)).toBe(true);
      expect(await adapter.find(id)).toEqual(payload);
      // and it can be consumed again, its grant index kept
      await adapter.consumeAndKeep(id, TTL, 'again');
      expect(await adapter.find(id)).toMatchObject({ consumedBy: 'again' });
      await factory('AccessToken').revokeByGrantId(payload.grantId as string);
      expect(await adapter.find(id)).toBeUndefined();
    });

    test('putRecords writes records of several models in one call, each with its lifetime', async () => {
      const { putRecords } = factory as ClosableAdapterFactory & Partial<PutRecords>;
      expect(putRecords).toEqual(expect.any(Function));
      const { grantId, tokenId } = await grantWithCode();
      const use = uid();
      const gone = uid();
      await factory('RefreshTokenUse').upsert(gone, { grantId }, TTL);
      // the rotation's two records, as lib/policies/refresh-grace.ts writes them, and one already expired
      const rewritten = samplePayload({ grantId, rotatedAt: epoch() });
      await putRecords!.call(factory, [
        { model: 'AccessToken', id: tokenId, payload: rewritten, expiresIn: 1 },
        { model: 'RefreshTokenUse', id: use, payload: { grantId }, expiresIn: TTL },
        { model: 'RefreshTokenUse', id: gone, payload: { grantId }, expiresIn: 0 },
      ]);
      expect(await factory('AccessToken').find(tokenId)).toEqual(rewritten);
      expect(await factory('RefreshTokenUse').find(use)).toEqual({ grantId });
      expect(await factory('RefreshTokenUse').find(gone)).toBeUndefined();
      // a record rewritten under its id stays in its grant's index
      await factory('Grant').revokeByGrantId(grantId);
      expect(await factory('AccessToken').find(tokenId)).toBeUndefined();
      // and the lifetime given is kept
      const again = uid();
      await putRecords!.call(factory, [{ model: 'AccessToken', id: again, payload: samplePayload(), expiresIn: 1 }]);
      expect(await factory('AccessToken').find(again)).toBeDefined();
      await sleep(2_000);
      expect(await factory('AccessToken').find(again)).toBeUndefined();
    });

    test('putRecords keeps a record whose lifetime is under a second (only 0 or less is a deletion)', async () => {
      const { putRecords } = factory as ClosableAdapterFactory & Partial<PutRecords>;
      const id = uid();
      const use = uid();
      await putRecords!.call(factory, [
        { model: 'RevokedAccessToken', id, payload: { clientId: 'c' }, expiresIn: 0.5 },
        { model: 'RefreshTokenUse', id: use, payload: { grantId: uid() }, expiresIn: 0.5 },
      ]);
      expect(await factory('RevokedAccessToken').find(id)).toEqual({ clientId: 'c' });
      expect(await factory('RefreshTokenUse').find(use)).toBeDefined();
      await sleep(1_200);
      expect(await factory('RevokedAccessToken').find(id)).toBeUndefined();
      expect(await factory('RefreshTokenUse').find(use)).toBeUndefined();
    });

    test('a refresh-token use answers for its own id only, with its own lifetime (adapters/types.ts)', async () => {
      const { putRecords } = factory as ClosableAdapterFactory & Partial<PutRecords>;
      const grantId = uid();
      const uses = factory('RefreshTokenUse');
      const known = async (...ids: string[]) => Promise.all(ids.map(async (id) => (await uses.find(id)) !== undefined));
      // ids as a grace keyed by grant and generation wrote them: a later one says nothing of an
      // earlier one (the tokens of two forks of a chain share their generations)
      await putRecords!.call(factory, [{ model: 'RefreshTokenUse', id: `${grantId}:2`, payload: { grantId }, expiresIn: TTL }]);
      await uses.upsert(`${grantId}:3`, { grantId }, 1);
      expect(await known(`${grantId}:1`, `${grantId}:2`, `${grantId}:3`, `${grantId}:4`)).toEqual([false, true, true, false]);
      // each keeps its own lifetime: a longer-lived one written later extends no other
      await uses.upsert(`${grantId}:4`, { grantId }, TTL);
      await sleep(1_200);
      expect(await known(`${grantId}:2`, `${grantId}:3`, `${grantId}:4`)).toEqual([true, false, true]);
      // a deletion forgets that one only
      await uses.destroy(`${grantId}:4`);
      expect(await known(`${grantId}:2`, `${grantId}:4`)).toEqual([true, false]);
      // and a rewrite replaces the lifetime, as any record's
      await uses.upsert(`${grantId}:2`, { grantId }, 1);
      await sleep(1_200);
      expect(await known(`${grantId}:2`)).toEqual([false]);
    });

    test('a record kept by consumeAndKeep stays in its grant\'s index past its first lifetime', async () => {
      const grantId = uid();
      const codeId = uid();
      await factory('Grant').upsert(grantId, { jti: grantId }, 1);
      await factory('AuthorizationCode').upsert(codeId, samplePayload({ grantId }), 1);
      await (factory('AuthorizationCode') as Adapter & ConsumeAndKeep).consumeAndKeep(codeId, TTL);
      await sleep(1_200);
      expect(await factory('AuthorizationCode').find(codeId)).toBeDefined();
      // the index outlived the second the code was first stored for, so the grant's revocation finds it
      await factory('AccessToken').revokeByGrantId(grantId);
      expect(await factory('AuthorizationCode').find(codeId)).toBeUndefined();
    });

    test('consumeAndKeep of a consumed record rejects with invalid_grant and revokes the grant; concurrent callers: one wins', async () => {
      const { grantId, codeId, tokenId } = await grantWithCode();
      const results = await Promise.allSettled(Array.from({ length: 10 },
        () => (factory('AuthorizationCode') as Adapter & ConsumeAndKeep).consumeAndKeep(codeId, TTL)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
        expect((result.reason as { error?: string }).error).toBe('invalid_grant');
      }
      expect(await factory('AccessToken').find(tokenId)).toBeUndefined();
      expect(await factory('Grant').find(grantId)).toBeUndefined();
      await expect(factory('AuthorizationCode').consume(codeId)).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    test('consumeAndKeep of an unknown id is a no-op', async () => {
      const adapter = factory('AuthorizationCode') as Adapter & ConsumeAndKeep;
      const id = uid();
      await expect(adapter.consumeAndKeep(id, TTL)).resolves.toBeUndefined();
      expect(await adapter.find(id)).toBeUndefined();
    });

    test('compareAndSet writes only over the expected record, absent included, and can delete', async () => {
      const adapter = factory('SignInThrottle') as Adapter & CompareAndSet;
      const id = uid();
      expect(await adapter.compareAndSet(id, { failures: 1, last: 1 }, { failures: 2, last: 2 }, TTL)).toBe(false);
      expect(await adapter.find(id)).toBeUndefined();
      expect(await adapter.compareAndSet(id, undefined, { failures: 1, last: 1 }, TTL)).toBe(true);
      expect(await adapter.compareAndSet(id, undefined, { failures: 9, last: 9 }, TTL)).toBe(false);
      const stored = await adapter.find(id) ?? undefined;
      expect(stored).toEqual({ failures: 1, last: 1 });
      expect(await adapter.compareAndSet(id, stored, { failures: 2, last: 2 }, TTL)).toBe(true);
      expect(await adapter.compareAndSet(id, stored, { failures: 3, last: 3 }, TTL)).toBe(false);
      expect(await adapter.find(id)).toEqual({ failures: 2, last: 2 });
      expect(await adapter.compareAndSet(id, { failures: 2, last: 2 }, undefined)).toBe(true);
      expect(await adapter.find(id)).toBeUndefined();
    });

    test('compareAndSet sets the TTL and lets exactly one of racing writers win', async () => {
      const id = uid();
      expect(await (factory('SignInThrottle') as Adapter & CompareAndSet).compareAndSet(id, undefined, { n: 0 }, 1)).toBe(true);
      await sleep(1_100);
      expect(await factory('SignInThrottle').find(id)).toBeUndefined();

      const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        (factory('SignInThrottle') as Adapter & CompareAndSet).compareAndSet(id, undefined, { n: i }, TTL)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('spendBudget spends a step while the budget is within its tolerance, and writes nothing beyond it', async () => {
      const adapter = factory('RefreshRate') as Adapter & SpendBudget;
      const id = uid();
      const now = 1_900_000_000_000;
      // tolerance 2000 ms, step 1000 ms: three spends from a full budget, then none
      expect(await adapter.spendBudget(id, now, 2000, 1000)).toEqual({ spent: true, tat: now + 1000 });
      expect(await adapter.spendBudget(id, now, 2000, 1000)).toEqual({ spent: true, tat: now + 2000 });
      expect(await adapter.spendBudget(id, now, 2000, 1000)).toEqual({ spent: true, tat: now + 3000 });
      expect(await adapter.spendBudget(id, now, 2000, 1000)).toEqual({ spent: false, tat: now + 3000 });
      expect(await adapter.find(id)).toEqual({ tat: now + 3000 });
      // a second later one step is back
      expect(await adapter.spendBudget(id, now + 1000, 2000, 1000)).toEqual({ spent: true, tat: now + 4000 });
      // a state in the past is a full budget, never credit beyond it
      expect(await adapter.spendBudget(id, now + 60_000, 0, 500)).toEqual({ spent: true, tat: now + 60_500 });
    });

    test('spendBudget keeps the record until its state is past, and loses no step to racing spenders', async () => {
      const adapter = factory('RefreshRate') as Adapter & SpendBudget;
      const id = uid();
      expect(await adapter.spendBudget(id, Date.now(), 0, 1000)).toMatchObject({ spent: true });
      await sleep(2_100);
      expect(await adapter.find(id)).toBeUndefined();

      const now = Date.now();
      // ten steps of 100 ms within a tolerance of 900 ms: exactly ten of thirty served
      const results = await Promise.all(Array.from({ length: 30 }, () => adapter.spendBudget(id, now, 900, 100)));
      expect(results.filter((r) => r.spent)).toHaveLength(10);
      expect(await adapter.find(id)).toEqual({ tat: now + 1000 });
    });

    test('findSpending reads a token as find does and spends its grant\'s budget for its own client only', async () => {
      const tokens = factory('RefreshToken') as Adapter & FindSpending;
      const grantId = uid();
      const id = uid();
      const other = uid();
      await tokens.upsert(id, samplePayload({ grantId, clientId: 'app' }), TTL);
      await tokens.upsert(other, samplePayload({ clientId: 'app' }), TTL);
      const now = 1_900_000_000_000;
      const spend = { model: 'RefreshRate', clientId: 'app', now, tolerance: 1000, step: 1000 };
      const first = await tokens.findSpending(id, spend);
      expect(first).toEqual({ payload: await tokens.find(id), spent: { spent: true, tat: now + 1000 } });
      expect(await tokens.findSpending(id, spend)).toMatchObject({ spent: { spent: true, tat: now + 2000 } });
      // beyond the tolerance: nothing written, the token still read
      expect(await tokens.findSpending(id, spend)).toEqual({ payload: await tokens.find(id), spent: { spent: false, tat: now + 2000 } });
      expect(await factory('RefreshRate').find(grantId)).toEqual({ tat: now + 2000 });
      // another client's read, a token without a grant, no token: nothing spent
      expect(await tokens.findSpending(id, { ...spend, clientId: 'other-app' })).toEqual({ payload: await tokens.find(id), spent: undefined });
      expect(await tokens.findSpending(other, spend)).toEqual({ payload: await tokens.find(other), spent: undefined });
      expect(await tokens.findSpending(uid(), spend)).toEqual({ payload: undefined, spent: undefined });
      expect(await factory('RefreshRate').find(grantId)).toEqual({ tat: now + 2000 });
    });

    test('findSpending asked for with other reads in one turn (one command on a single Redis) spends for each, losing none', async () => {
      const tokens = factory('RefreshToken') as Adapter & FindSpending;
      const grantId = uid();
      const [a, b, plain] = [uid(), uid(), uid()];
      await tokens.upsert(a, samplePayload({ grantId, clientId: 'app' }), TTL);
      await tokens.upsert(b, samplePayload({ grantId, clientId: 'app' }), TTL);
      await factory('AccessToken').upsert(plain, samplePayload(), TTL);
      const now = 1_900_000_000_000;
      const spend = { model: 'RefreshRate', clientId: 'app', now, tolerance: 1000, step: 1000 };
      const [first, read, second, third] = await Promise.all([
        tokens.findSpending(a, spend), factory('AccessToken').find(plain), tokens.findSpending(b, spend), tokens.findSpending(a, spend),
      ]);
      expect(read).toMatchObject({ clientId: 'client-1' });
      // two steps within the tolerance, the third refused, whichever order they met in (a Cluster's nodes answer apart)
      expect([first.spent, second.spent, third.spent].map((s) => s!.spent).sort()).toEqual([false, true, true]);
      expect(await factory('RefreshRate').find(grantId)).toEqual({ tat: now + 2000 });
      expect(first.payload).toMatchObject({ grantId });
      expect(second.payload).toMatchObject({ grantId });
    });

    test('models are isolated: the same id in two models is two records', async () => {
      const id = uid();
      await factory('AccessToken').upsert(id, { kind: 'access' }, TTL);
      await factory('RefreshToken').upsert(id, { kind: 'refresh' }, TTL);
      expect(await factory('AccessToken').find(id)).toEqual({ kind: 'access' });
      expect(await factory('RefreshToken').find(id)).toEqual({ kind: 'refresh' });
      await factory('AccessToken').destroy(id);
      expect(await factory('AccessToken').find(id)).toBeUndefined();
      expect(await factory('RefreshToken').find(id)).toEqual({ kind: 'refresh' });
    });
  });
}
