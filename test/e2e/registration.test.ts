/**
 * `POST /api/oauth/register` in both variants: Variant A hands out a vendor platform's
 * client by name; Variant B registers operator clients through oidc-provider, and the
 * registered client completes a real code flow.
 */
import { ADMIN, STUDENT, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { Browser, signIn } from '../support/browser.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

function register(app: RunningApp, body: unknown, contentType = 'application/json') {
  return fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function expectRefusal(res: Response, error: string) {
  const body = await res.json();
  expect({ status: res.status, error: body.error }).toEqual({ status: 400, error });
  expect(body.error_description).toEqual(expect.any(String));
  return body;
}

describe('Variant A (restricted)', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await startApp(); });
  afterAll(() => app.stop());

  it.each(['Acme LMS', 'acme lms', '  ACME   LMS ', 'AcmeLMS', 'ａｃｍｅ\tＬＭＳ'])('answers 201 with the vendor client for %j', async (name) => {
    const res = await register(app, { client_name: name, redirect_uris: ['https://ignored.example/cb'] });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toEqual({
      client_id: 'acme-lms',
      client_name: 'Acme LMS',
      redirect_uris: ['http://127.0.0.1/acme/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      scope: expect.any(String),
      audience: 'operator',
    });
  });

  it('never answers with the secret of an existing client', async () => {
    const confidential = await startApp({
      auth: {
        clients: [{
          client_id: 'vendor-x', client_name: 'Vendor X', client_secret: 'vendor-x-secret-0123456789abcdef',
          redirect_uris: ['https://vendor-x.example/cb'],
        }],
        registration: { variant: 'restricted', vendors: [{ clientId: 'vendor-x', names: ['Vendor X', 'VX Platform'] }] },
      },
    });
    try {
      for (const name of ['Vendor X', 'vx platform']) {
        const res = await register(confidential, { client_name: name });
        expect(res.status).toBe(201);
        const text = await res.text();
        expect(JSON.parse(text).client_id).toBe('vendor-x');
        expect(text).not.toContain('vendor-x-secret');
        expect(text).not.toMatch(/"client_secret(_expires_at)?"/);
        expect(text).not.toContain('registration_access_token');
      }
    } finally {
      await confidential.stop();
    }
  });

  it('refuses an unknown client_name with invalid_client_metadata and registers nothing', async () => {
    const res = await register(app, {
      client_name: 'Unknown Platform', redirect_uris: ['https://u.example/cb'], token_endpoint_auth_method: 'none',
    });
    await expectRefusal(res, 'invalid_client_metadata');
    // the would-be client does not exist: an authorization request names no known client
    const authorize = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId: 'Unknown Platform', redirectUri: 'https://u.example/cb' }, {
      scope: 'openid', challenge: pkcePair().challenge,
    }), { redirect: 'manual' });
    expect(authorize.status).toBe(400);
  });

  it.each([
    ['no client_name', { redirect_uris: ['https://a.example/cb'] }],
    ['a blank client_name', { client_name: '   ' }],
    ['a non-string client_name', { client_name: ['Acme LMS'] }],
    ['a JSON array', [{ client_name: 'Acme LMS' }]],
    ['malformed JSON', '{"client_name": "Acme LMS"'],
  ])('refuses %s with invalid_client_metadata', async (_label, body) => {
    await expectRefusal(await register(app, body), 'invalid_client_metadata');
  });

  it('refuses a body that is not JSON', async () => {
    await expectRefusal(await register(app, 'client_name=Acme+LMS', 'application/x-www-form-urlencoded'), 'invalid_client_metadata');
  });

  it('advertises the registration endpoint', async () => {
    const discovery = await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json();
    expect(discovery.registration_endpoint).toBe(`${app.baseUrl}/api/oauth/register`);
  });

  it('the vendor client is an operator client: account:read is invalid_scope', async () => {
    const client = { clientId: 'acme-lms', redirectUri: 'http://127.0.0.1:40123/acme/callback' };
    const redirect = await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, client, {
      scope: 'openid account:read', state: 'st-1', challenge: pkcePair().challenge,
    }), ADMIN);
    const params = new URL(redirect).searchParams;
    expect(params.get('error')).toBe('invalid_scope');
    expect(params.get('state')).toBe('st-1');
    expect(params.get('iss')).toBe(app.baseUrl);
    // and with an operator scope the vendor completes a flow on any loopback port
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid']);
  });
});

describe('Variant B (open)', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await startApp({ auth: { registration: { variant: 'open' } } }); });
  afterAll(() => app.stop());

  async function introspect(client: FlowClient & { clientSecret?: string }, token: string) {
    const body = new URLSearchParams({ token, client_id: client.clientId });
    if (client.clientSecret) body.set('client_secret', client.clientSecret);
    return (await fetch(`${app.baseUrl}/api/oauth/introspect`, { method: 'POST', body })).json();
  }

  it.each([
    ['a backslash before a user part (browsers go to trusted.example)', 'https://trusted.example\\@evil.example/cb'],
    ['a backslash as path separator', 'https://trusted.example\\cb'],
    ['an empty authority', 'https:///trusted.example/cb'],
  ])('refuses a redirect URI with %s as invalid_redirect_uri (RFC 6749 §3.1.2: an absolute URI)', async (_label, uri) => {
    await expectRefusal(await register(app, { redirect_uris: [uri], token_endpoint_auth_method: 'none' }), 'invalid_redirect_uri');
  });

  it('registers a public client, which then completes a code flow on any loopback port', async () => {
    const res = await register(app, {
      client_name: 'Desk Agent',
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid profile courses:read students:read',
    });
    expect(res.status).toBe(201);
    const registered = await res.json();
    expect(registered.client_id).toEqual(expect.any(String));
    expect(registered.client_secret).toBeUndefined();
    expect(registered.audience).toBe('operator');
    expect(registered.application_type).toBe('native');

    const client = { clientId: registered.client_id, redirectUri: 'http://127.0.0.1:51234/callback' };
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid']);
    const info = await introspect(client, tokens.access_token);
    expect(info).toMatchObject({ active: true, client_id: registered.client_id, aud: app.baseUrl, org_id: 'demo-school' });
  });

  it('registers a confidential client (client_secret_post), which completes a code flow with its secret', async () => {
    const res = await register(app, {
      client_name: 'Reporting Service',
      redirect_uris: ['https://reports.example/callback'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(res.status).toBe(201);
    const registered = await res.json();
    expect(registered.client_secret).toEqual(expect.any(String));
    expect(registered.token_endpoint_auth_method).toBe('client_secret_post');
    // no scope registered: every operator scope may be requested, and nothing member-only
    expect(registered.scope.split(' ')).toContain('courses:write');
    expect(registered.scope.split(' ')).not.toContain('account:read');

    const client = { clientId: registered.client_id, redirectUri: 'https://reports.example/callback', clientSecret: registered.client_secret };
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid analytics:read' }, ADMIN);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(await introspect(client, tokens.access_token)).toMatchObject({ active: true, scope: 'openid analytics:read' });

    const wrongSecret = { ...client, clientSecret: 'not-the-secret' };
    expect((await introspect(wrongSecret, tokens.access_token)).error).toBe('invalid_client');
  });

  it('a client registered without the refresh_token grant gets no refresh token, as the published descriptions say', async () => {
    const res = await register(app, {
      client_name: 'No Refresh', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'],
    });
    expect(res.status).toBe(201);
    const client = { clientId: (await res.json()).client_id, redirectUri: 'http://127.0.0.1:51234/callback' };
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toBeUndefined();
    const authMd = await (await fetch(`${app.baseUrl}/auth.md`)).text();
    expect(authMd).toContain('issued with every code exchange (unless the client\'s registration leaves `refresh_token` out of its `grant_types`)');
    const openapi = await (await fetch(`${app.baseUrl}/openapi.json`)).text();
    expect(openapi).toContain('unless the client\'s registration leaves `refresh_token` out of its `grant_types`');
  });

  it('a refresh names its client: without client_id it is 400 invalid_request, with it the same token refreshes', async () => {
    const res = await register(app, { client_name: 'Refresher', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    const client = { clientId: (await res.json()).client_id, redirectUri: 'http://127.0.0.1:51234/callback' };
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    const refresh = (body: Record<string, string>) => fetch(`${app.baseUrl}/api/oauth/token`, { method: 'POST', body: new URLSearchParams(body) });
    const anonymous = await refresh({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(anonymous.status).toBe(400);
    expect((await anonymous.json()).error).toBe('invalid_request');
    expect((await refresh({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId })).status).toBe(200);
  });

  it('introspection reports an access token\'s resource binding as aud, and none for a refresh token (never taken for an access token)', async () => {
    const res = await register(app, { client_name: 'Inspector', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    const client = { clientId: (await res.json()).client_id, redirectUri: 'http://127.0.0.1:51234/callback' };
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    expect(await introspect(client, tokens.access_token)).toMatchObject({ active: true, aud: app.baseUrl, token_type: 'Bearer' });
    const refresh = await introspect(client, tokens.refresh_token);
    expect(refresh).toMatchObject({ active: true, client_id: client.clientId });
    expect(refresh.aud).toBeUndefined();
    expect(refresh.token_type).toBeUndefined();
  });

  it('treats a registered scope as a first request, not a ceiling: step-up to data scopes works', async () => {
    // MCP clients register with the protected-resource scopes_supported (identity only)
    const registered = await (await register(app, {
      redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', scope: 'openid profile email',
    })).json();
    expect(registered.scope.split(' ')).toEqual(expect.arrayContaining(['openid', 'courses:read', 'students:write']));
    expect(registered.scope.split(' ')).not.toContain('account:read');
    const client = { clientId: registered.client_id, redirectUri: 'http://127.0.0.1:40998/callback' };
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid courses:read' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid']);
  });

  it('a registered client asking for account:read gets invalid_scope at the authorization endpoint', async () => {
    const registered = await (await register(app, {
      redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none',
    })).json();
    const client = { clientId: registered.client_id, redirectUri: 'http://127.0.0.1:40999/callback' };
    const redirect = await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, client, {
      scope: 'openid account:read', state: 'st-2', challenge: pkcePair().challenge,
    }), STUDENT);
    const params = new URL(redirect).searchParams;
    expect(params.get('error')).toBe('invalid_scope');
    expect(params.get('state')).toBe('st-2');
    expect(params.get('iss')).toBe(app.baseUrl);
  });

  const PUBLIC = { redirect_uris: ['https://app.example/callback'], token_endpoint_auth_method: 'none' };
  it.each([
    ['client_secret_basic', { ...PUBLIC, token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    ['private_key_jwt', { ...PUBLIC, token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    ['an implicit response type', { ...PUBLIC, response_types: ['token'] }, 'invalid_client_metadata'],
    ['a hybrid response type', { ...PUBLIC, response_types: ['code id_token'] }, 'invalid_client_metadata'],
    ['client_credentials', { ...PUBLIC, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    ['an http redirect to a non-loopback host', { ...PUBLIC, redirect_uris: ['http://app.example/callback'] }, 'invalid_redirect_uri'],
    ['a custom-scheme redirect', { ...PUBLIC, redirect_uris: ['com.example.app:/callback'] }, 'invalid_redirect_uri'],
    ['no redirect_uris', { token_endpoint_auth_method: 'none' }, 'invalid_redirect_uri'],
    ['audience member', { ...PUBLIC, audience: 'member' }, 'invalid_client_metadata'],
    ['an org_id', { ...PUBLIC, org_id: 'demo-school' }, 'invalid_client_metadata'],
    ['a member-only scope', { ...PUBLIC, scope: 'openid account:read' }, 'invalid_client_metadata'],
    ['an unknown scope', { ...PUBLIC, scope: 'openid teleport:write' }, 'invalid_client_metadata'],
    ['a JSON array', [PUBLIC], 'invalid_client_metadata'],
    ['a JSON string', 'just a string', 'invalid_client_metadata'],
  ])('refuses %s', async (_label, body, error) => {
    const res = await register(app, typeof body === 'string' ? JSON.stringify(body) : body);
    await expectRefusal(res, error);
  });

  it('refuses a body that is not JSON', async () => {
    const res = await register(app, 'client_name=x&redirect_uris=https://a.example/cb', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_client_metadata');
  });

  it('advertises the registration endpoint', async () => {
    const discovery = await (await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).json();
    expect(discovery.registration_endpoint).toBe(`${app.baseUrl}/api/oauth/register`);
  });
});
