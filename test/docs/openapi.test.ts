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
import { defineMcpTool, SCOPES } from '../../lib/index.ts';
import { MCP_REVISIONS } from '../../lib/constants.ts';
import { Browser, findForm, isPage, signIn } from '../support/browser.ts';
import { ADMIN, buildAuthorizeUrl, MEMBER, obtainTokens, operator, postForm, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { switchableAdapter } from '../support/switchable-adapter.ts';
import type { StorageSwitch } from '../support/switchable-adapter.ts';
import { describedResponse, openApiErrors, schemaChecker } from './support.ts';

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

describe('the authorization\'s answers are the documented ones', () => {
  const url = (client: { clientId: string; redirectUri: string }, scope: string, extra: Record<string, string> = {}) => buildAuthorizeUrl(app.baseUrl, client, {
    scope, challenge: pkcePair().challenge, state: randomState(), extra,
  });
  const formPost = { response_mode: 'form_post' };

  /** the answer `res` of `path` is the documented `status`, an HTML page whose description names form_post */
  function expectFormPostPage(path: string, res: Response, html: string, status: number, fields: string[]) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect([...html.matchAll(/<input type="hidden" name="([^"]+)"/g)].map((m) => m[1])).toEqual(expect.arrayContaining(fields));
    const described = describedResponse(doc, path, 'get', status)!;
    expect(Object.keys(described.content!)).toEqual(['text/html']);
    expect(described.description).toContain('`response_mode=form_post`');
    for (const field of fields) expect(described.description).toContain(`\`${field}\``);
  }

  it('each Location of a flow, relative ones included, validates against its documented header schema', async () => {
    const check = schemaChecker(doc);
    const browser = new Browser(app.baseUrl);
    /** the 303 of `path` the request to `target` answers, its Location checked against the documented schema */
    const redirect = async (path: string, target: string) => {
      const res = await browser.request(target);
      expect(res.status).toBe(303);
      const location = res.headers.get('location')!;
      const schema = describedResponse(doc, path, 'get', 303)!.headers!.Location!.schema;
      expect([path, location, check(schema, location)]).toEqual([path, location, []]);
      return location;
    };
    const submit = async (page: string, action: string, fields: Record<string, string> = {}) => {
      const form = findForm(await (await browser.request(page)).text(), action);
      const posted = await browser.request(form.action, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...form.hidden, ...fields }).toString(),
      });
      return posted.headers.get('location')!;
    };
    // the sign-in page, then consent after the resume: relative references; the last hop is redirect_uri
    const signInPage = await redirect('/oauth/authorize', url(MEMBER, 'openid account:read'));
    expect(signInPage).toMatch(/^\/oauth\/interaction\//);
    const consentPage = await redirect('/oauth/authorize/{uid}', await submit(signInPage, '/login', STUDENT));
    expect(consentPage).toMatch(/^\/oauth\/interaction\//);
    expect(await redirect('/oauth/authorize/{uid}', await submit(consentPage, '/confirm'))).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
  });

  it('response_mode=form_post: the resume endpoint answers the code with a 200 page, a denial with a 400 page', async () => {
    for (const [decision, status, fields] of [['/confirm', 200, ['code', 'state', 'iss']], ['/abort', 400, ['error', 'error_description', 'state', 'iss']]] as const) {
      const browser = new Browser(app.baseUrl);
      let step = await browser.navigate(url(MEMBER, 'openid account:read', formPost));
      if (!isPage(step)) throw new Error('expected the sign-in page');
      step = await browser.submit(step, '/login', STUDENT);
      if (!isPage(step)) throw new Error('expected the consent page');
      step = await browser.submit(step, decision);
      if (!isPage(step)) throw new Error(`expected the form_post page, was sent to ${step.redirect}`);
      expect(new URL(step.url).pathname).toMatch(/^\/oauth\/authorize\/[^/]+$/);
      expectFormPostPage('/oauth/authorize/{uid}', step.response, step.html, status, [...fields]);
    }
  });

  it('response_mode=form_post: /oauth/authorize answers prompt=none with a 400 page, a web client with a session and a grant with a 200 page', async () => {
    const refused = await fetch(url(MEMBER, 'openid account:read', { ...formPost, prompt: 'none' }), { redirect: 'manual' });
    expectFormPostPage('/oauth/authorize', refused, await refused.text(), 400, ['error', 'error_description', 'state', 'iss']);

    const client = operator(app.baseUrl, app.operatorSecret);
    const browser = new Browser(app.baseUrl);
    await signIn(browser, url(client, 'openid courses:read'), ADMIN);
    const silent = await browser.request(url(client, 'openid courses:read', formPost));
    expectFormPostPage('/oauth/authorize', silent, await silent.text(), 200, ['code', 'state', 'iss']);
  });

  it('the resume endpoint\'s 503 (storage outage) is the documented page with Retry-After', async () => {
    const storage: StorageSwitch = { failure: 'none' };
    const adapter = switchableAdapter(storage);
    const down = await startApp({ auth: { adapter } });
    try {
      const downDoc = await (await fetch(`${down.baseUrl}/openapi.json`)).json() as OpenApiDocument;
      const browser = new Browser(down.baseUrl);
      const page = await browser.navigate(buildAuthorizeUrl(down.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: randomState() }));
      if (!isPage(page)) throw new Error('expected the sign-in page');
      const form = findForm(page.html, '/login');
      // only writes of the browser session fail, so the sign-in goes through and the resume fails (test/storage/outage.test.ts)
      Object.assign(storage, { models: new Set(['Session']), methods: new Set(['upsert']), failure: 'unavailable' });
      const login = await browser.request(form.action, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...form.hidden, ...STUDENT }).toString(),
      });
      const location = login.headers.get('location')!;
      expect(new URL(location, down.baseUrl).pathname).toMatch(/^\/oauth\/authorize\/[^/]+$/);
      const res = await browser.request(location, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('retry-after')).toEqual(expect.any(String));
      const described = describedResponse(downDoc, '/oauth/authorize/{uid}', 'get', 503)!;
      expect(Object.keys(described.content!)).toEqual(['text/html']);
      expect(Object.keys(described.headers!)).toEqual(['Retry-After']);
    } finally {
      await down.stop();
      await adapter.close();
    }
  });
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

it('a `first` over the cap is answered as documented: a 200 with a BAD_USER_INPUT field error, not a 400', async () => {
  const op = operation('/account/graphql', 'post');
  const cap = Number(/`first` at most (\d+)/.exec(op.description!)![1]);
  expect(cap).toBe(app.auth.options.accountApi.maxPageSize);
  const { access_token: token } = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
  const res = await fetch(`${app.baseUrl}/account/graphql`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ viewer { enrolledCourses(first: ${cap + 1}) { totalCount } } }` }),
  });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'PAGE_SIZE_TOO_LARGE', maximum: cap });
  expect(body.data.viewer.enrolledCourses).toBeNull();
  // the document listed `first` among the query limits, whose answer is a 400
  const { description } = describedResponse(doc, '/account/graphql', 'post', 200)!;
  for (const word of ['BAD_USER_INPUT', 'PAGE_SIZE_TOO_LARGE', `\`first\` over ${cap}`]) expect(description).toContain(word);
  expect(op.description).toMatch(new RegExp(`\`first\` at most ${cap}; a larger one is not a 400`));
});

describe('a bearer token sent more than one way: the 400 invalid_request with the challenge is documented at every guarded route', () => {
  const guarded = [
    ['GET', '/api/oauth/userinfo', {}, undefined],
    ['POST', '/api/oauth/userinfo', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b'],
    ['POST', '/account/graphql', { 'content-type': 'application/json' }, '{"query":"{ viewer { id } }"}'],
    ['POST', '/mcp', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
  ] as const;

  it.each(guarded)('%s %s', async (method, path, headers, body) => {
    // refused before the token is read: any token shows it
    const res = await fetch(`${app.baseUrl}${path}?access_token=sent-twice`, { method, headers: { ...headers, authorization: 'Bearer sent-twice' }, body });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request", error_description="[^"]+", resource_metadata="/);
    const answer = await res.json();
    expect(answer).toEqual({ error: 'invalid_request', error_description: expect.any(String) });

    const described = describedResponse(doc, path, method, 400)!;
    expect(described.description).toContain('`invalid_request`');
    expect(described.headers!['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WWW-Authenticate' });
    expect((doc.components.headers['WWW-Authenticate'] as { description: string }).description).toContain('400 `invalid_request`');
    expect(schemaChecker(doc)(described.content!['application/json']!.schema, answer)).toEqual([]);
  });

  it('the Account API\'s bodies that are either shape match their schema (anyOf: an OAuthError body is a GraphQLResponse too)', () => {
    const check = schemaChecker(doc);
    const unavailable = describedResponse(doc, '/account/graphql', 'post', 503)!.content!['application/json']!.schema;
    expect(check(unavailable, { error: 'temporarily_unavailable', error_description: 'storage is unreachable' })).toEqual([]);
    expect(check(unavailable, { errors: [{ message: 'x', extensions: { code: 'SERVICE_UNAVAILABLE' } }], data: null })).toEqual([]);
  });

  it.each([
    ['/account/graphql', { 'content-type': 'application/json' }, '{"query":"{ viewer { id "}'],
    ['/mcp', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }, '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]'],
  ] as const)('the route\'s own 400 at %s still matches the documented body', async (path, headers, body) => {
    const { access_token: token } = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read', resource: app.baseUrl }, STUDENT);
    const res = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body });
    expect(res.status).toBe(400);
    const described = describedResponse(doc, path, 'post', 400)!;
    expect(schemaChecker(doc)(described.content!['application/json']!.schema, await res.json())).toEqual([]);
  });
});

it('a client that tries HTTP Basic gets the documented 401 with a Basic challenge', async () => {
  const { headers } = describedResponse(doc, '/api/oauth/token', 'post', 401)!;
  // only with an `Authorization` header: an optional header
  expect(headers!['WWW-Authenticate']).toMatchObject({ required: false, schema: { type: 'string' } });
  for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
    expect(operation(path, 'post').responses['401']).toEqual({ $ref: '#/components/responses/InvalidClient' });
    const basic = await postForm(`${app.baseUrl}${path}`, { grant_type: 'refresh_token', refresh_token: 'x', token: 'x' }, {
      authorization: `Basic ${Buffer.from(`${MEMBER.clientId}:x`).toString('base64')}`,
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic .*error="invalid_client"/);
    expect((await basic.json()).error).toBe('invalid_client');
    // without one, no challenge
    const form = await postForm(`${app.baseUrl}${path}`, { client_id: 'no-such-client', grant_type: 'refresh_token', refresh_token: 'x', token: 'x' });
    expect([form.status, form.headers.get('www-authenticate')]).toEqual([401, null]);
  }
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

/** client metadata about ID tokens only, which oidc-provider fills into a registration answer */
const ID_TOKEN_METADATA = ['id_token_signed_response_alg', 'require_auth_time'];

it.each([true, false])('lists every field a Variant B registration answers, and with idTokens %s, the ID-token metadata only when both carry it', async (idTokens) => {
  const open = await startApp({ auth: { registration: { variant: 'open' }, idTokens } });
  try {
    const openDoc = await (await fetch(`${open.baseUrl}/openapi.json`)).json() as OpenApiDocument;
    const res = await fetch(`${open.baseUrl}/api/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Desk Agent', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'client_secret_post' }),
    });
    expect(res.status).toBe(201);
    const answer = await res.json() as Record<string, unknown>;
    expect(undocumented(openDoc, 'ClientRegistrationResponse', answer)).toEqual([]);
    const described = (openDoc.components.schemas.ClientRegistrationResponse as { properties: object }).properties;
    const expected = idTokens ? ID_TOKEN_METADATA : [];
    expect(ID_TOKEN_METADATA.filter((name) => name in answer)).toEqual(expected);
    expect(ID_TOKEN_METADATA.filter((name) => name in described)).toEqual(expected);
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
    // answered before the token is read: no security, no challenge (403: a refused Host or Origin, below)
    expect(op.security).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(['403', '405']);
    const described = op.responses['405'] as { headers: { Allow: { schema: { examples: string[] } } } };
    const res = await fetch(`${app.baseUrl}/mcp`, { method: method.toUpperCase(), headers: { accept: 'text/event-stream', authorization: 'Bearer not-read' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(described.headers.Allow.schema.examples).toEqual([res.headers.get('allow')]);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  }
});

describe('/mcp from a not-allowed Origin: the 403 the server gives (a JSON-RPC error, no challenge) is documented', () => {
  const send = (method: string) => fetch(`${app.baseUrl}/mcp`, {
    method,
    headers: { origin: 'https://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    ...(method === 'POST' ? { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' } : {}),
  });

  it.each(['POST', 'GET', 'DELETE'])('%s', async (method) => {
    const res = await send(method);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const body = await res.json();
    expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Invalid Origin: https://evil.example' }, id: null });
    const described = describedResponse(doc, '/mcp', method, 403)!;
    expect(described.description).toContain('Forbidden: Invalid Origin: …');
    expect(described.description).toContain('without a challenge');
    // a challenge header, where documented, is not a required one
    expect(described.headers?.['WWW-Authenticate']?.required).not.toBe(true);
    expect(schemaChecker(doc)(described.content!['application/json']!.schema, body)).toEqual([]);
  });

  it('POST /mcp\'s 403 still documents insufficient_scope with its challenge', () => {
    const described = describedResponse(doc, '/mcp', 'post', 403)!;
    expect(described.description).toContain('`insufficient_scope`');
    expect(described.headers!['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WWW-Authenticate' });
    expect(schemaChecker(doc)(described.content!['application/json']!.schema, { error: 'insufficient_scope', error_description: 'x' })).toEqual([]);
  });
});

describe('/mcp: what its 400 and 503 say is what it answers', () => {
  const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MCP_REVISIONS.current, 'io.modelcontextprotocol/clientCapabilities': {} };
  /** a 2026-07-28 call of `tool` whose Mcp-Name header names `named` */
  const call = (baseUrl: string, tool: string, named: string, authorization?: string) => fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_REVISIONS.current,
      'mcp-method': 'tools/call', 'mcp-name': named, ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {}, _meta: ENVELOPE } }),
  });

  it('400: a header that disagrees with the body is the documented code, but a token that is sent is judged first', async () => {
    const described = describedResponse(doc, '/mcp', 'post', 400)!.description!;
    const tokenless = await call(app.baseUrl, 'whoami', 'search_courses');
    expect(tokenless.status).toBe(400);
    const { error } = await tokenless.json();
    expect(described).toContain(`(\`${error.code}\`)`);
    const badToken = await call(app.baseUrl, 'whoami', 'search_courses', 'Bearer not-a-token');
    expect(badToken.status).toBe(401);
    expect((await badToken.json()).error).toBe('invalid_token');
    expect(described).toContain('A token that is sent is checked first (a bad one is 401 `invalid_token`)');
    expect(described).not.toContain('before any token is judged');
  });

  it('503: the bound on the answer holds on every revision, 2026-07-28 included', async () => {
    const stuck = defineMcpTool({
      name: 'stuck', description: 'waits on a backend that never answers', audience: 'public', scopes: [], inputSchema: {},
      handler: () => new Promise<Record<string, unknown>>(() => {}),
    });
    const bounded = await startApp({ auth: { mcp: { tools: [stuck], answerTimeout: 1 } } });
    try {
      const served = await (await fetch(`${bounded.baseUrl}/openapi.json`)).json() as OpenApiDocument;
      const described = describedResponse(served, '/mcp', 'post', 503)!.description!;
      const res = await call(bounded.baseUrl, 'stuck', 'stuck');
      expect(res.status).toBe(503);
      const { error } = await res.json();
      expect(described).toContain(`no answer started within 1 second, on any revision (JSON-RPC \`${error.code}\`)`);
      expect(described).not.toMatch(/2025-revision/);
    } finally {
      await bounded.stop();
    }
  });
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
