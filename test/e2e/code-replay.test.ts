/**
 * A code replayed after its own lifetime still revokes its grant (issue #16): the first
 * redemption's tokens die (UserInfo 401, refresh `invalid_grant`), as they do for a replay
 * within the code's minute.
 *
 * And a code exchange answered 503 gives back only a consume of its own: the loser of a race
 * does not make the winner's code redeemable again (test/support/code-exchange-races.ts; on a
 * real Redis in test/e2e/code-replay-redis.test.ts).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { describeCodeExchangeRaces } from '../support/code-exchange-races.ts';
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;

beforeAll(async () => {
  // expiry is whole epoch seconds: a 1 s code can expire milliseconds after it is issued, so the
  // first redemption on a busy CI machine could find it expired; 3 s leaves it at least 2 s
  app = await startApp({ auth: { ttl: { authorizationCode: 3 } } });
});

afterAll(async () => {
  await app.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function userinfoStatus(accessToken: string): Promise<number> {
  return (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

function refresh(refreshToken: string) {
  return postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId });
}

describe('authorization code replay after the code expired', () => {
  it('is refused and revokes the tokens of the first redemption', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    const first = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
    expect(first.status).toBe(200);
    const tokens = await first.json() as TokenSet;
    expect(await userinfoStatus(tokens.access_token)).toBe(200);

    await sleep(3100); // past the code's 3 s lifetime

    const replay = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    const refreshed = await refresh(tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('an unredeemed code past its lifetime is still only expired', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    await sleep(3100);
    const late = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describeCodeExchangeRaces('memory', async () => {
  const factory = createMemoryAdapter();
  return { factory, teardown: () => factory.close() };
});
