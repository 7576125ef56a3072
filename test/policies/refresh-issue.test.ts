/**
 * A refresh's successor refresh token is confirmed at once and written with the access token
 * of its grant, whose save waits for it: no refresh answer can carry a refresh token that was
 * not stored. Without HTTP; test/e2e/refresh-grace.test.ts shows the 503 a failed write gives.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { AdapterFactory, AdapterPayload } from '../../adapters/types.ts';
import { withRefreshGrace } from '../../lib/policies/refresh-grace.ts';
import { SuccessorWrites, withAccessTokensAfterRefresh } from '../../lib/policies/refresh-issue.ts';
import { DelegatingAdapter } from '../../lib/storage/model-decorator.ts';

/** A promise and its settlers, to decide when a write completes. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settled = async (promise: Promise<unknown>) => {
  let state = 'pending';
  promise.then(() => { state = 'resolved'; }, () => { state = 'rejected'; });
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('SuccessorWrites and the access token that waits for them', () => {
  /** the request being served, as `Provider.ctx` names it */
  let request: object | undefined;
  const accessTokens = (successors: SuccessorWrites) =>
    withAccessTokensAfterRefresh(createMemoryAdapter() as AdapterFactory, successors, () => request)('AccessToken');

  it('the access token of the same request waits for its successor write, and fails with it', async () => {
    const successors = new SuccessorWrites();
    const tokens = accessTokens(successors);
    request = {};
    const write = deferred();
    successors.hold(request, write.promise);
    const saving = tokens.upsert('at1', { grantId: 'g1' }, 60);
    expect(await settled(saving)).toBe('pending');
    write.reject(new StorageUnavailableError('injected'));
    await expect(saving).rejects.toThrow(StorageUnavailableError);
    // taken: a later access token of the request does not wait again
    expect(await settled(tokens.upsert('at2', { grantId: 'g1' }, 60))).toBe('resolved');
  });

  it('an access token of another request, or outside any, does not wait', async () => {
    const successors = new SuccessorWrites();
    const tokens = accessTokens(successors);
    successors.hold({}, deferred().promise);
    request = {};
    expect(await settled(tokens.upsert('at1', { grantId: 'g1' }, 60))).toBe('resolved');
    request = undefined;
    expect(await settled(tokens.upsert('at2', { grantId: 'g1' }, 60))).toBe('resolved');
  });

  it('overlapping refreshes of one grant: each access token waits for its own request\'s write', async () => {
    const successors = new SuccessorWrites();
    const tokens = accessTokens(successors);
    const a = {};
    const b = {};
    const writeA = deferred();
    const writeB = deferred();
    successors.hold(a, writeA.promise);
    successors.hold(b, writeB.promise);
    // B's access token first, then A's (A awaited I/O between its two saves)
    request = b;
    const savingB = tokens.upsert('atB', { grantId: 'g1' }, 60);
    request = a;
    const savingA = tokens.upsert('atA', { grantId: 'g1' }, 60);
    writeB.resolve();
    await savingB;
    expect(await settled(savingA)).toBe('pending');
    writeA.reject(new StorageUnavailableError('injected'));
    await expect(savingA).rejects.toThrow(StorageUnavailableError);
  });

  it('a failed write nobody waits for is no unhandled rejection and never reaches another request', async () => {
    const successors = new SuccessorWrites();
    const tokens = accessTokens(successors);
    const write = deferred();
    successors.hold({}, write.promise);
    write.reject(new Error('lost'));
    await new Promise((resolve) => setImmediate(resolve));
    request = {};
    expect(await settled(tokens.upsert('at1', { grantId: 'g1' }, 60))).toBe('resolved');
  });
});

describe('a rotation through the grace rule', () => {
  it('the successor is confirmed before it is written; the access token saved after it waits for that write', async () => {
    const inner = createMemoryAdapter();
    const refreshWrite = deferred();
    const gated = Object.assign((model: string) => {
      const adapter = inner(model);
      if (model !== 'RefreshToken') return adapter;
      return new (class extends DelegatingAdapter {
        override upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
          // the successor's write completes when the test says so
          return payload.rotations === 1 ? refreshWrite.promise.then(() => super.upsert(id, payload, expiresIn)) : super.upsert(id, payload, expiresIn);
        }
      })(adapter);
    }, { putRecords: inner.putRecords.bind(inner) });
    const request = {};
    const factory = withRefreshGrace(gated as AdapterFactory, { graceSeconds: 30, request: () => request });
    const refreshTokens = factory('RefreshToken');
    const accessTokens = factory('AccessToken');
    await refreshTokens.upsert('rt0', { grantId: 'g1', exp: 2_000_000_000 }, 3600);
    await refreshTokens.find('rt0');
    await refreshTokens.consume('rt0');
    // what oidc-provider's refresh grant awaits, in its order
    expect(await settled(refreshTokens.upsert('rt1', { grantId: 'g1', rotations: 1, exp: 2_000_000_000 }, 3600))).toBe('resolved');
    const accessSaved = accessTokens.upsert('at1', { grantId: 'g1' }, 60);
    expect(await settled(accessSaved)).toBe('pending');
    expect(await inner('RefreshToken').find('rt1')).toBeUndefined();
    refreshWrite.resolve();
    await accessSaved;
    expect(await inner('RefreshToken').find('rt1')).toMatchObject({ rotations: 1 });
    expect(await inner('RefreshToken').find('rt0')).toMatchObject({ rotatedAt: expect.any(Number) });
  });
});
