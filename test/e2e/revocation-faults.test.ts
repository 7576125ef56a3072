/**
 * A revocation (RFC 7009) cut by a storage fault is retried, not lost. oidc-provider deleted
 * the presented token, then revoked its grant; a fault between the two was answered 503, the
 * client's retry found no token and was answered 200 with nothing revoked: the grant's other
 * tokens kept working and the app stayed in Connected apps. The token is now removed with its
 * grant (lib/provider/revoked-with-grant.ts), so the retry finds it and ends the grant.
 * On a real Redis, killed or refusing at the grant's revocation; the Cluster case (a paused
 * node) is in test/e2e/redis-cluster.test.ts.
 */
import { MEMBER, STUDENT, exchangeCode, obtainCode, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startFaultRig } from '../support/storage-faults.ts';
import type { Fault, FaultRig } from '../support/storage-faults.ts';

const SCOPE = 'openid profile email account:read';
let rig: FaultRig;

beforeAll(async () => {
  rig = await startFaultRig();
}, 60_000);

afterAll(async () => {
  await rig?.stop();
});

const origin = () => `http://127.0.0.1:${rig.app.port}`;
const revoke = (token: string) => postForm(`${origin()}/api/oauth/revoke`, { token, client_id: MEMBER.clientId });
const refresh = (token: string) => postForm(`${origin()}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId });
const introspect = async (token: string) => ((await (await postForm(`${origin()}/api/oauth/introspect`, { token, client_id: MEMBER.clientId })).json()) as { active: boolean }).active;
const grantsOf = async (accountId: string) => new Set((await rig.app.auth.connectedApps.list(accountId)).flatMap((app) => app.grants.map((g) => g.grantId)));

async function signIn(): Promise<{ tokens: TokenSet; grantId: string }> {
  const before = await grantsOf('acc-student');
  const { code, verifier } = await obtainCode(rig.app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
  const res = await exchangeCode(origin(), MEMBER, code, verifier);
  expect(res.status).toBe(200);
  const grantId = [...await grantsOf('acc-student')].find((id) => !before.has(id));
  expect(grantId).toBeDefined();
  return { tokens: await res.json() as TokenSet, grantId: grantId! };
}

const cases: [string, 'access' | 'refresh', Fault][] = [
  ['an access token, Redis killed at the grant\'s revocation', 'access', { model: 'AccessToken', method: 'revokeByGrantId', when: 'before', action: 'kill' }],
  ['an access token, the grant\'s revocation refused once', 'access', { model: 'AccessToken', method: 'revokeByGrantId', when: 'before', action: 'refuse' }],
  ['a refresh token, Redis killed at the grant\'s revocation', 'refresh', { model: 'AccessToken', method: 'revokeByGrantId', when: 'before', action: 'kill' }],
  ['a refresh token, the grant\'s revocation refused once', 'refresh', { model: 'RefreshToken', method: 'revokeByGrantId', when: 'before', action: 'refuse' }],
];

it.each(cases)('a revocation answered 503 ends the grant when retried (%s)', async (_name, which, fault) => {
  const { tokens, grantId } = await signIn();
  const presented = which === 'access' ? tokens.access_token : tokens.refresh_token;
  rig.arm(fault);
  const first = await revoke(presented);
  await rig.recover();
  expect(first.status).toBe(503);
  // the client retries, as told
  expect((await revoke(presented)).status).toBe(200);
  expect((await grantsOf('acc-student')).has(grantId)).toBe(false);
  expect(await introspect(tokens.access_token)).toBe(false);
  expect((await refresh(tokens.refresh_token)).status).toBe(400);
}, 60_000);

/**
 * Redis killed right after the presented token's own delete was written, where oidc-provider
 * deletes it before revoking the grant: that delete is no longer sent, so the fault is not met
 * and the revocation takes effect at once; were it met, the retry must still end the grant.
 */
it.each<[string, 'access' | 'refresh', Fault]>([
  ['an access token', 'access', { model: 'AccessToken', method: 'destroy', when: 'after', action: 'kill' }],
  ['a refresh token', 'refresh', { model: 'RefreshToken', method: 'destroy', when: 'after', action: 'kill' }],
])('Redis killed once %s\'s own delete was written: the grant ends, at once or on the retry', async (_name, which, fault) => {
  const { tokens, grantId } = await signIn();
  const presented = which === 'access' ? tokens.access_token : tokens.refresh_token;
  rig.arm(fault);
  const statuses = [(await revoke(presented)).status];
  await rig.recover();
  if (statuses[0] === 503) statuses.push((await revoke(presented)).status);
  expect(statuses.at(-1)).toBe(200);
  expect((await grantsOf('acc-student')).has(grantId)).toBe(false);
  expect(await introspect(tokens.access_token)).toBe(false);
  expect((await refresh(tokens.refresh_token)).status).toBe(400);
}, 60_000);

it('a revocation without a fault ends the grant as before, the presented token included', async () => {
  const { tokens, grantId } = await signIn();
  expect((await revoke(tokens.access_token)).status).toBe(200);
  expect((await grantsOf('acc-student')).has(grantId)).toBe(false);
  expect(await introspect(tokens.access_token)).toBe(false);
  expect((await refresh(tokens.refresh_token)).status).toBe(400);
  // a second revocation of the same token: nothing left, still 200 (RFC 7009 §2.2)
  expect((await revoke(tokens.access_token)).status).toBe(200);
});
