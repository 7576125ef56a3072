/**
 * lib/provider/dispatch.ts over real HTTP: the methods the provider's POST-only endpoints
 * refuse are answered as the library's own routers answer them (405 JSON with `Allow`), not
 * with Koa's plain-text 404; POST and the CORS preflight still reach the provider.
 */
import { ENDPOINTS } from '../../lib/index.ts';
import { exchangeCode, MEMBER, obtainCode, operator, postForm, STUDENT } from '../support/flows.ts';
import { rawRequest } from '../support/raw-request.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const POST_ONLY = [ENDPOINTS.token.path, ENDPOINTS.revocation.path, ENDPOINTS.introspection.path];

describe.each(POST_ONLY)('%s', (path) => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('%s: 405 invalid_request JSON, Allow: POST, OPTIONS', async (method) => {
    const res = await fetch(`${app.baseUrl}${path}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: `use POST ${path}` });
  });

  it('HEAD: 405 with Allow', async () => {
    const res = await fetch(`${app.baseUrl}${path}`, { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('POST still reaches the provider (its own error for an empty request)', async () => {
    const res = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual(expect.stringMatching(/^invalid_(request|client)$/));
  });

  it('the CORS preflight still reaches the provider', async () => {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
  });
});

describe('token endpoint answers carry Cache-Control: no-store and Pragma: no-cache (RFC 6749 §5.1)', () => {
  const expectNoCache = (res: Response) => {
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
  };

  it('the code exchange and the refresh', async () => {
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    const exchanged = await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl);
    expect(exchanged.status).toBe(200);
    expectNoCache(exchanged);
    const { refresh_token: refreshToken } = await exchanged.json() as { refresh_token: string };
    const refreshed = await postForm(`${app.baseUrl}${ENDPOINTS.token.path}`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId });
    expect(refreshed.status).toBe(200);
    expectNoCache(refreshed);
  });

  it('the refusal of HTTP Basic client authentication, answered before the provider', async () => {
    const refused = await fetch(`${app.baseUrl}${ENDPOINTS.token.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('demo-operator-app:x').toString('base64')}` },
      body: 'grant_type=refresh_token&refresh_token=x',
    });
    expect(refused.status).toBe(401);
    expect((await refused.json() as { error: string }).error).toBe('invalid_client');
    expectNoCache(refused);
  });

  it('an error answer of the provider', async () => {
    const refused = await postForm(`${app.baseUrl}${ENDPOINTS.token.path}`, { grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: MEMBER.clientId });
    expect(refused.status).toBe(400);
    expect((await refused.json() as { error: string }).error).toBe('invalid_grant');
    expectNoCache(refused);
  });
});

it('hands the provider the path it routed by: dot segments in an absolute-form target stay unresolved', async () => {
  // a URL parser would resolve these to /.well-known/openid-configuration and
  // /api/oauth/introspect after the dispatcher had routed them as resume paths
  const resolved = await rawRequest({
    port: app.port, method: 'GET', target: `http://evil.example${ENDPOINTS.authorization.path}/../..${ENDPOINTS.openidConfiguration.path}`,
  });
  expect(resolved.status).toBe(404);
  expect(resolved.body).not.toContain('issuer');
  // a POST there is refused for the resume path's methods before anything is handed over,
  // so it never reaches introspection past its refusal of HTTP Basic
  const op = operator(app.baseUrl, app.operatorSecret);
  const basic = `Basic ${Buffer.from(`${op.clientId}:${op.clientSecret}`).toString('base64')}`;
  for (const path of [ENDPOINTS.introspection.path, ENDPOINTS.revocation.path]) {
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    const sneaked = await rawRequest({
      port: app.port, method: 'POST', target: `http://evil.example${ENDPOINTS.authorization.path}/../..${path}`, headers: form, body: 'token=abc',
    });
    expect(sneaked.status).toBe(405);
    expect(sneaked.body).not.toContain('active');
    // the endpoint itself refuses HTTP Basic
    const direct = await rawRequest({ port: app.port, method: 'POST', target: path, headers: form, body: 'token=abc' });
    expect(direct.status).toBe(401);
  }
});
