/**
 * The member-client management API (`auth.memberClients`) on the running demo app: the
 * beta gate, input refusals, site scoping (another site's client is `not_found`), rotation,
 * deletion, and that a created client is held to the scopes its operator picked.
 */
import { MemberClientError } from '../../lib/index.ts';
import { isAcceptableRedirect } from '../../lib/policies/client-metadata.ts';
import type { MemberClientInput } from '../../lib/index.ts';
import { Browser, signIn } from '../support/browser.ts';
import { STUDENT, buildAuthorizeUrl, obtainTokens, postForm } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SITE = 'demo-school';
const LOOPBACK = { redirectUris: ['http://127.0.0.1/callback'], flowRedirect: 'http://127.0.0.1:8765/callback' };

const valid = (over: Partial<MemberClientInput> = {}): MemberClientInput => ({
  name: 'Study buddy', redirectUris: ['https://buddy.example/cb'], type: 'confidential', scopes: ['openid', 'profile', 'account:read'], ...over,
});

async function refusal(promise: Promise<unknown>): Promise<MemberClientError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(MemberClientError);
  return err as MemberClientError;
}

describe('with the "MCP connections" beta off everywhere', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { memberClients: { betaEnabled: false } } });
  });
  afterAll(() => app.stop());

  it('refuses creation with access_denied (403), naming the beta, and creates nothing', async () => {
    const err = await refusal(app.auth.memberClients.create(SITE, valid()));
    expect({ code: err.code, status: err.status }).toEqual({ code: 'access_denied', status: 403 });
    expect(err.description).toBe(`OAuth applications need the "MCP connections" beta, which is not enabled for site ${SITE}`);
    expect(await app.auth.memberClients.list(SITE)).toEqual([]);
  });

  it('checks the beta before the input, so the operator learns the real reason first', async () => {
    const err = await refusal(app.auth.memberClients.create(SITE, valid({ scopes: [] })));
    expect(err.code).toBe('access_denied');
  });
});

describe('with at most three applications per site (memberClients.maxPerSite)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { memberClients: { betaEnabled: [SITE], maxPerSite: 3 } } });
  });
  afterAll(() => app.stop());

  it('refuses a fourth with access_denied (403) saying what to do, even when the creates race; a delete makes room', async () => {
    // five at once, as from two instances: the limit is decided on the list each change writes over
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => app.auth.memberClients.create(SITE, valid({ name: `app ${i}` }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as MemberClientError);
    expect(refused.map((e) => [e.code, e.status])).toEqual([['access_denied', 403], ['access_denied', 403]]);
    expect(refused[0]!.description).toBe(`site ${SITE} has 3 OAuth applications, the most it may have (memberClients.maxPerSite); delete one first`);
    const listed = await app.auth.memberClients.list(SITE);
    expect(listed).toHaveLength(3);
    await app.auth.memberClients.delete(SITE, listed[0]!.clientId);
    await app.auth.memberClients.create(SITE, valid({ name: 'after a delete' }));
    expect(await app.auth.memberClients.list(SITE)).toHaveLength(3);
  });
});

describe('with the demo\'s beta (demo-school only)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.stop());

  function userinfo(accessToken: string) {
    return fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  }

  it('creates a confidential client whose secret is returned once and never read back', async () => {
    const { client, clientSecret } = await app.auth.memberClients.create(SITE, valid({ name: '  Study buddy  ', scopes: ['openid', 'account:read', 'openid'] }));
    expect(client).toMatchObject({
      site: SITE, name: 'Study buddy', type: 'confidential', redirectUris: ['https://buddy.example/cb'], scopes: ['openid', 'account:read'],
    });
    expect(client.clientId).toMatch(/^mc_/);
    expect(clientSecret).toMatch(/^[\w-]{43}$/);

    const read = await app.auth.memberClients.get(SITE, client.clientId);
    expect(read).toEqual(client);
    expect(JSON.stringify(read)).not.toContain(clientSecret);
    const listed = await app.auth.memberClients.list(SITE);
    expect(listed.map((c) => c.clientId)).toContain(client.clientId);
    expect(JSON.stringify(listed)).not.toContain(clientSecret);
    expect(await app.auth.memberClients.list('other-school')).toEqual([]);
  });

  it('creates a public client without a secret', async () => {
    const issued = await app.auth.memberClients.create(SITE, valid({ type: 'public', redirectUris: LOOPBACK.redirectUris }));
    expect(issued.client.type).toBe('public');
    expect(issued).not.toHaveProperty('clientSecret');
  });

  it('refuses a site without the beta with access_denied, and an unknown site with invalid_client_metadata', async () => {
    const noBeta = await refusal(app.auth.memberClients.create('other-school', valid()));
    expect(noBeta.code).toBe('access_denied');
    expect(noBeta.description).toContain('"MCP connections" beta');
    const unknown = await refusal(app.auth.memberClients.create('no-such-school', valid()));
    expect(unknown.code).toBe('invalid_client_metadata');
    expect(await app.auth.memberClients.list('other-school')).toEqual([]);
  });

  it.each<[string, Partial<MemberClientInput>, RegExp]>([
    ['an http redirect URI off loopback', { redirectUris: ['http://buddy.example/cb'] }, /must be https, or http on a loopback address/],
    ['a redirect URI that is not a URL', { redirectUris: ['buddy.example/cb'] }, /must be https/],
    ['a redirect URI with a fragment', { redirectUris: ['https://buddy.example/cb#x'] }, /without a fragment/],
    ['no redirect URI', { redirectUris: [] }, /redirectUris must list 1 to 10 URIs/],
    ['eleven redirect URIs', { redirectUris: Array.from({ length: 11 }, (_, i) => `https://buddy.example/cb${i}`) }, /1 to 10/],
    ['an operator scope', { scopes: ['openid', 'courses:read'] }, /scope "courses:read" cannot be given to a member client/],
    ['an unknown scope', { scopes: ['openid', 'teleport:write'] }, /cannot be given to a member client/],
    ['no scopes', { scopes: [] }, /scopes must pick at least one of openid, profile, email, account:read, account:write/],
    ['an empty name', { name: '   ' }, /name must be 1 to 100 characters/],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, /name must be 1 to 100 characters/],
    ['a name with a control character', { name: 'Study\u0000buddy' }, /must not contain control or text-direction characters/],
    ['a name turned around by a bidi override', { name: 'Study buddy\u202Epp.lanigiro' }, /must not contain control or text-direction characters/],
    ['a redirect URI over 2000 characters', { redirectUris: [`https://buddy.example/${'x'.repeat(2000)}`] }, /at most 2000 characters/],
    ['a redirect URI naming a user', { redirectUris: ['https://trusted.example@buddy.example/cb'] }, /without a fragment, a user or password/],
    ['an unknown type', { type: 'native' as never }, /type must be "public" or "confidential"/],
  ])('refuses %s with invalid_client_metadata (400)', async (_label, over, message) => {
    const before = (await app.auth.memberClients.list(SITE)).length;
    const err = await refusal(app.auth.memberClients.create(SITE, valid(over)));
    expect({ code: err.code, status: err.status }).toEqual({ code: 'invalid_client_metadata', status: 400 });
    expect(err.description).toMatch(message);
    expect(await app.auth.memberClients.list(SITE)).toHaveLength(before);
  });

  it('accepts exactly the redirect URIs the client-metadata rule accepts', async () => {
    const uris = [
      'https://buddy.example/cb', 'http://[::1]:9000/cb', 'http://localhost/cb', 'http://buddy.example/cb',
      'http://127.0.0.2/cb', 'https://buddy.example/cb#x', 'com.buddy.app:/cb', 'buddy.example/cb',
      'https://buddy.example/cb\r\nx', 'http://127.0.0.1/cb\tx', 'https://user:pw@buddy.example/cb',
    ];
    // a line break or tab parses (the URL parser drops it), but no URI holds one
    expect(isAcceptableRedirect('https://buddy.example/cb\r\nx')).toBe(false);
    for (const uri of uris) {
      const created = await app.auth.memberClients.create(SITE, valid({ redirectUris: [uri] })).then(() => true, () => false);
      expect({ uri, created }).toEqual({ uri, created: isAcceptableRedirect(uri) });
    }
  });

  it('answers not_found for another site\'s client, an unknown id and configured clients, and changes nothing', async () => {
    const { client, clientSecret } = await app.auth.memberClients.create(SITE, valid());
    const attempts: [string, string][] = [
      ['other-school', client.clientId],
      ['no-such-school', client.clientId],
      [SITE, 'mc_unknown'],
      [SITE, ''],
      // configured clients are not the management API's, member or not
      [SITE, 'demo-member-app'],
      [SITE, 'demo-operator-app'],
    ];
    for (const [site, id] of attempts) {
      for (const call of [
        () => app.auth.memberClients.get(site, id),
        () => app.auth.memberClients.rotateSecret(site, id),
        () => app.auth.memberClients.delete(site, id),
      ]) {
        const err = await refusal(call());
        expect({ site, id, code: err.code, status: err.status }).toEqual({ site, id, code: 'not_found', status: 404 });
      }
    }
    expect(await app.auth.memberClients.get(SITE, client.clientId)).toEqual(client);
    // the secret was not rotated by the refused calls
    const check = await postForm(`${app.baseUrl}/api/oauth/introspect`, { token: 'x', client_id: client.clientId, client_secret: clientSecret });
    expect(check.status).toBe(200);
  });

  it('refuses to rotate a public client\'s secret (there is none)', async () => {
    const { client } = await app.auth.memberClients.create(SITE, valid({ type: 'public' }));
    const err = await refusal(app.auth.memberClients.rotateSecret(SITE, client.clientId));
    expect(err.code).toBe('invalid_client_metadata');
    expect(err.description).toBe('public clients have no secret to rotate');
  });

  it('rotates a secret: the old one stops working at once, the new one works', async () => {
    const { client, clientSecret: old } = await app.auth.memberClients.create(SITE, valid());
    const rotated = await app.auth.memberClients.rotateSecret(SITE, client.clientId);
    expect(rotated.clientSecret).not.toBe(old);
    expect(rotated.client).toEqual(client);
    const introspect = (secret: string) => postForm(`${app.baseUrl}/api/oauth/introspect`, { token: 'x', client_id: client.clientId, client_secret: secret });
    const refused = await introspect(old!);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBe('invalid_client');
    expect((await introspect(rotated.clientSecret)).status).toBe(200);
  });

  it('holds a client to the scopes its operator picked: a data scope more is invalid_scope at the authorization endpoint, an identity scope more is left out', async () => {
    const { client } = await app.auth.memberClients.create(SITE, valid({ type: 'public', redirectUris: LOOPBACK.redirectUris, scopes: ['openid', 'account:read'] }));
    const flowClient = { clientId: client.clientId, redirectUri: LOOPBACK.flowRedirect };
    const state = randomState();
    const url = buildAuthorizeUrl(app.baseUrl, flowClient, { scope: 'openid account:read account:write', state, challenge: pkcePair().challenge });
    const redirect = new URL(await signIn(new Browser(app.baseUrl), url, STUDENT));
    expect(redirect.origin + redirect.pathname).toBe(LOOPBACK.flowRedirect);
    expect(redirect.searchParams.get('error')).toBe('invalid_scope');
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(redirect.searchParams.get('iss')).toBe(app.baseUrl);
    expect(redirect.searchParams.get('code')).toBeNull();

    // within its scopes it works, as a member client of its site; profile, an identity scope
    // the protected-resource metadata advertises to every client, is left out, not refused
    const tokens = await obtainTokens(app.baseUrl, flowClient, { scope: 'openid profile account:read' }, STUDENT);
    expect(tokens.scope.split(' ').sort()).toEqual(['account:read', 'openid']);
    const info = await userinfo(tokens.access_token);
    expect(info.status).toBe(200);
    const claims = await info.json();
    expect(claims).toMatchObject({ sub: 'acc-student', org_id: SITE, roles: ['student'] });
    expect(claims).not.toHaveProperty('name');
  });

  it('deletes a client: unlisted, not_found, its access token 401 at UserInfo and its refresh token refused', async () => {
    const { client } = await app.auth.memberClients.create(SITE, valid({ type: 'public', redirectUris: LOOPBACK.redirectUris, scopes: ['openid', 'account:read'] }));
    const tokens = await obtainTokens(app.baseUrl, { clientId: client.clientId, redirectUri: LOOPBACK.flowRedirect }, { scope: 'openid account:read' }, STUDENT);
    expect((await userinfo(tokens.access_token)).status).toBe(200);

    await app.auth.memberClients.delete(SITE, client.clientId);

    expect((await app.auth.memberClients.list(SITE)).map((c) => c.clientId)).not.toContain(client.clientId);
    expect((await refusal(app.auth.memberClients.get(SITE, client.clientId))).code).toBe('not_found');
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    const again = await postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId });
    expect(again.status).toBe(401);
    expect((await again.json()).error).toBe('invalid_client');
    // the grant's tokens are revoked in storage, not just unusable while the client is gone
    const accessToken = await app.auth.provider.AccessToken.find(tokens.access_token);
    const refreshToken = await app.auth.provider.RefreshToken.find(tokens.refresh_token);
    expect({ accessToken, refreshToken }).toEqual({ accessToken: undefined, refreshToken: undefined });
  });

  it('lists every client when several are created at once', async () => {
    const before = new Set((await app.auth.memberClients.list(SITE)).map((c) => c.clientId));
    const created = await Promise.all(Array.from({ length: 5 }, (_, i) => app.auth.memberClients.create(SITE, valid({ name: `Parallel ${i}` }))));
    const listed = new Set((await app.auth.memberClients.list(SITE)).map((c) => c.clientId));
    const unlisted = created.map((c) => c.client.clientId).filter((id) => !listed.has(id));
    // an unlisted client still exists and can get tokens, but no admin page can show or delete it
    for (const id of unlisted) expect((await app.auth.memberClients.get(SITE, id)).clientId).toBe(id);
    expect(unlisted).toEqual([]);
    expect(listed.size).toBe(before.size + 5);
  });
});

describe('tokens of a deleted client', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { introspectionClients: ['demo-operator-app'] } });
  });
  afterAll(() => app.stop());

  it('are inactive to a trusted resource server, which revokes their grant (no 500)', async () => {
    const { client } = await app.auth.memberClients.create(SITE, valid({ type: 'public', redirectUris: LOOPBACK.redirectUris, scopes: ['openid', 'account:read'] }));
    const tokens = await obtainTokens(app.baseUrl, { clientId: client.clientId, redirectUri: LOOPBACK.flowRedirect }, { scope: 'openid account:read' }, STUDENT);
    const introspect = async () => {
      const res = await postForm(`${app.baseUrl}/api/oauth/introspect`, {
        token: tokens.access_token, client_id: 'demo-operator-app', client_secret: app.operatorSecret,
      });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await introspect()).toMatchObject({ active: true, client_id: client.clientId });

    await app.auth.memberClients.delete(SITE, client.clientId);

    expect(await introspect()).toEqual({ active: false });
    const grantId = (await app.auth.provider.RefreshToken.find(tokens.refresh_token))?.grantId;
    expect(grantId).toBeUndefined();
    expect(await app.auth.provider.AccessToken.find(tokens.access_token)).toBeUndefined();
  });
});
