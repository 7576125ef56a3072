/**
 * CORS over real HTTP, as a browser on another origin would meet it (lib/policies/cors.ts,
 * README "Cross-origin calls (CORS)"): UserInfo and registration (both variants) are open to
 * every origin, preflight included; the token endpoint lets a public client with a loopback
 * redirect URI be called from any loopback origin, and nobody else from a foreign one.
 */
import { ADMIN, MEMBER, STUDENT, obtainCode, obtainTokens, operator, postForm } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import type { SignInOptions } from '../support/browser.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SPA = 'https://spa.example';

function preflight(url: string, method: string, headers: string, origin = SPA) {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });
}

/** The CORS response headers, lower-cased, for one `toMatchObject`. */
function corsHeaders(res: Response): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary' || name === 'allow'));
}

/** A comma-separated header value as a sorted, lower-cased list. */
const list = (value: string | null | undefined) => (value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean).sort();

describe('UserInfo', () => {
  let app: RunningApp;
  let url: string;
  beforeAll(async () => {
    app = await startApp();
    url = `${app.baseUrl}/api/oauth/userinfo`;
  });
  afterAll(() => app.stop());

  it('answers the preflight: 204, any origin, GET and POST, Authorization and Content-Type, a max age', async () => {
    const res = await preflight(url, 'GET', 'authorization');
    expect(res.status).toBe(204);
    const headers = corsHeaders(res);
    expect(headers['access-control-allow-origin']).toBe('*');
    expect(list(headers['access-control-allow-methods'])).toEqual(['get', 'post']);
    expect(list(headers['access-control-allow-headers'])).toEqual(['authorization', 'content-type']);
    expect(Number(headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(headers).not.toHaveProperty('access-control-allow-credentials');
  });

  it.each(['GET', 'POST'])('%s with a token from another origin: 200, Allow-Origin *, WWW-Authenticate exposed', async (method) => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile email', resource: app.baseUrl }, STUDENT);
    const res = await fetch(url, { method, headers: { Origin: SPA, Authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(res.headers.get('access-control-expose-headers'))).toEqual(['retry-after', 'www-authenticate']);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await res.json()).toMatchObject({ sub: 'acc-student' });
  });

  it('401 without a token: the challenge is readable cross-origin', async () => {
    const res = await fetch(url, { headers: { Origin: SPA } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(res.headers.get('access-control-expose-headers'))).toEqual(['retry-after', 'www-authenticate']);
  });

  it('403 insufficient_scope (a token without openid): the challenge is readable cross-origin', async () => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'account:read', resource: app.baseUrl }, STUDENT);
    const res = await fetch(url, { headers: { Origin: SPA, Authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(res.headers.get('access-control-expose-headers'))).toEqual(['retry-after', 'www-authenticate']);
  });
});

describe.each([
  ['Variant A (restricted)', {}, { client_name: 'Acme LMS' }, 201],
  ['Variant B (open)', { auth: { registration: { variant: 'open' as const } } }, {
    client_name: 'Browser Agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none',
  }, 201],
])('registration, %s', (_name, options, metadata, created) => {
  let app: RunningApp;
  let url: string;
  beforeAll(async () => {
    app = await startApp(options);
    url = `${app.baseUrl}/api/oauth/register`;
  });
  afterAll(() => app.stop());

  const register = (body: unknown) => fetch(url, {
    method: 'POST', headers: { Origin: SPA, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });

  it('answers the preflight: 204, any origin, POST, Content-Type, a max age', async () => {
    const res = await preflight(url, 'POST', 'content-type');
    expect(res.status).toBe(204);
    const headers = corsHeaders(res);
    expect(headers['access-control-allow-origin']).toBe('*');
    expect(list(headers['access-control-allow-methods'])).toEqual(['post']);
    expect(list(headers['access-control-allow-headers'])).toEqual(['content-type']);
    expect(Number(headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(headers).not.toHaveProperty('access-control-allow-credentials');
  });

  it('the registration answer carries Allow-Origin *', async () => {
    const res = await register(metadata);
    expect(res.status).toBe(created);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await res.json()).toEqual(expect.objectContaining({ client_id: expect.any(String) }));
  });

  it('so does a refusal', async () => {
    const res = await register({ client_name: 'Nobody Known', redirect_uris: ['ftp://nowhere.example/cb'], token_endpoint_auth_method: 'private_key_jwt' });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual(expect.objectContaining({ error: expect.stringMatching(/^invalid_/) }));
  });
});

describe('token endpoint from a single-page app on a loopback origin', () => {
  let app: RunningApp;
  let url: string;
  beforeAll(async () => {
    app = await startApp();
    url = `${app.baseUrl}/api/oauth/token`;
  });
  afterAll(() => app.stop());

  async function exchangeFrom(origin: string, client: FlowClient, user: SignInOptions = STUDENT) {
    const { code, verifier } = await obtainCode(app.baseUrl, client, { scope: 'openid profile email', resource: app.baseUrl }, user);
    return postForm(url, {
      grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: client.redirectUri,
      client_id: client.clientId, client_secret: client.clientSecret, resource: app.baseUrl,
    }, { Origin: origin });
  }

  it('the preflight is answered for the loopback origin', async () => {
    const res = await preflight(url, 'POST', 'content-type', 'http://localhost:5173');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(list(res.headers.get('access-control-allow-methods'))).toContain('post');
  });

  // the member client's registered redirect is http://127.0.0.1/callback: none of these is its origin
  it.each(['http://localhost:5173', 'http://127.0.0.1:4200', 'http://[::1]:3000'])('the public member client, from %s: 200, Allow-Origin echoes the origin', async (origin) => {
    const res = await exchangeFrom(origin, MEMBER);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(list(res.headers.get('vary'))).toContain('origin');
    expect(await res.json()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
  });

  it.each(['https://evil.example', 'http://192.168.1.10:5173', 'https://localhost:5173'])('the public member client, from the foreign origin %s: no Allow-Origin, refused', async (origin) => {
    const res = await exchangeFrom(origin, MEMBER);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('a confidential client, even from a loopback origin (its own redirect origin here): no Allow-Origin', async () => {
    const client = operator(app.baseUrl, app.operatorSecret);
    const res = await exchangeFrom(app.baseUrl, client, ADMIN);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.status).toBe(400);
  });

  it('without an Origin (no browser), the exchange is unaffected', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid', resource: app.baseUrl }, STUDENT);
    const res = await postForm(url, {
      grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: MEMBER.redirectUri, client_id: MEMBER.clientId, resource: app.baseUrl,
    });
    expect(res.status).toBe(200);
  });
});
