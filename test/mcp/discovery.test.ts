/**
 * What MCP clients discover before they authorize, read with the discovery functions of the
 * official MCP client SDK (`@modelcontextprotocol/client` 2.x): there is no path-aware
 * protected-resource metadata for `/mcp` (RFC 9728 §3.3 would make its `resource` `/mcp`,
 * while every token is bound to the origin), so the SDK falls back to the root document, whose
 * `resource` is the origin, a prefix of the `/mcp` URL that its resource check accepts; and
 * authorization-server metadata with what MCP clients look for.
 */
import {
  checkResourceAllowed, discoverOAuthProtectedResourceMetadata, discoverOAuthServerInfo, resourceUrlFromServerUrl,
} from '@modelcontextprotocol/client';

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
