/**
 * A role removed at a site takes effect at the next token, not only at the next consent
 * (lib/policies/token-claims.ts, lib/policies/existing-grant.ts). A grant outlives roles:
 * before, an operator removed from a school kept refreshing tokens for it (and reading its
 * students over /mcp), and a silent authorization (`prompt=none`, no consent page) issued new
 * codes; a member removed from a school kept reaching the Account API. Real flows on the demo
 * host, with an account store whose roles the test changes.
 */
import { createAccountStore } from '../../examples/host/seed.ts';
import type { Account, AccountStore } from '../../lib/index.ts';
import { Browser } from '../support/browser.ts';
import { buildAuthorizeUrl, exchangeCode, obtainCode, operator, postForm } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

type Person = Account & { password: string; roles: Record<string, string[]> };
const OLGA: Person = { id: 'acc-olga', email: 'olga@example.com', name: 'Olga Ops', password: 'olga-password', roles: { 'demo-school': ['owner'], 'other-school': ['admin'] } };
const SAM: Person = { id: 'acc-sam', email: 'sam@example.com', name: 'Sam Dent', password: 'sam-password', roles: { 'demo-school': ['student'] } };

/** The demo's accounts plus Olga and Sam, whose roles the test changes. */
function changingAccounts(people: Person[]): AccountStore {
  const demo = createAccountStore();
  const view = ({ password: _p, ...account }: Person): Account => structuredClone(account);
  return {
    async authenticate(email, password) {
      const person = people.find((p) => p.email === email && p.password === password);
      return person ? view(person) : demo.authenticate(email, password);
    },
    async findById(id) {
      const person = people.find((p) => p.id === id);
      return person ? view(person) : demo.findById(id);
    },
  };
}

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ auth: { accounts: changingAccounts([OLGA, SAM]) } });
});
afterAll(() => app.stop());

async function refresh(client: FlowClient & { clientSecret?: string }, refreshToken: string) {
  const res = await postForm(`${app.baseUrl}/api/oauth/token`, {
    grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret,
  });
  return { status: res.status, body: await res.json() };
}

async function mcpTool(token: string, name: string) {
  const res = await fetch(`${app.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
  return (await res.json()).result?.structuredContent;
}

/** A `prompt=none` authorization from `browser`, which holds a session and a grant: where it went. */
async function silently(browser: Browser, client: FlowClient, scope: string): Promise<URL> {
  const { challenge } = pkcePair();
  const answer = await browser.navigate(buildAuthorizeUrl(app.baseUrl, client, { scope, challenge, state: randomState(), extra: { prompt: 'none' } }));
  if (!('redirect' in answer)) throw new Error('no redirect');
  return new URL(answer.redirect);
}

it('an operator removed from a school gets no more tokens for it: refresh and silent authorization refused', async () => {
  const op = operator(app.baseUrl, app.operatorSecret);
  const browser = new Browser(app.baseUrl);
  const scope = 'openid students:read';
  const first = await obtainCode(app.baseUrl, op, { scope }, { email: OLGA.email, password: OLGA.password, orgId: 'demo-school' }, browser);
  const tokens = await (await exchangeCode(app.baseUrl, op, first.code, first.verifier)).json();
  expect(await mcpTool(tokens.access_token, 'whoami')).toMatchObject({ site: 'demo-school', roles: ['owner'] });
  // while she has the role, the grant is reused silently and refreshes work
  expect((await silently(browser, op, scope)).searchParams.get('code')).toEqual(expect.any(String));
  const refreshed = await refresh(op, tokens.refresh_token);
  expect(refreshed.status).toBe(200);

  OLGA.roles = { 'other-school': ['admin'] }; // the school removes her

  expect(await refresh(op, refreshed.body.refresh_token)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
  const silent = await silently(browser, op, scope);
  expect(silent.searchParams.get('code')).toBeNull();
  expect(silent.searchParams.get('error')).toBe('consent_required');
});

it('a member removed from their school gets no more tokens for its member client', async () => {
  const created = await app.auth.memberClients.create('demo-school', {
    name: 'Web study app', type: 'confidential', redirectUris: ['https://webapp.example/callback'], scopes: ['openid', 'account:read'],
  });
  const client = { clientId: created.client.clientId, redirectUri: 'https://webapp.example/callback', clientSecret: created.clientSecret! };
  const browser = new Browser(app.baseUrl);
  const scope = 'openid account:read';
  const first = await obtainCode(app.baseUrl, client, { scope }, { email: SAM.email, password: SAM.password }, browser);
  const tokens = await (await exchangeCode(app.baseUrl, client, first.code, first.verifier)).json();
  const refreshed = await refresh(client, tokens.refresh_token);
  expect(refreshed.status).toBe(200);

  SAM.roles = {};

  const later = await refresh(client, refreshed.body.refresh_token);
  expect(later).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
  const silent = await silently(browser, client, scope);
  expect(silent.searchParams.get('code')).toBeNull();
  expect(silent.searchParams.get('error')).toBe('consent_required');

  // given the role back, the same grant works again
  SAM.roles = { 'demo-school': ['student'] };
  expect((await silently(browser, client, scope)).searchParams.get('code')).toEqual(expect.any(String));
});

it('a refused refresh leaves its token as it was: with the role back, the same token refreshes (no grace to hide a rotation)', async () => {
  const strict = await startApp({ auth: { accounts: changingAccounts([SAM]), refreshTokenGrace: 0 } });
  try {
    const created = await strict.auth.memberClients.create('demo-school', {
      name: 'Strict app', type: 'confidential', redirectUris: ['https://webapp.example/callback'], scopes: ['openid', 'account:read'],
    });
    const client = { clientId: created.client.clientId, redirectUri: 'https://webapp.example/callback', clientSecret: created.clientSecret! };
    SAM.roles = { 'demo-school': ['student'] };
    const first = await obtainCode(strict.baseUrl, client, { scope: 'openid account:read' }, { email: SAM.email, password: SAM.password });
    const tokens = await (await exchangeCode(strict.baseUrl, client, first.code, first.verifier)).json();
    const send = async () => {
      const res = await postForm(`${strict.baseUrl}/api/oauth/token`, {
        grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.clientSecret,
      });
      return { status: res.status, body: await res.json() };
    };

    SAM.roles = {};
    expect((await send()).status).toBe(400);
    SAM.roles = { 'demo-school': ['student'] };
    // not consumed by the refusal: rotated then, this would be reuse, and the grant revoked
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body.access_token).toEqual(expect.any(String));
  } finally {
    SAM.roles = { 'demo-school': ['student'] };
    await strict.stop();
  }
});
