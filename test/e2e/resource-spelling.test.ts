/**
 * The README's rule for the spelling of `resource` (MCP → Discovery; Decisions): `baseUrl` with
 * or without a trailing slash binds a token to `baseUrl`, as long as a client keeps to one
 * spelling within a grant; oidc-provider compares a code exchange's `resource` with the
 * authorization request's, and a refresh's with the granted one, as strings.
 */
import { MEMBER, STUDENT, exchangeCode, obtainCode, obtainTokens, postForm } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid account:read';
let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const refresh = (token: string, resource: string) => postForm(`${app.baseUrl}/api/oauth/token`, {
  grant_type: 'refresh_token', refresh_token: token, client_id: MEMBER.clientId, resource,
});
const audienceOf = async (token: string) => (await (await postForm(`${app.baseUrl}/api/oauth/introspect`, { token, client_id: MEMBER.clientId })).json()).aud;

describe.each([['without', ''], ['with', '/']])('one spelling throughout, %s the trailing slash', (_label, slash) => {
  it('the code exchange and a refresh work, and the token is bound to baseUrl', async () => {
    const resource = `${app.baseUrl}${slash}`;
    const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE, resource }, STUDENT);
    const exchanged = await exchangeCode(app.baseUrl, MEMBER, code, verifier, resource);
    const tokens = await exchanged.json();
    expect(exchanged.status).toBe(200);
    expect(await audienceOf(tokens.access_token)).toBe(app.baseUrl);
    const refreshed = await refresh(tokens.refresh_token, resource);
    expect(refreshed.status).toBe(200);
    expect(await audienceOf((await refreshed.json()).access_token)).toBe(app.baseUrl);
  });
});

it.each([
  ['authorized without the slash, exchanged with it', '', '/'],
  ['authorized with the slash, exchanged without it', '/', ''],
])('a code exchange in the other spelling is invalid_target: %s', async (_label, authorized, exchanged) => {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: SCOPE, resource: `${app.baseUrl}${authorized}` }, STUDENT);
  const res = await exchangeCode(app.baseUrl, MEMBER, code, verifier, `${app.baseUrl}${exchanged}`);
  expect({ status: res.status, error: (await res.json()).error }).toEqual({ status: 400, error: 'invalid_target' });
});

it('a refresh in the other spelling is invalid_target, and the grant is kept', async () => {
  const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: SCOPE, resource: `${app.baseUrl}/` }, STUDENT);
  const other = await refresh(tokens.refresh_token, app.baseUrl);
  expect({ status: other.status, error: (await other.json()).error }).toEqual({ status: 400, error: 'invalid_target' });
  expect((await refresh(tokens.refresh_token, `${app.baseUrl}/`)).status).toBe(200);
});
