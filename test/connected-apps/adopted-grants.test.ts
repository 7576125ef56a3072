/**
 * A grant no consent chained into its account's list (one given under 0.1.0, which kept no
 * chains) is listed in Connected apps, and can be disconnected there, once a token of it is
 * issued (lib/storage/grant-index.ts, GrantIndex.adopt): here its chain records are deleted
 * after a real sign-in, as 0.1.0 left them, and a fresh instance on the same storage sees the
 * app's refresh.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { ACCOUNT_GRANTS_MODEL, GRANT_LINK_MODEL } from '../../lib/storage/grant-index.ts';
import { MEMBER, STUDENT, obtainTokens, postForm } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const adapter = createMemoryAdapter();
let first: RunningApp;
let fresh: RunningApp | undefined;

beforeAll(async () => {
  first = await startApp({ auth: { adapter } });
});
afterAll(async () => {
  await Promise.all([first?.stop(), fresh?.stop()]);
  await adapter.close();
});

it('a grant without a chain joins its account\'s list at its next token, and is disconnected from there', async () => {
  const tokens = await obtainTokens(first.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
  const [listed] = await first.auth.connectedApps.list('acc-student');
  const grantId = listed!.grants[0]!.grantId;
  // as 0.1.0 left it: the grant and its tokens, no chain
  await adapter(ACCOUNT_GRANTS_MODEL).destroy('acc-student');
  await adapter(GRANT_LINK_MODEL).destroy(grantId);
  fresh = await startApp({ baseUrl: first.baseUrl, auth: { adapter } });
  expect(await fresh.auth.connectedApps.list('acc-student')).toEqual([]);

  // the fresh instance itself (its baseUrl is the first's: one issuer)
  const origin = `http://127.0.0.1:${fresh.port}`;
  const refreshed = await postForm(`${origin}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: MEMBER.clientId });
  expect(refreshed.status).toBe(200);
  const next = await refreshed.json() as { access_token: string };
  // chained after the token's answer: listed within moments
  let apps = await fresh.auth.connectedApps.list('acc-student');
  for (const until = Date.now() + 2_000; apps.length === 0 && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    apps = await fresh.auth.connectedApps.list('acc-student');
  }
  expect(apps.map((app) => ({ clientId: app.clientId, grants: app.grants.map((g) => g.grantId) }))).toEqual([{ clientId: MEMBER.clientId, grants: [grantId] }]);

  expect(await fresh.auth.connectedApps.revoke('acc-student', { clientId: MEMBER.clientId })).toBeGreaterThan(0);
  const userinfo = await fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${next.access_token}` } });
  expect(userinfo.status).toBe(401);
});
