/**
 * Every refusal of the core flow, with its exact error code and never a 5xx.
 */
import { Browser, signIn } from '../support/browser.ts';
import {
  ADMIN, MEMBER, STUDENT, buildAuthorizeUrl, exchangeCode, obtainCode, obtainTokens, operator, postForm,
} from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let token: string;

beforeAll(async () => {
  app = await startApp();
  token = `${app.baseUrl}/api/oauth/token`;
});
afterAll(() => app.stop());

const SCOPE = 'openid profile email account:read';

/** Follows the authorization request (signed in) and returns the error redirect's parameters. */
async function authorizeError(url: string): Promise<URLSearchParams> {
  const redirect = await signIn(new Browser(app.baseUrl), url, STUDENT);
  return new URL(redirect).searchParams;
}

async function expectOAuthError(res: Response, status: number, error: string) {
  const body = await res.json();
  expect({ status: res.status, error: body.error }).toEqual({ status, error });
  expect(body.error_description).toEqual(expect.any(String));
  return body;
}

describe('authorization endpoint', () => {
  it('refuses a request without PKCE (invalid_request, with state and iss)', async () => {
    const state = randomState();
    const params = await authorizeError(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, state }));
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('state')).toBe(state);
    expect(params.get('iss')).toBe(app.baseUrl);
  });

  it('refuses plain PKCE', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, MEMBER, {
      scope: SCOPE, state: 's', extra: { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
    });
    const params = await authorizeError(url);
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toMatch(/code_challenge_method/);
  });

  it('refuses an unsupported response type', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, MEMBER, {
      scope: SCOPE, state: 's', challenge: pkcePair().challenge, extra: { response_type: 'token' },
    });
    const redirect = new URL(await signIn(new Browser(app.baseUrl), url, STUDENT));
    // an implicit response type answers in the fragment (OAuth 2.0 Multiple Response Types §5)
    const params = new URLSearchParams(redirect.hash.slice(1) || redirect.search);
    expect(params.get('error')).toBe('unsupported_response_type');
  });

  it('refuses an unknown scope instead of dropping it', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: `${SCOPE} teleport:write`, state: 's', challenge: pkcePair().challenge });
    const params = await authorizeError(url);
    expect(params.get('error')).toBe('invalid_scope');
    expect(params.get('iss')).toBe(app.baseUrl);
  });

  it('does not redirect to an unregistered redirect_uri', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, { ...MEMBER, redirectUri: 'https://attacker.example/callback' }, {
      scope: SCOPE, state: 's', challenge: pkcePair().challenge,
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_redirect_uri');
  });

  it('matches redirect URIs exactly (no path prefix, no extra query)', async () => {
    for (const redirectUri of ['http://127.0.0.1:8765/callback/more', 'http://127.0.0.1:8765/callback?x=1', 'https://127.0.0.1:8765/callback']) {
      const res = await fetch(buildAuthorizeUrl(app.baseUrl, { ...MEMBER, redirectUri }, { scope: SCOPE, challenge: pkcePair().challenge }), { redirect: 'manual' });
      expect(res.status).toBe(400);
    }
  });

  it('answers an unknown client with invalid_client and no redirect', async () => {
    const res = await fetch(buildAuthorizeUrl(app.baseUrl, { ...MEMBER, clientId: 'nobody' }, {
      scope: SCOPE, challenge: pkcePair().challenge,
    }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
  });

  it('returns access_denied when the user denies consent', async () => {
    const { challenge } = pkcePair();
    const state = randomState();
    const redirect = await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge, state }), { ...STUDENT, decision: 'deny' });
    const params = new URL(redirect).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(state);
    expect(params.get('iss')).toBe(app.baseUrl);
  });
});

describe('token endpoint', () => {
  it('refuses a wrong code_verifier', async () => {
    const { code } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    await expectOAuthError(await exchangeCode(app.baseUrl, MEMBER, code, pkcePair().verifier), 400, 'invalid_grant');
  });

  it('refuses a missing code_verifier', async () => {
    const { code } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const res = await postForm(token, { grant_type: 'authorization_code', code, redirect_uri: MEMBER.redirectUri, client_id: MEMBER.clientId });
    await expectOAuthError(res, 400, 'invalid_grant');
  });

  it('refuses a redirect_uri that differs from the authorization request', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const res = await exchangeCode(app.baseUrl, { ...MEMBER, redirectUri: 'http://127.0.0.1:9999/callback' }, code, verifier);
    await expectOAuthError(res, 400, 'invalid_grant');
  });

  it('refuses a reused code and revokes the tokens of its grant', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const first = await exchangeCode(app.baseUrl, MEMBER, code, verifier);
    expect(first.status).toBe(200);
    const tokens = await first.json();
    await expectOAuthError(await exchangeCode(app.baseUrl, MEMBER, code, verifier), 400, 'invalid_grant');

    const userinfo = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(401);
    const refresh = await postForm(token, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId });
    await expectOAuthError(refresh, 400, 'invalid_grant');
  });

  it('redeems one code exactly once when 20 requests race', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const responses = await Promise.all(Array.from({ length: 20 }, () => exchangeCode(app.baseUrl, MEMBER, code, verifier)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
    for (const r of responses.filter((x) => x.status === 400)) expect((await r.json()).error).toBe('invalid_grant');
  });

  it('serves racing refreshes of one token within the grace, for one grant; the first successor used ends it', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const tokens = await (await exchangeCode(app.baseUrl, MEMBER, code, verifier)).json();
    const responses = await Promise.all(Array.from({ length: 10 }, () => postForm(token, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId,
    })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const successors = await Promise.all(responses.map((r) => r.json() as Promise<{ refresh_token: string }>));
    const next = await postForm(token, { grant_type: 'refresh_token', refresh_token: successors[0]!.refresh_token, client_id: MEMBER.clientId });
    expect(next.status).toBe(200);
    // the successor was used: the original is now reuse, and the whole grant goes
    await expectOAuthError(await postForm(token, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId }), 400, 'invalid_grant');
    await expectOAuthError(await postForm(token, { grant_type: 'refresh_token', refresh_token: (await next.json()).refresh_token, client_id: MEMBER.clientId }), 400, 'invalid_grant');
  });

  it('answers an unknown client with invalid_client', async () => {
    const res = await postForm(token, { grant_type: 'authorization_code', code: 'x', code_verifier: 'y', redirect_uri: MEMBER.redirectUri, client_id: 'nobody' });
    await expectOAuthError(res, 401, 'invalid_client');
  });

  it('answers a wrong client secret with invalid_client', async () => {
    const op = operator(app.baseUrl, 'wrong-secret');
    const res = await postForm(token, { grant_type: 'refresh_token', refresh_token: 'x', client_id: op.clientId, client_secret: op.clientSecret });
    await expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses client_secret_basic for a client_secret_post client', async () => {
    const basic = Buffer.from(`demo-operator-app:${app.operatorSecret}`).toString('base64');
    const res = await postForm(token, { grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: `Basic ${basic}` });
    await expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses an unsupported grant type', async () => {
    const res = await postForm(token, { grant_type: 'password', username: 'a', password: 'b', client_id: MEMBER.clientId });
    await expectOAuthError(res, 400, 'unsupported_grant_type');
    const cc = await postForm(token, { grant_type: 'client_credentials', client_id: 'demo-operator-app', client_secret: app.operatorSecret });
    await expectOAuthError(cc, 400, 'unsupported_grant_type');
  });

  it('answers malformed bodies with invalid_request, never a 5xx', async () => {
    const cases: RequestInit[] = [
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"authorization_code"}' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&grant_type=refresh_token&client_id=demo-member-app' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '%%%%' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=demo-member-app&grant_type=refresh_token&refresh_token=${'a'.repeat(70_000)}` },
      { method: 'POST' },
    ];
    for (const init of cases) {
      const res = await fetch(token, init);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const body = await res.json();
      expect(['invalid_request', 'invalid_client']).toContain(body.error);
    }
  });
});

describe('resource indicator: every token is bound to baseUrl (RFC 8707)', () => {
  /** resources that are not this service: another origin, and a path under it */
  const others = () => ['https://elsewhere.example', `${app.baseUrl}/account/graphql`];

  it('refuses another resource at the authorization endpoint (invalid_target, with state and iss)', async () => {
    for (const resource of others()) {
      const state = randomState();
      const params = await authorizeError(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, state, resource, challenge: pkcePair().challenge }));
      expect({ resource, error: params.get('error') }).toEqual({ resource, error: 'invalid_target' });
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(app.baseUrl);
      expect(params.get('code')).toBeNull();
    }
  });

  it('refuses another resource at the token endpoint, for both grants (invalid_target)', async () => {
    for (const resource of others()) {
      // a fresh code each time: oidc-provider spends a code even on a refused exchange
      const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE, resource: app.baseUrl }, STUDENT);
      await expectOAuthError(await exchangeCode(app.baseUrl, MEMBER, code, verifier, resource), 400, 'invalid_target');
    }

    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE, resource: app.baseUrl }, STUDENT);
    for (const resource of others()) {
      const refresh = await postForm(token, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: MEMBER.clientId, resource });
      await expectOAuthError(refresh, 400, 'invalid_target');
    }
  });
});

describe('revocation: a client revokes only its own tokens', () => {
  const revoke = (fields: Record<string, string>) => postForm(`${app.baseUrl}/api/oauth/revoke`, fields);
  const introspect = (tokenValue: string, fields: Record<string, string>) => postForm(`${app.baseUrl}/api/oauth/introspect`, { token: tokenValue, ...fields });
  const userinfo = (accessToken: string) => fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });

  it('a public client revoking another client\'s token gets 200, and the token stays active', async () => {
    const op = operator(app.baseUrl, app.operatorSecret);
    const tokens = await obtainTokens(app.baseUrl, op, { scope: 'openid email courses:read' }, ADMIN);
    const ownClient = { client_id: op.clientId, client_secret: op.clientSecret };

    for (const tokenValue of [tokens.access_token, tokens.refresh_token]) {
      const res = await revoke({ token: tokenValue, client_id: MEMBER.clientId });
      expect(res.status).toBe(200);
      expect(await (await introspect(tokenValue, ownClient)).json()).toMatchObject({ active: true, client_id: op.clientId });
    }
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    const refresh = await postForm(token, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...ownClient });
    expect(refresh.status).toBe(200);
  });

  it('a confidential client revoking another client\'s token gets 400 invalid_request, and the token stays active', async () => {
    const op = operator(app.baseUrl, app.operatorSecret);
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);

    for (const tokenValue of [tokens.access_token, tokens.refresh_token]) {
      const res = await revoke({ token: tokenValue, client_id: op.clientId, client_secret: op.clientSecret });
      await expectOAuthError(res, 400, 'invalid_request');
      expect(await (await introspect(tokenValue, { client_id: MEMBER.clientId })).json()).toMatchObject({ active: true, client_id: MEMBER.clientId });
    }
    expect((await userinfo(tokens.access_token)).status).toBe(200);
  });

  it('its own client revokes it: 200, and it is inactive at once (so the checks above can tell)', async () => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    expect((await revoke({ token: tokens.access_token, client_id: MEMBER.clientId })).status).toBe(200);
    expect(await (await introspect(tokens.access_token, { client_id: MEMBER.clientId })).json()).toEqual({ active: false });
    expect((await userinfo(tokens.access_token)).status).toBe(401);
  });
});

describe('introspection', () => {
  it('answers inactive to a client the token was not issued to', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE }, STUDENT);
    const tokens = await (await exchangeCode(app.baseUrl, MEMBER, code, verifier)).json();
    const introspect = (fields: Record<string, string>) => postForm(`${app.baseUrl}/api/oauth/introspect`, { token: tokens.access_token, ...fields });

    const own = await (await introspect({ client_id: MEMBER.clientId })).json();
    expect(own.active).toBe(true);
    const other = await introspect({ client_id: 'demo-operator-app', client_secret: app.operatorSecret });
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual({ active: false });
    const unauthenticated = await introspect({});
    expect(unauthenticated.status).toBe(400);
  });
});

describe('admin and operator client', () => {
  it('issues operator tokens with the site the admin operates', async () => {
    const op = operator(app.baseUrl, app.operatorSecret);
    const { code, verifier } = await obtainCode(app.baseUrl, op, { scope: 'openid email courses:read' }, ADMIN);
    const res = await exchangeCode(app.baseUrl, op, code, verifier);
    const tokens = await res.json();
    expect(res.status).toBe(200);
    const info = await (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
    expect(info).toEqual({ sub: 'acc-admin', email: 'admin@example.com', org_id: 'demo-school', roles: ['admin'] });
  });
});
