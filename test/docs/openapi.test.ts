/**
 * GET /openapi.json: a valid OpenAPI 3.1 document (checked with
 * @seriousme/openapi-schema-validator against the official 3.1 schema, every $ref resolved),
 * with the scope catalogue in its OAuth2 scheme, the RFC 6749 §5.2 error schema and the
 * challenge answers of the protected endpoints; served with caching headers.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { validateOptions } from '../../lib/config/validate.ts';
import { buildOpenApiDocument } from '../../lib/docs/index.ts';
import { createCookieKey } from '../../lib/keys/secrets.ts';
import type { OpenApiDocument, OpenApiOperation } from '../../lib/docs/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { SCOPES } from '../../lib/index.ts';
import { MEMBER, obtainTokens, postForm, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { openApiErrors } from './support.ts';

let app: RunningApp;
let doc: OpenApiDocument;
beforeAll(async () => {
  app = await startApp();
  doc = await (await fetch(`${app.baseUrl}/openapi.json`)).json();
});
afterAll(() => app.stop());

const operation = (path: string, method: string) => (doc.paths[path] as Record<string, OpenApiOperation>)[method]!;

it('is valid OpenAPI 3.1', async () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(await openApiErrors(doc)).toEqual([]);
  expect(doc.servers).toEqual([{ url: app.baseUrl }]);
});

it('the validator refuses a broken document (a dangling $ref, a response without description)', async () => {
  const dangling = structuredClone(doc);
  delete dangling.components.schemas.TokenResponse;
  expect(await openApiErrors(dangling)).not.toEqual([]);
  const undescribed = structuredClone(doc) as unknown as { paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>> };
  delete undescribed.paths['/api/oauth/token']!.post!.responses['200']!.description;
  expect(await openApiErrors(undescribed)).not.toEqual([]);
});

describe('every combination of options gives a valid document', () => {
  const accounts = { authenticate: async () => undefined, findById: async () => undefined };
  const base: PlatformAuthOptions = { baseUrl: 'https://learn.example.com', accounts, logger: { info() {}, warn() {}, error() {} } };
  const memberData = createDemoMemberData();
  it.each([
    ['defaults', {}],
    ['open registration, no ID tokens', { registration: { variant: 'open' }, idTokens: false }],
    ['Account API and MCP', { memberData }],
    ['Account API without MCP, production', { memberData, mcp: false, production: true, cookieKeys: [createCookieKey()], adapter: createMemoryAdapter() }],
    ['metadata documents from listed hosts', { clientIdMetadataDocuments: { allowedHosts: ['app.example.com'] } }],
  ] as [string, Partial<PlatformAuthOptions>][])('%s', async (_name, extra) => {
    const options = { ...base, ...extra };
    if (options.production) {
      const { generateKeyPair, exportJWK } = await import('jose');
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      options.jwks = { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1' }] };
    }
    const resolved = await validateOptions(options);
    const built = buildOpenApiDocument(resolved, resolved.docs.openapi || { paths: {}, extend: undefined });
    expect(await openApiErrors(built)).toEqual([]);
  });
});

it('lists the whole scope catalogue, with descriptions and audiences, in an authorizationCode scheme', () => {
  const scheme = doc.components.securitySchemes.oauth2 as { type: string; flows: { authorizationCode: { authorizationUrl: string; tokenUrl: string; refreshUrl: string; scopes: Record<string, string> } } };
  expect(scheme.type).toBe('oauth2');
  const flow = scheme.flows.authorizationCode;
  expect(flow.authorizationUrl).toBe(`${app.baseUrl}/oauth/authorize`);
  expect(flow.tokenUrl).toBe(`${app.baseUrl}/api/oauth/token`);
  expect(flow.refreshUrl).toBe(flow.tokenUrl);
  expect(Object.keys(flow.scopes)).toEqual(SCOPES.map((s) => s.name));
  for (const s of SCOPES) {
    expect(flow.scopes[s.name]).toContain(s.description);
    expect(flow.scopes[s.name]).toContain(s.audiences.join(' and '));
  }
});

it('has the RFC 6749 §5.2 error schema, used by the OAuth endpoints', () => {
  expect(doc.components.schemas.OAuthError).toMatchObject({
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  });
  const examples = (doc.components.schemas.OAuthError as { properties: { error: { examples: string[] } } }).properties.error.examples;
  expect(examples).toEqual(expect.arrayContaining(['invalid_request', 'invalid_grant', 'invalid_client', 'invalid_scope', 'invalid_client_metadata', 'invalid_token', 'insufficient_scope']));
  const token = operation('/api/oauth/token', 'post');
  expect(token.responses['400']).toEqual({ $ref: '#/components/responses/OAuthError' });
});

it('describes the token endpoint with one form schema per grant', () => {
  const body = operation('/api/oauth/token', 'post').requestBody as { content: Record<string, { schema: { $ref: string } }> };
  expect(body.content['application/x-www-form-urlencoded']!.schema).toEqual({ $ref: '#/components/schemas/TokenRequest' });
  const { schemas } = doc.components;
  expect(schemas.TokenRequest).toMatchObject({ discriminator: { propertyName: 'grant_type' } });
  expect(schemas.TokenRequest_authorization_code).toMatchObject({
    required: ['grant_type', 'code', 'redirect_uri', 'client_id', 'code_verifier'],
    properties: { grant_type: { const: 'authorization_code' }, resource: {}, client_secret: {} },
  });
  expect(schemas.TokenRequest_refresh_token).toMatchObject({
    required: ['grant_type', 'refresh_token', 'client_id'],
    properties: { grant_type: { const: 'refresh_token' } },
  });
  expect(schemas.TokenResponse).toMatchObject({ properties: { id_token: {}, refresh_token: {}, expires_in: { examples: [3600] } } });
});

it('describes the authorization parameters, PKCE S256 only', () => {
  const params = operation('/oauth/authorize', 'get').parameters as { name: string; required: boolean; schema: Record<string, unknown> }[];
  expect(params.map((p) => p.name)).toEqual(['response_type', 'client_id', 'redirect_uri', 'scope', 'resource', 'code_challenge', 'code_challenge_method', 'state', 'response_mode', 'nonce']);
  expect(params.find((p) => p.name === 'code_challenge_method')).toMatchObject({ required: true, schema: { enum: ['S256'] } });
  expect(params.find((p) => p.name === 'state')!.required).toBe(false);
  expect(params.find((p) => p.name === 'response_mode')).toMatchObject({ required: false, schema: { enum: ['form_post', 'fragment', 'query'] } });
});

it('lists the browser pages\' 503: the "Temporarily unavailable" page with Retry-After, as the README says they answer a storage outage', () => {
  for (const [path, method] of [['/oauth/authorize', 'get'], ['/oauth/interaction/{uid}', 'get']] as const) {
    const responses = operation(path, method).responses as Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
    expect(Object.keys(responses[503]!.content!)).toEqual(['text/html']);
    expect(Object.keys(responses[503]!.headers!)).toEqual(['Retry-After']);
  }
});

it('describes /account/graphql: JSON body, account:read for member clients, 401/403 with WWW-Authenticate', () => {
  const op = operation('/account/graphql', 'post');
  expect(op.security).toEqual([{ oauth2: ['account:read'] }]);
  expect(op['x-audiences']).toEqual(['member']);
  expect(op.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/GraphQLRequest' } } } });
  expect(op.responses['401']).toEqual({ $ref: '#/components/responses/InvalidToken' });
  expect(op.responses['403']).toEqual({ $ref: '#/components/responses/InsufficientScope' });
  for (const name of ['InvalidToken', 'InsufficientScope']) {
    expect(doc.components.responses[name]).toMatchObject({
      headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } },
    });
  }
  expect(doc.components.headers['WWW-Authenticate']).toMatchObject({ schema: { type: 'string' } });
});

it('what it says about /account/graphql is what the endpoint answers', async () => {
  const none = await fetch(`${app.baseUrl}/account/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ viewer { id } }"}' });
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token".*resource_metadata="/);
  expect((await none.json()).error).toBe('invalid_token');
});

/** The names of `body` its schema `name` in `document` does not list. */
function undocumented(document: OpenApiDocument, name: string, body: Record<string, unknown>): string[] {
  const schema = document.components.schemas[name] as { properties: object };
  return Object.keys(body).filter((key) => !(key in schema.properties));
}

it('lists every field introspection answers, for an access and a refresh token', async () => {
  const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
  for (const token of [tokens.access_token, tokens.refresh_token]) {
    const answer = await (await postForm(`${app.baseUrl}/api/oauth/introspect`, { token, client_id: MEMBER.clientId })).json() as Record<string, unknown>;
    expect(answer.active).toBe(true);
    expect(undocumented(doc, 'IntrospectionResponse', answer)).toEqual([]);
  }
});

it('what it says about GET /account/graphql is what the endpoint answers: 405 for a GET that takes no HTML', async () => {
  const get = await fetch(`${app.baseUrl}/account/graphql`, { headers: { accept: 'application/json' } });
  expect(get.status).toBe(405);
  expect(Object.keys(operation('/account/graphql', 'get').responses)).toContain('405');
});

it('lists the status Variant A answers a registration body over the limit with', async () => {
  const big = await fetch(`${app.baseUrl}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x'.repeat(20_000) }) });
  expect(big.status).toBe(413);
  expect(Object.keys(operation('/api/oauth/register', 'post').responses)).toContain('413');
});

it('lists every field a Variant B registration answers', async () => {
  const open = await startApp({ auth: { registration: { variant: 'open' } } });
  try {
    const openDoc = await (await fetch(`${open.baseUrl}/openapi.json`)).json() as OpenApiDocument;
    const res = await fetch(`${open.baseUrl}/api/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Desk Agent', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'client_secret_post' }),
    });
    expect(res.status).toBe(201);
    expect(undocumented(openDoc, 'ClientRegistrationResponse', await res.json() as Record<string, unknown>)).toEqual([]);
  } finally {
    await open.stop();
  }
});

it('describes /mcp with optional authorization', () => {
  expect(operation('/mcp', 'post').security).toEqual([{}, { oauth2: [] }]);
  expect(operation('/mcp', 'post').responses['401']).toEqual({ $ref: '#/components/responses/InvalidToken' });
});

it('what it says about GET and DELETE /mcp is what the endpoint answers: 405 with Allow, no session', async () => {
  // no session header anywhere: the server is stateless
  expect(JSON.stringify(doc.paths['/mcp'])).not.toMatch(/session-id/i);
  for (const method of ['get', 'delete']) {
    const op = operation('/mcp', method);
    // answered before the token is read: no security, no challenge
    expect(op.security).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(['405']);
    const described = op.responses['405'] as { headers: { Allow: { schema: { examples: string[] } } } };
    const res = await fetch(`${app.baseUrl}/mcp`, { method: method.toUpperCase(), headers: { accept: 'text/event-stream', authorization: 'Bearer not-read' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(described.headers.Allow.schema.examples).toEqual([res.headers.get('allow')]);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  }
});

it('describes registration per variant (default: Variant A, client_name lookup)', () => {
  const op = operation('/api/oauth/register', 'post');
  expect(op.requestBody).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/VendorLookupRequest' } } } });
  expect(doc.components.schemas.VendorLookupRequest).toMatchObject({ required: ['client_name'] });
  expect(doc.components.schemas).not.toHaveProperty('ClientRegistrationRequest');
});

it('gives every operation a unique operationId and a summary', () => {
  const ids: string[] = [];
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as OpenApiOperation[]) {
      expect(op.summary).toEqual(expect.any(String));
      ids.push(op.operationId!);
    }
  }
  expect(new Set(ids).size).toBe(ids.length);
});

describe('caching', () => {
  it.each([
    ['/openapi.json', /^application\/json; charset=utf-8$/],
    ['/auth.md', /^text\/markdown; charset=utf-8$/],
  ])('%s has its media type, an ETag and Cache-Control, and answers 304 to If-None-Match', async (path, type) => {
    const first = await fetch(`${app.baseUrl}${path}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(type);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    // as fetch sends it (it adds `Cache-Control: no-cache` to a conditional request), and with
    // other cache directives: a conditional request is answered whatever they say
    for (const cacheControl of [undefined, 'no-cache', 'max-age=0']) {
      const again = await fetch(`${app.baseUrl}${path}`, { headers: { 'if-none-match': etag!, ...(cacheControl ? { 'cache-control': cacheControl } : {}) } });
      expect({ cacheControl, status: again.status }).toEqual({ cacheControl, status: 304 });
      expect(again.headers.get('etag')).toBe(etag);
    }
    // a list, a weak form of the tag, and `*` name it too; another tag does not
    for (const given of [`"other", ${etag}`, `W/${etag}`, '*']) {
      expect((await fetch(`${app.baseUrl}${path}`, { headers: { 'if-none-match': given } })).status).toBe(304);
    }
    const changed = await fetch(`${app.baseUrl}${path}`, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
  });

  it('answers HEAD like GET without a body, and refuses other methods', async () => {
    const head = await fetch(`${app.baseUrl}/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toEqual(expect.any(String));
    const post = await fetch(`${app.baseUrl}/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('is the same document on every request', async () => {
    const [a, b] = await Promise.all([fetch(`${app.baseUrl}/openapi.json`), fetch(`${app.baseUrl}/openapi.json`)]);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
  });
});
