/**
 * What MCP clients discover before they authorize: the protected-resource metadata at the
 * root and at the path-aware URL of `/mcp`, both naming this origin as `resource`, and
 * authorization-server metadata with what MCP clients look for. Read with the SDK's own
 * discovery functions as well as plain fetches.
 */
import {
  discoverOAuthProtectedResourceMetadata, discoverOAuthServerInfo, selectResourceURL,
} from '@modelcontextprotocol/sdk/client/auth.js';

import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { TestOAuthProvider } from '../support/mcp-oauth.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { mcpUrl } from './support.ts';

let docs: DocumentServer;
let open: RunningApp;
let restricted: RunningApp;

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
  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])('%s names resource = the origin', async (path) => {
    const res = await fetch(new URL(path, open.baseUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual(expect.objectContaining({
      resource: open.baseUrl,
      authorization_servers: [open.baseUrl],
      scopes_supported: ['openid', 'profile', 'email'],
      bearer_methods_supported: ['header'],
    }));
  });

  it('the SDK finds it from the /mcp URL alone (path-aware first) and accepts the origin as the resource for /mcp', async () => {
    const seen: string[] = [];
    const prm = await discoverOAuthProtectedResourceMetadata(mcpUrl(open), undefined, (url, init) => {
      seen.push(String(url));
      return fetch(url, init);
    });
    expect(seen[0]).toBe(`${open.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(prm.resource).toBe(open.baseUrl);
    const resource = await selectResourceURL(mcpUrl(open), new TestOAuthProvider({ redirectUrl: 'http://127.0.0.1/cb' }), prm);
    expect(resource?.origin).toBe(open.baseUrl);
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
});
