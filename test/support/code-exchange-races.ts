/**
 * Code exchanges that race or lose a reply, over HTTP, on the storage a test file gives (the
 * memory adapter, a real Redis): what a 503 gives back (lib/policies/code-replay.ts).
 *
 * The AuthorizationCode adapter's `consumeAndKeep` is scripted per call, everything else is
 * the inner adapter's, so the interleaving is exact, not timed:
 *
 * - the race: two requests redeem one code; the first one's consume waits until the second has
 *   read the code (its consume is called), and then runs; the second one's consume waits for
 *   the first one's and is refused by storage, not applied (the request is answered 503);
 * - a lost reply: a consume is applied and answered as a timeout, as when its reply was lost.
 *
 * @module
 */
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, ClosableAdapterFactory, ConsumeAndKeep } from '../../adapters/types.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from './flows.ts';
import type { TokenSet } from './flows.ts';
import { startApp } from './start-app.ts';
import type { RunningApp } from './start-app.ts';

/** What the next calls of `consumeAndKeep` do, in order; then each goes through. */
type ConsumeStep = (consume: () => Promise<void>) => Promise<void>;

export interface CodeExchangeStorage {
  readonly factory: ClosableAdapterFactory;
  teardown(): Promise<void>;
}

/** A one-shot signal. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => { fire = resolve; });
  return { fire, fired };
}

/** `inner` with its AuthorizationCode `consumeAndKeep` calls scripted by `steps`. */
function scripted(inner: ClosableAdapterFactory, steps: ConsumeStep[]): ClosableAdapterFactory {
  let codes: Adapter | undefined;
  const factory = (model: string): Adapter => {
    if (model !== 'AuthorizationCode') return inner(model);
    if (codes) return codes;
    const adapter = inner(model) as Adapter & ConsumeAndKeep;
    codes = new Proxy(adapter, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'consumeAndKeep') return (value as (...a: unknown[]) => unknown).bind(target);
        // every argument passed on, the consumer's mark included
        return (...args: Parameters<ConsumeAndKeep['consumeAndKeep']>) => {
          const consume = () => target.consumeAndKeep(...args);
          const step = steps.shift();
          return step ? step(consume) : consume();
        };
      },
    });
    return codes;
  };
  // putRecords, close and writesSynchronously as the inner factory has them
  return Object.assign(factory, inner);
}

export function describeCodeExchangeRaces(name: string, open: () => Promise<CodeExchangeStorage>): void {
  describe(`${name}: a code exchange answered 503 gives back only its own consume`, () => {
    let storage: CodeExchangeStorage;
    let app: RunningApp;
    const steps: ConsumeStep[] = [];

    beforeAll(async () => {
      storage = await open();
      app = await startApp({ auth: { adapter: scripted(storage.factory, steps) } });
    });

    afterAll(async () => {
      await app?.stop();
      await storage?.teardown();
    });

    afterEach(() => {
      steps.splice(0);
    });

    const code = () => obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    const exchange = (c: string, verifier: string) => exchangeCode(app.baseUrl, MEMBER, c, verifier, app.baseUrl);
    const userinfo = async (accessToken: string) => (await fetch(`${app.baseUrl}/api/oauth/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    })).status;
    const refresh = (refreshToken: string) => postForm(`${app.baseUrl}/api/oauth/token`, {
      grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId,
    });

    it('two racing redemptions, the loser\'s consume refused by storage: its retry is replay, and the grant is revoked', async () => {
      const { code: c, verifier } = await code();
      const loserCalled = signal();
      const winnerConsumed = signal();
      steps.push(
        // the winner consumes once the loser has read the code too
        async (consume) => {
          await loserCalled.fired;
          await consume();
          winnerConsumed.fire();
        },
        // the loser's consume never reaches storage
        async () => {
          loserCalled.fire();
          await winnerConsumed.fired;
          throw new StorageUnavailableError('test: refused');
        },
      );
      const [winner, loser] = await Promise.all([exchange(c, verifier), exchange(c, verifier)]);
      expect([winner.status, loser.status]).toEqual([200, 503]);
      const tokens = await winner.json() as TokenSet;
      expect(await userinfo(tokens.access_token)).toBe(200);

      // the loser retries its 503, as told to: the code was redeemed already
      const retry = await exchange(c, verifier);
      expect(retry.status).toBe(400);
      expect(await retry.json()).toMatchObject({ error: 'invalid_grant' });
      // redeemed exactly once: the replay revoked the grant, the winner's tokens included
      expect(await userinfo(tokens.access_token)).toBe(401);
      const refreshed = await refresh(tokens.refresh_token);
      expect(refreshed.status).toBe(400);
      expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('a consume applied whose reply was lost (503): its retry redeems the code, once', async () => {
      const { code: c, verifier } = await code();
      steps.push(async (consume) => {
        await consume();
        throw new StorageUnavailableError('test: timeout');
      });
      const first = await exchange(c, verifier);
      expect(first.status).toBe(503);

      const retry = await exchange(c, verifier);
      expect(retry.status).toBe(200);
      const tokens = await retry.json() as TokenSet;
      expect(await userinfo(tokens.access_token)).toBe(200);
      expect((await refresh(tokens.refresh_token)).status).toBe(200);
      // redeemed: used again it is replay as ever
      const replay = await exchange(c, verifier);
      expect(replay.status).toBe(400);
      expect(await userinfo(tokens.access_token)).toBe(401);
    });

    it('a racer refused by storage while the winner\'s consume lost its reply: the winner\'s retry redeems the code, the loser\'s is replay', async () => {
      const { code: c, verifier } = await code();
      const loserCalled = signal();
      const winnerConsumed = signal();
      steps.push(
        // applied, answered as a timeout
        async (consume) => {
          await loserCalled.fired;
          await consume();
          winnerConsumed.fire();
          throw new StorageUnavailableError('test: timeout');
        },
        async () => {
          loserCalled.fire();
          await winnerConsumed.fired;
          throw new StorageUnavailableError('test: refused');
        },
      );
      const answers = await Promise.all([exchange(c, verifier), exchange(c, verifier)]);
      expect(answers.map((answer) => answer.status)).toEqual([503, 503]);

      const retried = await exchange(c, verifier);
      expect(retried.status).toBe(200);
      const tokens = await retried.json() as TokenSet;
      const again = await exchange(c, verifier);
      expect(again.status).toBe(400);
      expect(await userinfo(tokens.access_token)).toBe(401);
    });
  });
}
