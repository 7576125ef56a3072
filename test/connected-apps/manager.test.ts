/**
 * `auth.connectedApps` over real HTTP flows (the demo host, in-memory storage): what a
 * member's list shows after real sign-ins (name, site, scopes, first and last use), that a
 * refresh counts as a use, that one account can never see or revoke another's, and that
 * revoking ends every token of the grant at once (access, refresh, an unredeemed code).
 */
import { Browser } from '../support/browser.ts';
import { ADMIN, MEMBER, STUDENT, exchangeCode, obtainCode, obtainTokens, operator, postForm } from '../support/flows.ts';
import type { TokenSet } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile email account:read';
const epoch = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let app: RunningApp;

beforeEach(async () => {
  app = await startApp();
});
afterEach(() => app.stop());

function userinfo(token: string) {
  return fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
}

function refresh(token: string, clientId: string = MEMBER.clientId) {
  return postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
}

async function expectDead(tokens: TokenSet): Promise<void> {
  const info = await userinfo(tokens.access_token);
  expect(info.status).toBe(401);
  expect(info.headers.get('www-authenticate')).toContain('error="invalid_token"');
  const refreshed = await refresh(tokens.refresh_token);
  expect({ status: refreshed.status, error: (await refreshed.json()).error }).toEqual({ status: 400, error: 'invalid_grant' });
}

const memberTokens = () => obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);

describe('list', () => {
  it('shows an app the member authorized: name, site, scopes in catalogue order, first and last use', async () => {
    const before = epoch();
    await obtainTokens(app.baseUrl, MEMBER, { scope: 'account:read email openid' }, STUDENT);
    const after = epoch();
    const apps = await app.auth.connectedApps.list('acc-student');
    expect(apps).toEqual([{
      clientId: 'demo-member-app',
      name: 'Demo Member App',
      audience: 'member',
      sites: [{ id: 'demo-school', name: 'Demo School' }],
      scopes: ['openid', 'email', 'account:read'],
      firstUsedAt: expect.any(Number),
      lastUsedAt: expect.any(Number),
      grants: [expect.objectContaining({ grantId: expect.any(String), site: { id: 'demo-school', name: 'Demo School' } })],
    }]);
    const [{ firstUsedAt, lastUsedAt, grants }] = apps as [typeof apps[0]];
    expect(firstUsedAt).toBeGreaterThanOrEqual(before);
    expect(lastUsedAt).toBeGreaterThanOrEqual(firstUsedAt);
    expect(lastUsedAt).toBeLessThanOrEqual(after);
    expect(grants[0]!.expiresAt).toBe(firstUsedAt + app.auth.options.ttl.grant);
    expect(await app.auth.connectedApps.list('acc-admin')).toEqual([]);
  });

  it('moves "last use" on every refresh and leaves "first use" alone', async () => {
    const tokens = await memberTokens();
    const [first] = await app.auth.connectedApps.list('acc-student');
    await sleep(1100);
    const refreshed = await refresh(tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    const [later] = await app.auth.connectedApps.list('acc-student');
    expect(later!.firstUsedAt).toBe(first!.firstUsedAt);
    expect(later!.lastUsedAt).toBeGreaterThan(first!.lastUsedAt);
  });

  it('shows an operator app with the site chosen at consent', async () => {
    const client = operator(app.baseUrl, app.operatorSecret);
    await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    const apps = await app.auth.connectedApps.list('acc-admin');
    expect(apps).toEqual([expect.objectContaining({
      clientId: 'demo-operator-app', name: 'Demo Operator App', audience: 'operator',
      sites: [{ id: 'demo-school', name: 'Demo School' }], scopes: ['openid', 'courses:read'],
    })]);
  });

  it('sums up several grants of one app (two sign-ins) in one entry, most recent use first', async () => {
    await memberTokens();
    await sleep(1100);
    await memberTokens();
    const [entry, ...rest] = await app.auth.connectedApps.list('acc-student');
    expect(rest).toEqual([]);
    expect(entry!.grants).toHaveLength(2);
    expect(entry!.grants[0]!.lastUsedAt).toBeGreaterThan(entry!.grants[1]!.lastUsedAt);
    expect(entry!.firstUsedAt).toBe(entry!.grants[1]!.firstUsedAt);
    expect(entry!.lastUsedAt).toBe(entry!.grants[0]!.lastUsedAt);
  });

  it('drops a grant revoked elsewhere (RFC 7009 revocation of its refresh token) from the list; the index keeps its chain', async () => {
    const tokens = await memberTokens();
    const [listed] = await app.auth.connectedApps.list('acc-student');
    const revoked = await postForm(`${app.baseUrl}/api/oauth/revoke`, { token: tokens.refresh_token, client_id: MEMBER.clientId });
    expect(revoked.status).toBe(200);
    expect(await app.auth.connectedApps.list('acc-student')).toEqual([]);
    // a list deletes nothing (a consent being saved looks the same: consent-race.test.ts); the chain expires by itself
    expect(await app.auth.options.adapter('AccountGrants').find('acc-student')).toMatchObject({ head: listed!.grants[0]!.grantId });
  });

  it('leaves out a member client that was deleted, and revokes its grant', async () => {
    const { client } = await app.auth.memberClients.create('demo-school', {
      name: 'Short-lived', redirectUris: ['http://127.0.0.1/cb'], type: 'public', scopes: ['openid', 'account:read'],
    });
    await obtainTokens(app.baseUrl, { clientId: client.clientId, redirectUri: 'http://127.0.0.1:9999/cb' }, { scope: 'openid account:read' }, STUDENT);
    const [listed] = await app.auth.connectedApps.list('acc-student');
    expect(listed!.name).toBe('Short-lived');
    await app.auth.memberClients.delete('demo-school', client.clientId);
    expect(await app.auth.connectedApps.list('acc-student')).toEqual([]);
    expect(await app.auth.provider.Grant.find(listed!.grants[0]!.grantId)).toBeUndefined();
  });
});

describe('revoke', () => {
  it('by client: every grant of the app, with every access token, refresh token and unredeemed code, at once', async () => {
    const first = await memberTokens();
    const second = await memberTokens();
    const pending = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT, new Browser(app.baseUrl));
    for (const tokens of [first, second]) expect((await userinfo(tokens.access_token)).status).toBe(200);

    expect(await app.auth.connectedApps.revoke('acc-student', { clientId: MEMBER.clientId })).toBe(3);
    await expectDead(first);
    await expectDead(second);
    const exchange = await exchangeCode(app.baseUrl, MEMBER, pending.code, pending.verifier);
    expect({ status: exchange.status, error: (await exchange.json()).error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await app.auth.connectedApps.list('acc-student')).toEqual([]);
    // the member reconnects: the new grant joins the old chain and is the only one listed
    await memberTokens();
    const [again, ...others] = await app.auth.connectedApps.list('acc-student');
    expect(others).toEqual([]);
    expect(again!.grants).toHaveLength(1);
  });

  it('by grant: that grant only', async () => {
    const kept = await memberTokens();
    const gone = await memberTokens();
    const [entry] = await app.auth.connectedApps.list('acc-student');
    const keptGrant = (await app.auth.bearer.verify(kept.access_token)).grantId;
    const goneGrant = entry!.grants.map((g) => g.grantId).find((id) => id !== keptGrant)!;

    expect(await app.auth.connectedApps.revoke('acc-student', { grantId: goneGrant })).toBe(1);
    await expectDead(gone);
    expect((await userinfo(kept.access_token)).status).toBe(200);
    expect((await app.auth.connectedApps.list('acc-student'))[0]!.grants.map((g) => g.grantId)).toEqual([keptGrant]);
  });

  it('never touches another account\'s grant, by client or by grant id', async () => {
    const tokens = await memberTokens();
    const grantId = (await app.auth.bearer.verify(tokens.access_token)).grantId;
    expect(await app.auth.connectedApps.revoke('acc-outsider', { clientId: MEMBER.clientId })).toBe(0);
    expect(await app.auth.connectedApps.revoke('acc-outsider', { grantId })).toBe(0);
    expect(await app.auth.connectedApps.revoke('acc-admin', { grantId })).toBe(0);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
    expect(await app.auth.connectedApps.list('acc-outsider')).toEqual([]);
    expect(await app.auth.connectedApps.list('acc-student')).toHaveLength(1);
  });

  it('answers 0 for an app that is not connected, and refuses a malformed call', async () => {
    expect(await app.auth.connectedApps.revoke('acc-student', { clientId: 'no-such-app' })).toBe(0);
    expect(await app.auth.connectedApps.revoke('acc-student', { grantId: 'no-such-grant' })).toBe(0);
    await expect(app.auth.connectedApps.revoke('', { clientId: MEMBER.clientId })).rejects.toThrow(TypeError);
    await expect(app.auth.connectedApps.revoke('acc-student', {} as never)).rejects.toThrow(TypeError);
    await expect(app.auth.connectedApps.revoke('acc-student', { clientId: 'a', grantId: 'b' } as never)).rejects.toThrow(TypeError);
    await expect(app.auth.connectedApps.list(undefined as never)).rejects.toThrow(TypeError);
  });
});
