/**
 * Identity scopes a client may not hold are dropped from its authorization request, not
 * refused (lib/policies/scope-allowance.ts, grantableScope): the protected-resource metadata
 * advertises `openid profile email`, MCP clients ask for exactly that first, and a member
 * client whose scopes the operator picked without `email` must still be able to sign in. The
 * token response's `scope` says what was granted (RFC 6749 §3.3); nothing else is trimmed.
 */
import { decodeJwt } from 'jose';

import { Browser } from '../support/browser.ts';
import { STUDENT, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let withoutEmail: FlowClient;
let dataOnly: FlowClient;
beforeAll(async () => {
  app = await startApp();
  const create = async (scopes: string[]) => {
    const { client } = await app.auth.memberClients.create('demo-school', { name: 'Study Buddy', redirectUris: ['http://127.0.0.1/callback'], type: 'public', scopes });
    return { clientId: client.clientId, redirectUri: 'http://127.0.0.1/callback' };
  };
  // the README's own example of a member client
  withoutEmail = await create(['openid', 'profile', 'account:read']);
  dataOnly = await create(['account:read']);
});
afterAll(() => app.stop());

/** Where the authorization request for `scope` sends the browser first. */
async function firstAnswer(client: FlowClient, scope: string): Promise<URL> {
  const browser = new Browser(app.baseUrl);
  const res = await browser.request(buildAuthorizeUrl(app.baseUrl, client, { scope, resource: app.baseUrl, challenge: pkcePair().challenge, state: 's' }));
  return new URL(res.headers.get('location')!, app.baseUrl);
}

it('the protected-resource metadata\'s scopes are granted without the one the client may not hold, and the token says so', async () => {
  const metadata = await (await fetch(`${app.baseUrl}/.well-known/oauth-protected-resource`)).json() as { scopes_supported: string[] };
  const tokens = await obtainTokens(app.baseUrl, withoutEmail, { scope: metadata.scopes_supported.join(' '), resource: app.baseUrl, nonce: 'n' }, STUDENT);
  expect(metadata.scopes_supported).toEqual(['openid', 'profile', 'email']);
  expect(tokens.scope.split(' ').sort()).toEqual(['openid', 'profile']);
  expect(decodeJwt(tokens.id_token!).email).toBeUndefined();
  const userinfo = await (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json() as Record<string, unknown>;
  expect(userinfo).toMatchObject({ sub: 'acc-student', name: expect.any(String) });
  expect(userinfo.email).toBeUndefined();
});

it('with its data scope asked too, the member gets a token for it', async () => {
  const tokens = await obtainTokens(app.baseUrl, withoutEmail, { scope: 'openid profile email account:read', resource: app.baseUrl }, STUDENT);
  expect(tokens.scope.split(' ').sort()).toEqual(['account:read', 'openid', 'profile']);
});

it('a scope of another kind the client may not hold is still refused: invalid_scope, never trimmed', async () => {
  const refused = await firstAnswer(withoutEmail, 'openid email courses:read');
  expect(refused.searchParams.get('error')).toBe('invalid_scope');
});

it('a request that would keep nothing is refused naming the scope, not turned into a request for nothing', async () => {
  const refused = await firstAnswer(dataOnly, 'openid profile email');
  expect(refused.origin + refused.pathname).toBe('http://127.0.0.1/callback');
  expect(refused.searchParams.get('error')).toBe('invalid_scope');
});

it('a client that may hold every identity scope is asked for what it asked (nothing rewritten)', async () => {
  const first = await firstAnswer(withoutEmail, 'openid profile account:read');
  expect(first.pathname).toMatch(/^\/oauth\/interaction\//);
});
