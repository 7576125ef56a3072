/**
 * What MCP clients discover before they authorize, read with the discovery functions of the
 * official MCP client SDK (`@modelcontextprotocol/client` 2.x): there is no path-aware
 * protected-resource metadata for `/mcp` (RFC 9728 §3.3 would make its `resource` `/mcp`,
 * while every token is bound to the origin), so the SDK falls back to the root document, whose
 * `resource` is the origin, a prefix of the `/mcp` URL that its resource check accepts; and
 * authorization-server metadata with what MCP clients look for. A challenge's
 * `resource_metadata` links to that root document too, whose `resource` is then not the URL
 * requested (RFC 9728 §3.3 ¶2 asks for identity): the SDK's same-origin prefix check accepts it,
 * and `/auth.md` tells other clients to do the same (README, MCP → Discovery).
 */
import { readFileSync } from 'node:fs';

import {
  checkResourceAllowed, discoverOAuthProtectedResourceMetadata, discoverOAuthServerInfo, extractWWWAuthenticateParams,
  resourceUrlFromServerUrl, selectResourceURL,
} from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';

import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
let open: RunningApp;
let restricted: RunningApp;

const mcpUrl = (app: RunningApp) => new URL('/mcp', app.baseUrl);

/** A fetch that records what was asked and answered. */
function recording(seen: string[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    seen.push(`${String(input instanceof Request ? input.url : input)} ${response.status}`);
    return response;
  };
}

beforeAll(async () => {
  docs = await startDocumentServer();
  open = await startApp({ auth: { registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: docs.fetch } } });
  restricted = await startApp();
});
afterAll(async () => {
  await open.stop();
  await restricted.stop();
  await docs.close();
});

describe('protected-resource metadata', () => {
  it('is served at the root only, naming resource = the origin', async () => {
    const root = await fetch(new URL('/.well-known/oauth-protected-resource', open.baseUrl));
    expect(root.status).toBe(200);
    expect(root.headers.get('access-control-allow-origin')).toBe('*');
    expect(await root.json()).toEqual(expect.objectContaining({
      resource: open.baseUrl,
      authorization_servers: [open.baseUrl],
      scopes_supported: ['openid', 'profile', 'email'],
      bearer_methods_supported: ['header'],
    }));
    const pathAware = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', open.baseUrl));
    expect(pathAware.status).toBe(404);
    await pathAware.body?.cancel();
  });

  it('the SDK tries the path-aware URL, falls back to the root, and accepts the origin as the resource of /mcp', async () => {
    const seen: string[] = [];
    const prm = await discoverOAuthProtectedResourceMetadata(mcpUrl(open), undefined, recording(seen));
    expect(seen).toEqual([
      `${open.baseUrl}/.well-known/oauth-protected-resource/mcp 404`,
      `${open.baseUrl}/.well-known/oauth-protected-resource 200`,
    ]);
    expect(prm.resource).toBe(open.baseUrl);
    expect(prm.authorization_servers).toEqual([open.baseUrl]);
    expect(checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(mcpUrl(open)), configuredResource: prm.resource })).toBe(true);
  });

  it.each([['Variant B', () => open], ['Variant A', () => restricted]])('%s: the SDK\'s discoverOAuthServerInfo finds this server as the authorization server', async (_name, app) => {
    const info = await discoverOAuthServerInfo(mcpUrl(app()));
    expect(info.resourceMetadata).toEqual(expect.objectContaining({ resource: app().baseUrl, authorization_servers: [app().baseUrl] }));
    expect(String(info.authorizationServerUrl).replace(/\/$/, '')).toBe(app().baseUrl);
    expect(info.authorizationServerMetadata?.issuer).toBe(app().baseUrl);
  });
});

describe('the document a challenge links to (resource_metadata)', () => {
  /** A protected endpoint's 401, for a request without a usable token. */
  const challenges: [path: string, init: RequestInit][] = [
    ['/mcp', { method: 'POST', headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' }],
    ['/account/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ viewer { id } }"}' }],
    ['/api/oauth/userinfo', { headers: { authorization: 'Bearer not-a-token' } }],
  ];

  it.each(challenges)('%s: names the origin, not the URL requested, and the SDK\'s resource check accepts it', async (path, init) => {
    const requested = new URL(path, restricted.baseUrl);
    const res = await fetch(requested, init);
    expect(res.status).toBe(401);
    await res.body?.cancel();
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(res);
    expect(resourceMetadataUrl?.href).toBe(`${restricted.baseUrl}/.well-known/oauth-protected-resource`);
    const prm = await discoverOAuthProtectedResourceMetadata(requested, { resourceMetadataUrl });
    // RFC 9728 §3.3 ¶2 would have it be the URL requested: every token is bound to the origin instead
    expect(prm.resource).toBe(restricted.baseUrl);
    expect(new URL(prm.resource).href).not.toBe(requested.href);
    // the MCP SDK's own choice of the resource indicator: a same-origin prefix is accepted
    const provider = {} as OAuthClientProvider;
    expect((await selectResourceURL(requested, provider, prm))?.href).toBe(new URL(restricted.baseUrl).href);
  });

  it('/auth.md says so where it tells clients to discover: the resource named, the endpoints, the prefix match', async () => {
    const md = await (await fetch(new URL('/auth.md', restricted.baseUrl))).text();
    const discover = md.split('\n').find((line) => line.startsWith('1. Discover:'))!;
    const prm = await (await fetch(new URL('/.well-known/oauth-protected-resource', restricted.baseUrl))).json() as { resource: string };
    expect(discover).toContain(`That document names \`resource\` = \`${prm.resource}\``);
    for (const [path] of challenges) expect(discover).toContain(`\`${path}\``);
    expect(discover).toContain('same origin and its path starts with the `resource`\'s path');
  });

  it('the README says so in MCP → Discovery, for each endpoint whose challenge links there', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('- **Challenges link to the root document too**');
    expect(start).toBeGreaterThan(0);
    const bullet = readme.slice(start, readme.indexOf('\n- ', start + 1)).replaceAll(/\s+/g, ' ');
    for (const [path] of challenges) expect(bullet).toContain(`\`${path}\``);
    expect(bullet).toContain('names the origin, not the URL it requested');
    expect(bullet).toContain('same-origin prefix');
  });
});

describe('authorization-server metadata for MCP clients', () => {
  it('Variant B with metadata documents: PKCE S256, client_id_metadata_document_supported, registration_endpoint', async () => {
    const info = await discoverOAuthServerInfo(mcpUrl(open));
    expect(String(info.authorizationServerUrl).replace(/\/$/, '')).toBe(open.baseUrl);
    expect(info.authorizationServerMetadata).toEqual(expect.objectContaining({
      issuer: open.baseUrl,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      registration_endpoint: `${open.baseUrl}/api/oauth/register`,
      authorization_endpoint: `${open.baseUrl}/oauth/authorize`,
      token_endpoint: `${open.baseUrl}/api/oauth/token`,
      response_types_supported: ['code'],
    }));
    expect(info.authorizationServerMetadata!.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(info.authorizationServerMetadata!.token_endpoint_auth_methods_supported).toContain('none');
  });

  it('Variant A without documents: still PKCE and a registration endpoint; documents not supported', async () => {
    const { authorizationServerMetadata } = await discoverOAuthServerInfo(mcpUrl(restricted));
    expect(authorizationServerMetadata).toEqual(expect.objectContaining({
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: false,
      registration_endpoint: `${restricted.baseUrl}/api/oauth/register`,
    }));
  });

  it('publishes the client authentication methods of revocation and introspection (RFC 8414 would default to client_secret_basic)', async () => {
    const { authorizationServerMetadata } = await discoverOAuthServerInfo(mcpUrl(open));
    expect(authorizationServerMetadata).toEqual(expect.objectContaining({
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    }));
  });
});
