/**
 * Several `resource` values at the token endpoint (issue #16): `invalid_target`, whether they
 * differ or repeat one value; oidc-provider alone collapsed them into the default resource.
 */
import { MEMBER, STUDENT, obtainCode } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp();
});

afterAll(async () => {
  await app.stop();
});

async function exchangeWithResources(resources: string[]) {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
  const body = new URLSearchParams({
    grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: MEMBER.redirectUri, client_id: MEMBER.clientId,
  });
  for (const resource of resources) body.append('resource', resource);
  return fetch(`${app.baseUrl}/api/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body,
  });
}

describe('resource at the token endpoint', () => {
  it.each([
    ['the same value twice', (base: string) => [base, base]],
    ['two spellings of this resource', (base: string) => [base, `${base}/`]],
  ])('%s: invalid_target', async (_label, resources) => {
    const response = await exchangeWithResources(resources(app.baseUrl));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('one value: tokens', async () => {
    expect((await exchangeWithResources([app.baseUrl])).status).toBe(200);
  });

  it('several values on refresh: invalid_target', async () => {
    const first = await exchangeWithResources([app.baseUrl]);
    const { refresh_token: refreshToken } = await first.json() as { refresh_token: string };
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId });
    body.append('resource', app.baseUrl);
    body.append('resource', app.baseUrl);
    const response = await fetch(`${app.baseUrl}/api/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_target' });
  });
});
