/**
 * Who may call `/account/graphql`: member tokens bound to this origin with `account:read`.
 * Every refusal is an HTTP 401/403 with the RFC 6750 challenge and an RFC 6749-style body,
 * never a 200 with GraphQL errors.
 */
import { createAccountStore } from '../../examples/host/seed.ts';
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { MEMBER, STUDENT, postForm } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { graphql, memberToken, operatorToken, post } from './support.ts';
import type { GraphQLAnswer } from './support.ts';

let app: RunningApp;
let metadata: string;
const QUERY = '{ viewer { id } }';

beforeAll(async () => {
  app = await startApp();
  metadata = `${app.baseUrl}/.well-known/oauth-protected-resource`;
});
afterAll(() => app.stop());

function expectInvalidToken(res: GraphQLAnswer) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
  const challenge = res.headers.get('www-authenticate')!;
  expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+"$/);
  expect(challenge).toContain(`resource_metadata="${metadata}"`);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

function expectInsufficientScope(res: GraphQLAnswer) {
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
  const challenge = res.headers.get('www-authenticate')!;
  expect(challenge).toMatch(/^Bearer error="insufficient_scope", error_description="[^"]+", scope="account:read", resource_metadata="[^"]+"$/);
  expect(challenge).toContain(`resource_metadata="${metadata}"`);
}

/** A token minted straight into storage, bound to `aud`, on the grant of a real one. */
async function mintToken(aud: string | undefined, extra: { expiresIn?: number } = {}): Promise<string> {
  const { provider } = app.auth;
  const real = await provider.AccessToken.find(await memberToken(app, STUDENT));
  const client = await provider.Client.find(MEMBER.clientId);
  const token = new provider.AccessToken({
    accountId: 'acc-student', client: client!, grantId: real!.grantId!, scope: 'openid account:read', gty: 'authorization_code',
    extra: real!.extra, ...extra,
  });
  if (aud) token.aud = aud;
  return token.save();
}

describe('refusals', () => {
  it('no token: 401 invalid_token (there is no anonymous mode)', async () => {
    expectInvalidToken(await graphql(app, undefined, QUERY));
  });

  it.each([
    ['a malformed bearer token', 'Bearer not a token'],
    ['an unknown token', `Bearer ${'x'.repeat(43)}`],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
  ])('%s: 401 invalid_token', async (_name, authorization) => {
    expectInvalidToken(await post(app, { authorization, body: JSON.stringify({ query: QUERY }) }));
  });

  it('checks the token before looking at the body', async () => {
    expectInvalidToken(await post(app, { body: 'not json', contentType: 'text/plain' }));
  });

  it('an expired token: 401 invalid_token', async () => {
    const token = await mintToken(app.baseUrl, { expiresIn: 1 });
    expect((await graphql(app, token, QUERY)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    expectInvalidToken(await graphql(app, token, QUERY));
  });

  it('a revoked token: 401 invalid_token', async () => {
    const token = await memberToken(app, STUDENT);
    expect((await graphql(app, token, QUERY)).status).toBe(200);
    const revoked = await postForm(`${app.baseUrl}/api/oauth/revoke`, { token, client_id: MEMBER.clientId });
    expect(revoked.status).toBe(200);
    expectInvalidToken(await graphql(app, token, QUERY));
  });

  it('a token bound to another origin, or to none: 401 invalid_token', async () => {
    expectInvalidToken(await graphql(app, await mintToken('https://other.example'), QUERY));
    expectInvalidToken(await graphql(app, await mintToken(undefined), QUERY));
    // the same minting bound to this origin is accepted, so the refusals are about the binding
    expect((await graphql(app, await mintToken(app.baseUrl), QUERY)).body.data.viewer.id).toBe('acc-student');
  });

  it('an operator token: 403 insufficient_scope naming no scope (no operator client can be granted account:read: a step-up would loop)', async () => {
    const res = await graphql(app, await operatorToken(app), QUERY);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: 'this endpoint is for member clients' });
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", error_description="this endpoint is for member clients", resource_metadata="${metadata}"`);
  });

  it('a member token without account:read: 403 insufficient_scope naming account:read', async () => {
    const token = await memberToken(app, STUDENT, 'openid profile');
    expectInsufficientScope(await graphql(app, token, QUERY));
  });
});

describe('an account gone since its token was issued', () => {
  it('is refused 401 invalid_token, as UserInfo refuses it, with access.refused reason account_gone', async () => {
    const hidden = new Set<string>();
    const seeded = createAccountStore();
    const own = await startApp({ auth: { accounts: { authenticate: seeded.authenticate, findById: async (id) => (hidden.has(id) ? undefined : seeded.findById(id)) } } });
    try {
      const refusals: PlatformAuthEvent[] = [];
      own.auth.events.on('access.refused', (event) => { refusals.push(event); });
      const token = await memberToken(own, STUDENT);
      expect((await graphql(own, token, '{ viewer { email } }')).status).toBe(200);
      hidden.add('acc-student');
      const res = await graphql(own, token, '{ viewer { email orders(first: 5) { totalCount } } }');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_token', error_description: 'the account of this access token no longer exists' });
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${own.baseUrl}/.well-known/oauth-protected-resource"`);
      const userinfo = await fetch(`${own.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      expect(userinfo.status).toBe(401);
      expect(refusals.map((e) => [e.name, (e as { endpoint?: string }).endpoint, (e as { reason?: string }).reason])).toEqual([
        ['access.refused', 'account_api', 'account_gone'], ['access.refused', 'userinfo', 'account_gone'],
      ]);
    } finally {
      await own.stop();
    }
  });
});

describe('acceptance', () => {
  it('a member token with account:read, with any case of the scheme', async () => {
    const token = await memberToken(app, STUDENT);
    const res = await post(app, { authorization: `bearer ${token}`, body: JSON.stringify({ query: QUERY }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { viewer: { id: 'acc-student' } } });
  });
});
