/**
 * The MCP SDK's own OAuth client, end to end, against Variant B (open registration) with
 * Client ID Metadata Documents: from a bare 401 the SDK discovers the protected-resource
 * metadata and the authorization server, obtains a client (dynamic registration, or its
 * metadata-document URL), sends PKCE and `resource`; the test walks the authorization URL
 * through the real sign-in and consent pages; the SDK exchanges the code and `tools/call`
 * succeeds; an expired access token is refreshed by the SDK on the next 401.
 *
 * What the SDK flow can reach, and what each test uses:
 * - registered and metadata-document clients are operator clients: operator tools (with the
 *   scope the 401 names) or public tools plus identity (with the metadata's identity scopes);
 * - member tools need a member client, which only a site operator creates
 *   (`auth.memberClients`): the SDK gets it as pre-registered client information.
 */
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { ADMIN, STUDENT } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { AuthorizationRefused, TestOAuthProvider, ephemeralRedirect } from '../support/mcp-oauth.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { mcpUrl, recordingFetch, rejection, structured } from './support.ts';
import type { SeenResponse } from './support.ts';

let docs: DocumentServer;
let app: RunningApp;

beforeAll(async () => {
  docs = await startDocumentServer();
  app = await startApp({
    auth: {
      registration: { variant: 'open' },
      clientIdMetadataDocuments: { fetch: docs.fetch },
      ttl: { accessToken: 2 },
    },
  });
});
afterAll(async () => {
  await app.stop();
  await docs.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const path = (s: SeenResponse) => `${s.method} ${new URL(s.url).pathname} ${s.status}`;
const PRM = () => `${app.baseUrl}/.well-known/oauth-protected-resource`;

function sdkClient(provider: TestOAuthProvider, seen: SeenResponse[] = []) {
  const transport = new StreamableHTTPClientTransport(mcpUrl(app), { authProvider: provider, fetch: recordingFetch(seen) });
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  return { client, transport, seen };
}

/** The checks every authorization request the SDK builds must pass. */
function expectAuthorizationRequest(provider: TestOAuthProvider, clientId: string, scope: string, resource = app.baseUrl) {
  const params = provider.lastAuthorization;
  expect(Object.fromEntries(params)).toEqual({
    response_type: 'code',
    client_id: clientId,
    code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    code_challenge_method: 'S256',
    redirect_uri: provider.redirectUrl,
    state: expect.any(String),
    scope,
    resource,
  });
}

describe('dynamic registration (Variant B)', () => {
  it('from a bare 401: discovery, registration, PKCE + resource, sign-in, code exchange, tools/call, then a refresh', async () => {
    const provider = new TestOAuthProvider({
      redirectUrl: ephemeralRedirect(),
      tokens: { access_token: 'garbage-token-from-another-life', token_type: 'Bearer' },
    });
    const first = sdkClient(provider);
    expect(await rejection(first.client.connect(first.transport))).toBeInstanceOf(UnauthorizedError);
    expect(first.seen.map(path)).toEqual([
      'POST /mcp 401',
      'GET /.well-known/oauth-protected-resource 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /api/oauth/register 201',
    ]);
    const clientId = (provider.clientInformation() as { client_id: string }).client_id;
    // PRM scopes_supported (identity only): what the SDK asks for when the 401 names none
    expectAuthorizationRequest(provider, clientId, 'openid profile email');

    const code = await provider.approve(app.baseUrl, ADMIN);
    await first.transport.finishAuth(code);
    const tokens = provider.tokens()!;
    expect(tokens.scope!.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const second = sdkClient(provider);
    await second.client.connect(second.transport);
    expect(structured(await second.client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({
      authenticated: true, subject: 'acc-admin', audience: 'operator', site: 'demo-school', clientId, scopes: ['email', 'openid', 'profile'],
    }));
    expect(structured(await second.client.callTool({ name: 'search_courses', arguments: { query: 'ink' } }))).toEqual(expect.objectContaining({ totalCount: 1 }));

    // the access token lives 2 s; the next call is a 401 the SDK answers with a refresh
    await sleep(2_500);
    const before = second.seen.length;
    const saved = provider.savedTokens.length;
    expect(structured(await second.client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({ subject: 'acc-admin', clientId }));
    expect(second.seen.slice(before).map(path)).toEqual(expect.arrayContaining(['POST /mcp 401', 'POST /api/oauth/token 200', 'POST /mcp 200']));
    expect(provider.savedTokens).toHaveLength(saved + 1);
    const refreshed = provider.tokens()!;
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await second.client.close();
  });

  it('from an anonymous call to an operator tool: the 401 names courses:read, and the SDK registers and asks for it', async () => {
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect() });
    const { client, transport, seen } = sdkClient(provider);
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('list_site_courses');

    expect(await rejection(client.callTool({ name: 'list_site_courses', arguments: {} }))).toBeInstanceOf(UnauthorizedError);
    expect(seen.map(path).slice(-4)).toEqual([
      'POST /mcp 401',
      'GET /.well-known/oauth-protected-resource 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /api/oauth/register 201',
    ]);
    const clientId = (provider.clientInformation() as { client_id: string }).client_id;
    expectAuthorizationRequest(provider, clientId, 'courses:read');
    await transport.finishAuth(await provider.approve(app.baseUrl, ADMIN));

    const { site, courses } = structured<{ site: string; courses: unknown[] }>(await client.callTool({ name: 'list_site_courses', arguments: {} }));
    expect(site).toBe('demo-school');
    expect(courses).toHaveLength(31);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_site_courses');
    await client.close();
  });
});

describe('Client ID Metadata Document', () => {
  it('the SDK uses its document URL as client_id (no registration); the flow ends in a tools/call', async () => {
    const documentPath = '/clients/mcp-agent.json';
    const clientId = docs.url('tools.example', documentPath);
    // as real MCP clients publish it: loopback redirect, no port, no application_type
    docs.serve(documentPath, {
      body: {
        client_id: clientId,
        client_name: 'MCP Agent',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    });
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect(), clientMetadataUrl: clientId });
    const { client, transport, seen } = sdkClient(provider);
    await client.connect(transport);
    expect(await rejection(client.callTool({ name: 'list_site_students', arguments: {} }))).toBeInstanceOf(UnauthorizedError);
    expect(seen.map(path)).not.toContain('POST /api/oauth/register 201');
    expectAuthorizationRequest(provider, clientId, 'students:read');

    await transport.finishAuth(await provider.approve(app.baseUrl, ADMIN));
    expect(structured(await client.callTool({ name: 'list_site_students', arguments: {} }))).toEqual({
      site: 'demo-school',
      students: [expect.objectContaining({ id: 'acc-student' })],
    });
    expect(structured(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({ clientId, audience: 'operator' }));
    expect(docs.hits(documentPath)).toBeGreaterThanOrEqual(1);
    await client.close();
  });
});

describe('a member client through the SDK flow', () => {
  it('pre-registered by a site operator: the 401 names account:read, and the member tools answer for the student', async () => {
    const { client: memberClient } = await app.auth.memberClients.create('demo-school', {
      name: 'Study Buddy', redirectUris: ['http://127.0.0.1/callback'], type: 'public', scopes: ['openid', 'profile', 'account:read'],
    });
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect(), clientInformation: { client_id: memberClient.clientId } });
    const { client, transport } = sdkClient(provider);
    await client.connect(transport);
    expect(await rejection(client.callTool({ name: 'list_my_courses', arguments: { first: 5 } }))).toBeInstanceOf(UnauthorizedError);
    expectAuthorizationRequest(provider, memberClient.clientId, 'account:read');
    await transport.finishAuth(await provider.approve(app.baseUrl, STUDENT));

    const page = structured<{ courses: { slug: string }[]; totalCount: number }>(await client.callTool({ name: 'list_my_courses', arguments: { first: 5 } }));
    expect(page.totalCount).toBe(27);
    expect(page.courses[0]!.slug).toBe('watercolour-basics');
    // the same token at the Account API
    const res = await fetch(`${app.baseUrl}/account/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.tokens()!.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect((await res.json()).data.viewer.id).toBe('acc-student');
    await client.close();
  });
});

describe('compatibility profile of real clients', () => {
  const serverUrl = () => mcpUrl(app);

  /** `auth()` from the SDK, the way a client drives it by hand: start, approve, exchange. */
  async function authorize(provider: TestOAuthProvider, user = ADMIN, scope?: string) {
    expect(await auth(provider, { serverUrl: serverUrl(), resourceMetadataUrl: new URL(PRM()), ...(scope ? { scope } : {}) })).toBe('REDIRECT');
    const code = await provider.approve(app.baseUrl, user);
    expect(await auth(provider, { serverUrl: serverUrl(), resourceMetadataUrl: new URL(PRM()), authorizationCode: code, ...(scope ? { scope } : {}) })).toBe('AUTHORIZED');
    return provider.tokens()!;
  }

  async function whoami(token: string) {
    const seen: SeenResponse[] = [];
    const transport = new StreamableHTTPClientTransport(serverUrl(), { fetch: recordingFetch(seen), requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'compat', version: '1' });
    await client.connect(transport);
    const me = structured(await client.callTool({ name: 'whoami', arguments: {} }));
    await client.close();
    return me;
  }

  it('a loopback redirect on an ephemeral port, registered without application_type, works on the next port too', async () => {
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect() });
    expect(provider.clientMetadata).not.toHaveProperty('application_type');
    await authorize(provider);
    const registered = provider.clientInformation() as { client_id: string; redirect_uris: string[] };
    expect(registered.redirect_uris).toEqual([provider.redirectUrl]);

    // the client restarts on another free port and keeps its registration
    provider.redirectUrl = ephemeralRedirect();
    provider.invalidateCredentials('tokens');
    const tokens = await authorize(provider);
    expect(provider.lastAuthorization.get('redirect_uri')).toBe(provider.redirectUrl);
    expect(await whoami(tokens.access_token)).toEqual(expect.objectContaining({ clientId: registered.client_id }));
  });

  it.each([
    ['without a trailing slash (the metadata\'s resource, verbatim)', false, ''],
    ['with a trailing slash (URL.href of it)', true, '/'],
  ])('resource %s: a token for this origin', async (_label, trailingSlash, suffix) => {
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect(), resourceWithTrailingSlash: trailingSlash });
    const tokens = await authorize(provider);
    expect(provider.lastAuthorization.get('resource')).toBe(`${app.baseUrl}${suffix}`);
    expect(await whoami(tokens.access_token)).toEqual(expect.objectContaining({ authenticated: true }));
  });

  it('asking for every scope of the protected-resource metadata: all of them granted', async () => {
    const prm = await (await fetch(PRM())).json() as { scopes_supported: string[] };
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect() });
    const tokens = await authorize(provider, ADMIN, prm.scopes_supported.join(' '));
    expect(tokens.scope!.split(' ').sort()).toEqual([...prm.scopes_supported].sort());
  });

  it('registering with every scope of the authorization server: a clear invalid_client_metadata, not a drop or a 500', async () => {
    const as = await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json() as { scopes_supported: string[] };
    const seen: SeenResponse[] = [];
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect() });
    const error = await rejection(auth(provider, { serverUrl: serverUrl(), scope: as.scopes_supported.join(' '), fetchFn: recordingFetch(seen) }));
    expect(seen.map(path)).toContain('POST /api/oauth/register 400');
    expect(error).toEqual(expect.objectContaining({ errorCode: 'invalid_client_metadata', message: expect.stringContaining('account:') }));
  });

  it('a metadata-document client asking for every scope of the authorization server: invalid_scope at authorization, not a drop', async () => {
    const as = await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json() as { scopes_supported: string[] };
    const documentPath = '/clients/greedy.json';
    const clientId = docs.url('other.example', documentPath);
    docs.serve(documentPath, { body: { client_id: clientId, client_name: 'Greedy', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' } });
    const provider = new TestOAuthProvider({ redirectUrl: ephemeralRedirect(), clientMetadataUrl: clientId });
    expect(await auth(provider, { serverUrl: serverUrl(), scope: as.scopes_supported.join(' ') })).toBe('REDIRECT');
    const refused = await rejection(provider.approve(app.baseUrl, ADMIN));
    expect(refused).toBeInstanceOf(AuthorizationRefused);
    expect((refused as AuthorizationRefused).error).toBe('invalid_scope');
  });
});
