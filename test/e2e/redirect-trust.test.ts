/**
 * No redirect before trust (lib/policies/redirect-trust.ts, RFC 9700 §4.11.2): a client that
 * registered itself (Variant B) or an unreviewed metadata document gets errors of the
 * authorization endpoint on our error page, never at its redirect URI; configured, member and
 * reviewed document clients, and loopback redirect URIs, keep the RFC 6749 §4.1.2.1 redirect;
 * after the user has acted on our pages (Deny), the error goes back to the client.
 */
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { Browser, isPage, signIn } from '../support/browser.ts';
import { ADMIN, buildAuthorizeUrl } from '../support/flows.ts';
import type { FlowClient } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const EVIL = 'https://evil.example/cb';

let docs: DocumentServer;
let app: RunningApp;
let registered: FlowClient;
let unreviewedDocument: FlowClient;
let reviewedDocument: FlowClient;
let managedMember: FlowClient;

const CONFIGURED_OPERATOR: FlowClient = { clientId: 'partner-app', redirectUri: 'https://partner.example/cb' };
const CONFIGURED_MEMBER: FlowClient = { clientId: 'school-app', redirectUri: 'https://school-app.example/cb' };

const configuredClients: PlatformAuthOptions['clients'] = [
  {
    client_id: CONFIGURED_OPERATOR.clientId, client_name: 'Partner', token_endpoint_auth_method: 'none',
    redirect_uris: [CONFIGURED_OPERATOR.redirectUri], audience: 'operator',
  },
  {
    client_id: CONFIGURED_MEMBER.clientId, client_name: 'School app', token_endpoint_auth_method: 'none',
    redirect_uris: [CONFIGURED_MEMBER.redirectUri], scope: 'openid profile account:read', audience: 'member', org_id: 'demo-school',
  },
];

function publishDocument(name: string, redirectUri: string): string {
  const path = `/clients/${name}.json`;
  const clientId = docs.url('evil.example', path);
  docs.serve(path, {
    body: {
      client_id: clientId, client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    },
  });
  return clientId;
}

beforeAll(async () => {
  docs = await startDocumentServer();
  const unreviewedId = publishDocument('unreviewed', EVIL);
  const reviewedId = publishDocument('reviewed', EVIL);
  app = await startApp({
    auth: {
      clients: configuredClients,
      registration: { variant: 'open' },
      clientIdMetadataDocuments: { fetch: docs.fetch, reviewed: [reviewedId] },
    },
  });
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Totally Legit', redirect_uris: [EVIL], token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  registered = { clientId: (await res.json()).client_id, redirectUri: EVIL };
  unreviewedDocument = { clientId: unreviewedId, redirectUri: EVIL };
  reviewedDocument = { clientId: reviewedId, redirectUri: EVIL };
  const { client } = await app.auth.memberClients.create('demo-school', {
    name: 'Study buddy', redirectUris: ['https://buddy.example/cb'], type: 'public', scopes: ['openid', 'account:read'],
  });
  managedMember = { clientId: client.clientId, redirectUri: 'https://buddy.example/cb' };
});

afterAll(async () => {
  await app?.stop();
  await docs?.close();
});

type Case = readonly [label: string, params: (client: FlowClient) => string, error: string];

const withPkce = { challenge: pkcePair().challenge };
const CASES: readonly Case[] = [
  ['an unknown scope', (c) => buildAuthorizeUrl(app.baseUrl, c, { scope: 'openid teleport:write', state: 'st', ...withPkce }), 'invalid_scope'],
  ['prompt=none without a session', (c) => buildAuthorizeUrl(app.baseUrl, c, { scope: 'openid', state: 'st', ...withPkce, extra: { prompt: 'none' } }), 'login_required'],
  ['no PKCE', (c) => buildAuthorizeUrl(app.baseUrl, c, { scope: 'openid', state: 'st' }), 'invalid_request'],
];

/** One request, no redirect followed. */
const get = (url: string) => fetch(url, { redirect: 'manual' });

async function expectErrorPage(res: Response, error: string): Promise<string> {
  const html = await res.text();
  expect({ status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type') })
    .toEqual({ status: 400, location: null, type: expect.stringContaining('text/html') });
  expect(html).toContain('This sign-in link does not work');
  expect(html).toContain(error);
  expect(html).not.toContain('evil.example');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('cache-control')).toBe('no-store');
  return html;
}

function expectErrorRedirect(res: Response, client: FlowClient, error: string): void {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
  expect(location.searchParams.get('error')).toBe(error);
  expect(location.searchParams.get('state')).toBe('st');
  expect(location.searchParams.get('iss')).toBe(app.baseUrl);
}

describe('a self-registered client (Variant B) with an off-site redirect URI', () => {
  it.each(CASES)('%s: an error page, no Location', async (_label, url, error) => {
    await expectErrorPage(await get(url(registered)), error);
  });

  it.each([
    ['plain PKCE', { scope: 'openid', state: 'st', extra: { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' } }, 'invalid_request'],
    ['a resource of another server', { scope: 'openid', state: 'st', ...withPkce, resource: 'https://elsewhere.example/' }, 'invalid_target'],
    ['an unsupported response type', { scope: 'openid', state: 'st', ...withPkce, extra: { response_type: 'token' } }, 'unsupported_response_type'],
    ['an unknown response mode', { scope: 'openid', state: 'st', ...withPkce, extra: { response_mode: 'jwt' } }, 'unsupported_response_mode'],
    ['a request_uri (no pushed authorization requests)', { scope: 'openid', state: 'st', ...withPkce, extra: { request_uri: 'urn:ietf:params:oauth:request_uri:x' } }, 'request_uri_not_supported'],
    ['a request object', { scope: 'openid', state: 'st', ...withPkce, extra: { request: 'e30.e30.' } }, 'request_not_supported'],
  ])('%s: an error page', async (_label, params, error) => {
    await expectErrorPage(await get(buildAuthorizeUrl(app.baseUrl, registered, params)), error);
  });

  it.each(['query', 'fragment', 'form_post'])('response_mode=%s: an error page, no redirect and no form to the client', async (mode) => {
    const url = buildAuthorizeUrl(app.baseUrl, registered, { scope: 'openid teleport:write', state: 'st', ...withPkce, extra: { response_mode: mode } });
    const html = await expectErrorPage(await get(url), 'invalid_scope');
    expect(html).not.toMatch(/<form[^>]*action="https:/);
  });

  it('a POST to the authorization endpoint is not served (oidc-provider\'s enableHttpPostMethods is off): no redirect either', async () => {
    const res = await fetch(`${app.baseUrl}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response_type: 'code', client_id: registered.clientId, redirect_uri: EVIL, scope: 'openid', prompt: 'none' }),
    });
    // refused for its method (lib/http/allowed-methods.ts) before the provider reads it
    expect({ status: res.status, location: res.headers.get('location'), allow: res.headers.get('allow') }).toEqual({ status: 405, location: null, allow: 'GET, HEAD' });
  });

  it('a signed-in user: prompt=none without consent is still an error page; an approved flow still redirects with its code', async () => {
    const browser = new Browser(app.baseUrl);
    // sign in for another client, so the session exists but this client has no grant
    await signIn(browser, buildAuthorizeUrl(app.baseUrl, CONFIGURED_OPERATOR, { scope: 'openid', state: 'st', ...withPkce }), ADMIN);
    const silent = buildAuthorizeUrl(app.baseUrl, registered, { scope: 'openid', state: 'st', ...withPkce, extra: { prompt: 'none' } });
    await expectErrorPage(await browser.request(silent), 'consent_required');

    const approved = new URL(await signIn(browser, buildAuthorizeUrl(app.baseUrl, registered, { scope: 'openid', state: 'st2', ...withPkce }), ADMIN));
    expect(`${approved.origin}${approved.pathname}`).toBe(EVIL);
    expect(approved.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('Deny on the consent page sends access_denied back to the client: the user chose to return to it', async () => {
    const redirect = new URL(await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, registered, {
      scope: 'openid', state: 'st', ...withPkce,
    }), { ...ADMIN, decision: 'deny' }));
    expect(`${redirect.origin}${redirect.pathname}`).toBe(EVIL);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
  });

  it('an unregistered redirect URI stays the provider\'s invalid_redirect_uri page', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, { ...registered, redirectUri: 'https://evil.example/other' }, { scope: 'openid teleport:write', state: 'st' });
    await expectErrorPage(await get(url), 'invalid_redirect_uri');
  });

  it('pushed authorization requests are off: no endpoint to answer from (a request_uri is refused above)', async () => {
    const discovery = await (await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).json();
    expect(discovery.pushed_authorization_request_endpoint).toBeUndefined();
  });
});

describe('a registered client with a loopback redirect URI: errors still go back to the native app', () => {
  it.each(CASES)('%s: redirected to the loopback URI', async (_label, url, error) => {
    const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' }),
    });
    const native = { clientId: (await res.json()).client_id, redirectUri: 'http://127.0.0.1:47001/callback' };
    expectErrorRedirect(await get(url(native)), native, error);
  });
});

describe('an unreviewed metadata-document client', () => {
  it.each(CASES)('%s: an error page, no Location', async (_label, url, error) => {
    await expectErrorPage(await get(url(unreviewedDocument)), error);
  });

  it('a scope above the unreviewed cap: an error page', async () => {
    const url = buildAuthorizeUrl(app.baseUrl, unreviewedDocument, { scope: 'openid courses:write', state: 'st', ...withPkce });
    await expectErrorPage(await get(url), 'invalid_scope');
  });
});

describe('trusted clients keep the RFC 6749 §4.1.2.1 redirect', () => {
  const trusted: readonly (readonly [string, () => FlowClient])[] = [
    ['a configured operator client', () => CONFIGURED_OPERATOR],
    ['a configured member client', () => CONFIGURED_MEMBER],
    ['a member client created by a site operator', () => managedMember],
    ['a reviewed metadata-document client', () => reviewedDocument],
  ];
  describe.each(trusted)('%s', (_who, client) => {
    it.each(CASES)('%s: redirected with the error', async (_label, url, error) => {
      expectErrorRedirect(await get(url(client())), client(), error);
    });
  });

  it.each(['fragment', 'form_post'])('response_mode=%s: the error goes to the client in that mode', async (mode) => {
    const url = buildAuthorizeUrl(app.baseUrl, CONFIGURED_OPERATOR, { scope: 'openid teleport:write', state: 'st', ...withPkce, extra: { response_mode: mode } });
    const res = await get(url);
    if (mode === 'fragment') {
      const location = new URL(res.headers.get('location')!);
      expect(new URLSearchParams(location.hash.slice(1)).get('error')).toBe('invalid_scope');
    } else {
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain(`action="${CONFIGURED_OPERATOR.redirectUri}"`);
      expect(html).toContain('value="invalid_scope"');
    }
  });
});

describe('the consent page is reached as before', () => {
  it('a valid request of a self-registered client leads to the sign-in page', async () => {
    const state = randomState();
    const first = await new Browser(app.baseUrl).navigate(buildAuthorizeUrl(app.baseUrl, registered, { scope: 'openid', state, ...withPkce }));
    expect(isPage(first) && first.html.includes('name="password"')).toBe(true);
  });
});
