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
  it('an access token of the grant waits for its successor write, and fails with it', async () => {
    const successors = new SuccessorWrites();
    const tokens = withAccessTokensAfterRefresh(createMemoryAdapter() as AdapterFactory, successors)('AccessToken');
    const write = deferred();
    successors.hold('g1', write.promise);
    const saving = tokens.upsert('at1', { grantId: 'g1' }, 60);
    expect(await settled(saving)).toBe('pending');
    write.reject(new StorageUnavailableError('injected'));
    await expect(saving).rejects.toThrow(StorageUnavailableError);
    // taken: the grant's next access token does not wait again
    expect(await settled(tokens.upsert('at2', { grantId: 'g1' }, 60))).toBe('resolved');
  });

  it('another grant\'s access token, or one without a grant, does not wait', async () => {
    const successors = new SuccessorWrites();
    const tokens = withAccessTokensAfterRefresh(createMemoryAdapter() as AdapterFactory, successors)('AccessToken');
    successors.hold('g1', deferred().promise);
    expect(await settled(tokens.upsert('at1', { grantId: 'g2' }, 60))).toBe('resolved');
    expect(await settled(tokens.upsert('at2', {}, 60))).toBe('resolved');
  });

  it('a successful write is forgotten once done; a failed one is kept for the next access token', async () => {
    const successors = new SuccessorWrites();
    const ok = deferred();
    successors.hold('g1', ok.promise);
    ok.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(successors.take('g1')).toBeUndefined();
    const failed = deferred();
    successors.hold('g2', failed.promise);
    failed.reject(new Error('lost'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(successors.take('g2')).rejects.toThrow('lost');
  });

  it('two successors of one grant (racing refreshes): the access token waits for both', async () => {
    const successors = new SuccessorWrites();
    const first = deferred();
    const second = deferred();
    successors.hold('g1', first.promise);
    successors.hold('g1', second.promise);
    const waiting = successors.take('g1')!;
    first.resolve();
    expect(await settled(waiting)).toBe('pending');
    second.reject(new Error('second lost'));
    await expect(waiting).rejects.toThrow('second lost');
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
    const factory = withRefreshGrace(gated as AdapterFactory, { graceSeconds: 30 });
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
