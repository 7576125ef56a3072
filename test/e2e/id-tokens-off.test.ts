/**
 * idTokens: false — discovery lists neither id_token_signing_alg_values_supported nor
 * jwks_uri, nor auth_time and iss among its claims, no id_token is issued even with `openid`,
 * and UserInfo still answers.
 */
import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ auth: { idTokens: false } });
});
afterAll(() => app.stop());

it('leaves the ID-token fields out of both discovery documents', async () => {
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    const doc = await (await fetch(`${app.baseUrl}${path}`)).json();
    expect(doc).not.toHaveProperty('jwks_uri');
    expect(doc).not.toHaveProperty('id_token_signing_alg_values_supported');
    expect(doc.userinfo_endpoint).toBe(`${app.baseUrl}/api/oauth/userinfo`);
    // what UserInfo can answer, and not the claims only an ID token carries
    expect([...doc.claims_supported].sort()).toEqual(['email', 'name', 'org_id', 'roles', 'sub']);
  }
  expect((await fetch(`${app.baseUrl}/api/oauth/jwks`)).status).toBe(404);
});

it('issues no id_token, and UserInfo answers the claims instead', async () => {
  const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile email account:read', nonce: 'n-1' }, STUDENT);
  expect(tokens).not.toHaveProperty('id_token');
  expect(tokens.refresh_token).toEqual(expect.any(String));
  const info = await (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
  expect(info).toEqual({ sub: 'acc-student', email: 'student@example.com', name: 'Sam Student', org_id: 'demo-school', roles: ['student'] });
});
