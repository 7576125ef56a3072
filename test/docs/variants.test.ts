/**
 * The configuration changes both documents: registration variant, ID tokens, metadata
 * documents and the optional endpoints; and each document can be turned off (404).
 */
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { codeBlocks, codeSpans, fetchDocuments, filler, parseCurl, sendCurl, tableUnder } from './support.ts';
import type { Documents } from './support.ts';

describe('Variant B (open) without ID tokens', () => {
  let app: RunningApp;
  let docs: Documents;
  beforeAll(async () => {
    app = await startApp({ auth: { registration: { variant: 'open' }, idTokens: false } });
    docs = await fetchDocuments(app.baseUrl);
  });
  afterAll(() => app.stop());

  it('/openapi.json describes RFC 7591 registration and no ID tokens', () => {
    const { openapi } = docs;
    expect(openapi.paths['/api/oauth/register']!.post!.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ClientRegistrationRequest' } } },
    });
    expect(openapi.components.schemas).not.toHaveProperty('VendorLookupRequest');
    expect(openapi.components.schemas.ClientRegistrationRequest).toMatchObject({ required: ['redirect_uris'] });
    expect(openapi.paths).not.toHaveProperty(['/api/oauth/jwks']);
    expect(openapi.components.schemas).not.toHaveProperty('JWKS');
    expect((openapi.components.schemas.TokenResponse as { properties: object }).properties).not.toHaveProperty('id_token');
    expect((openapi.components.schemas.AuthorizationServerMetadata as { properties: object }).properties).not.toHaveProperty('jwks_uri');
    const params = (openapi.paths['/oauth/authorize']!.get!.parameters as { name: string }[]).map((p) => p.name);
    expect(params).not.toContain('nonce');
  });

  it('/auth.md says Variant B, no ID tokens, metadata documents from any host', () => {
    const md = docs.authMd;
    expect(md).toContain('this deployment runs **Variant B (open)**');
    expect(md).not.toContain('**Variant A (restricted)**');
    expect(md).toContain('### 2.3 ID token: not issued by this deployment');
    expect(md).toContain('Client ID Metadata Documents: **on**, from **any host**');
    expect(tableUnder(md, '## 4. Endpoints').rows.map((r) => codeSpans(r[1]!)[0])).not.toContain('/api/oauth/jwks');
    expect(tableUnder(md, /^### Authorization request parameters/).rows.map((r) => codeSpans(r[0]!)[0])).not.toContain('nonce');
    expect(Object.fromEntries(tableUnder(md, '## 8. Limits').rows.map((r) => [r[0], r[1]]))).not.toHaveProperty('ID token lifetime');
    expect(md).not.toContain('<ID_TOKEN>');
  });

  it('the registration example of /auth.md registers a client', async () => {
    const command = codeBlocks(docs.authMd).find((b) => b.body.includes('/api/oauth/register'))!.body;
    const res = await sendCurl(parseCurl(command, filler({})));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ client_id: expect.any(String), token_endpoint_auth_method: 'none' });
  });
});

it('/auth.md names the hosts metadata documents are accepted from', async () => {
  const app = await startApp({ auth: { clientIdMetadataDocuments: { allowedHosts: ['app.example.com', 'tools.example.org:8443'] } } });
  try {
    const md = await (await fetch(`${app.baseUrl}/auth.md`)).text();
    expect(md).toContain('Client ID Metadata Documents: **on**, only from these hosts: `app.example.com`, `tools.example.org:8443` (one without a port is port 443 only); a `client_id` URL on any other host or port is rejected');
    expect(md).toContain('this deployment runs **Variant A (restricted)**');
  } finally {
    await app.stop();
  }
});

it('without member data and MCP, neither document mentions /account/graphql or /mcp', async () => {
  const app = await startApp({ auth: { memberData: undefined, mcp: false } });
  try {
    const docs = await fetchDocuments(app.baseUrl);
    expect(Object.keys(docs.openapi.paths).filter((p) => p === '/account/graphql' || p === '/mcp')).toEqual([]);
    expect(docs.openapi.components.schemas).not.toHaveProperty('GraphQLRequest');
    expect(docs.authMd).not.toContain('/account/graphql');
    expect(docs.authMd).not.toMatch(/`\/mcp`/);
    expect(docs.authMd).toContain('This deployment does not serve the Account API.');
  } finally {
    await app.stop();
  }
});

describe('turning the documents off', () => {
  it.each([
    ['/openapi.json', { openapi: false }],
    ['/auth.md', { authMd: false }],
  ] as const)('%s answers 404, the other still 200', async (path, docsOptions) => {
    const app = await startApp({ auth: { docs: docsOptions } });
    try {
      expect((await fetch(`${app.baseUrl}${path}`)).status).toBe(404);
      const other = path === '/openapi.json' ? '/auth.md' : '/openapi.json';
      const res = await fetch(`${app.baseUrl}${other}`);
      expect(res.status).toBe(200);
      // the remaining document does not point at the one that is off
      expect(await res.text()).not.toContain(`${app.baseUrl}${path}`);
    } finally {
      await app.stop();
    }
  });

  it('both off: 404 for both', async () => {
    const app = await startApp({ auth: { docs: { openapi: false, authMd: false } } });
    try {
      expect((await fetch(`${app.baseUrl}/openapi.json`)).status).toBe(404);
      expect((await fetch(`${app.baseUrl}/auth.md`)).status).toBe(404);
    } finally {
      await app.stop();
    }
  });
});
