/**
 * oidc-provider's error page (lib/pages/error-page.ts) only where a person is: the
 * authorization endpoint and its resume. The token, revocation, introspection and registration
 * endpoints answer their RFC 6749 §5.2 JSON error also to a request that prefers HTML (a
 * browser's form posted straight to them, a client sending a browser's Accept).
 */
import { postForm } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let app: RunningApp;
beforeAll(async () => { app = await startApp({ auth: { registration: { variant: 'open' } } }); });
afterAll(() => app.stop());

async function jsonError(res: Response) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: await res.json() as { error?: string } };
}

it.each([
  ['invalid_grant at the token endpoint', '/api/oauth/token', { grant_type: 'authorization_code', code: 'x', code_verifier: 'a'.repeat(43), redirect_uri: 'http://127.0.0.1:5555/callback', client_id: 'demo-member-app' }, 400, 'invalid_grant'],
  ['invalid_client at the token endpoint', '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'demo-operator-app', client_secret: 'wrong' }, 401, 'invalid_client'],
  ['invalid_request at revocation', '/api/oauth/revoke', { token: 'x' }, 400, 'invalid_request'],
  ['invalid_request at introspection', '/api/oauth/introspect', { token: 'x' }, 400, 'invalid_request'],
])('%s: JSON with a browser Accept', async (_name, path, form, status, error) => {
  const res = await postForm(`${app.baseUrl}${path}`, form, { accept: BROWSER_ACCEPT });
  expect(await jsonError(res)).toEqual({ status, body: expect.objectContaining({ error }) });
});

it('open registration: JSON with Accept: text/html', async () => {
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: JSON.stringify({ redirect_uris: 'x' }),
  });
  expect(await jsonError(res)).toEqual({ status: 400, body: expect.objectContaining({ error: 'invalid_redirect_uri' }) });
});

it('the authorization endpoint still shows a person the page', async () => {
  const res = await fetch(`${app.baseUrl}/oauth/authorize?client_id=nobody&response_type=code`, { headers: { accept: BROWSER_ACCEPT } });
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(await res.text()).toContain('invalid_client');
});
