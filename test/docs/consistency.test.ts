/**
 * One source of truth: scopes and endpoint paths are identical between discovery,
 * /openapi.json and /auth.md, and the protocol facts the docs restate match what the
 * provider is configured with.
 */
import { validateOptions } from '../../lib/config/validate.ts';
import { buildConfiguration } from '../../lib/provider/configuration.ts';
import type { ConfigurationDeps } from '../../lib/provider/configuration.ts';
import { loopbackPortRule, PROTOCOL } from '../../lib/constants.ts';
import { ENDPOINTS, SCOPE_NAMES } from '../../lib/index.ts';
import { eventually } from '../support/eventually.ts';
import { buildAuthorizeUrl, MEMBER, operator } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { DemoOptions } from '../../examples/host/app.ts';
import { codeSpans, fetchDocuments, tableUnder } from './support.ts';
import type { Documents } from './support.ts';

/** The browser resumes authorization here; only /openapi.json describes it (it is no step of a client's flow). */
const OPENAPI_ONLY = [`${ENDPOINTS.authorization.path}/{uid}`];

const configurations: [string, DemoOptions][] = [
  ['Variant A with ID tokens', {}],
  ['Variant B without ID tokens', { auth: { registration: { variant: 'open' }, idTokens: false } }],
];

describe.each(configurations)('%s', (_name, options) => {
  let baseUrl: string;
  let stop: () => Promise<void>;
  let docs: Documents;
  beforeAll(async () => {
    const app = await startApp(options);
    ({ baseUrl } = app);
    stop = () => app.stop();
    docs = await fetchDocuments(baseUrl);
  });
  afterAll(() => stop());

  const authMdScopes = () => tableUnder(docs.authMd, '### 2.1 Scopes (complete list)').rows.map((r) => codeSpans(r[0]!)[0]);
  const authMdPaths = () => tableUnder(docs.authMd, '## 4. Endpoints').rows.map((r) => codeSpans(r[1]!)[0]!);
  const openapiScopes = () => Object.keys((docs.openapi.components.securitySchemes.oauth2 as { flows: { authorizationCode: { scopes: object } } }).flows.authorizationCode.scopes);

  it('the scopes are the catalogue, in the same order, in all three', () => {
    expect(docs.discovery.scopes_supported).toEqual([...SCOPE_NAMES]);
    expect(openapiScopes()).toEqual(docs.discovery.scopes_supported);
    expect(authMdScopes()).toEqual(docs.discovery.scopes_supported);
  });

  it('every endpoint discovery names is in /openapi.json and in the endpoint table of /auth.md', () => {
    const advertised = Object.entries(docs.discovery)
      .filter(([key, value]) => (key.endsWith('_endpoint') || key === 'jwks_uri') && typeof value === 'string')
      .map(([key, value]) => [key, new URL(value as string).pathname] as const);
    expect(advertised.length).toBeGreaterThanOrEqual(6);
    for (const [key, path] of advertised) {
      expect([key, docs.openapi.paths[path] !== undefined]).toEqual([key, true]);
      expect([key, authMdPaths().includes(path)]).toEqual([key, true]);
    }
    const oauth2 = (docs.openapi.components.securitySchemes.oauth2 as { flows: { authorizationCode: { authorizationUrl: string; tokenUrl: string } } }).flows.authorizationCode;
    expect(oauth2.authorizationUrl).toBe(docs.discovery.authorization_endpoint);
    expect(oauth2.tokenUrl).toBe(docs.discovery.token_endpoint);
    expect(docs.openapi.servers[0]!.url).toBe(docs.discovery.issuer);
  });

  it('/openapi.json and /auth.md list the same paths', () => {
    const described = Object.keys(docs.openapi.paths).filter((p) => !OPENAPI_ONLY.includes(p));
    expect([...authMdPaths()].sort()).toEqual(described.sort());
  });

  it('the JWKS appears in all three exactly when ID tokens are on', () => {
    const on = 'jwks_uri' in docs.discovery;
    expect(docs.openapi.paths[ENDPOINTS.jwks.path] !== undefined).toBe(on);
    expect(authMdPaths().includes(ENDPOINTS.jwks.path)).toBe(on);
    expect('id_token_signing_alg_values_supported' in docs.discovery).toBe(on);
  });

  it('the protocol facts the docs restate are the ones discovery advertises', () => {
    expect(docs.discovery).toMatchObject({
      response_types_supported: [...PROTOCOL.responseTypes],
      response_modes_supported: [...PROTOCOL.responseModes],
      grant_types_supported: [...PROTOCOL.grantTypes],
      token_endpoint_auth_methods_supported: [...PROTOCOL.tokenEndpointAuthMethods],
      revocation_endpoint_auth_methods_supported: [...PROTOCOL.tokenEndpointAuthMethods],
      introspection_endpoint_auth_methods_supported: [...PROTOCOL.tokenEndpointAuthMethods],
      code_challenge_methods_supported: [...PROTOCOL.codeChallengeMethods],
    });
    if ('id_token_signing_alg_values_supported' in docs.discovery) {
      expect(docs.discovery.id_token_signing_alg_values_supported).toEqual([PROTOCOL.idTokenSigningAlg]);
    }
    expect(docs.discovery.client_id_metadata_document_supported).toBe(docs.authMd.includes('Client ID Metadata Documents: **on**'));
  });

  // without the revocation and introspection fields RFC 8414 §2 means client_secret_basic, which is refused
  it.each(['token', 'revocation', 'introspection'])('the %s endpoint\'s auth methods are the same in discovery, /openapi.json and /auth.md', (endpoint) => {
    const field = `${endpoint}_endpoint_auth_methods_supported`;
    expect(docs.discovery[field]).toEqual([...PROTOCOL.tokenEndpointAuthMethods]);
    const schema = (docs.openapi.components.schemas.AuthorizationServerMetadata as { properties: Record<string, { items: { enum: string[] } }> }).properties[field];
    expect(schema?.items.enum).toEqual(docs.discovery[field]);
    expect(docs.authMd).toContain(`\`${field}\``);
    for (const method of PROTOCOL.tokenEndpointAuthMethods) expect(docs.authMd).toContain(`\`${method}\``);
  });
});

it('the ID token lifetime the docs state is the provider\'s', async () => {
  const accounts = { authenticate: async () => undefined, findById: async () => undefined };
  const options = await validateOptions({ baseUrl: 'https://learn.example.com', accounts, logger: { info() {}, warn() {}, error() {} } });
  const deps = { grantContexts: {}, findClient: async () => undefined } as unknown as ConfigurationDeps;
  const ttl = buildConfiguration(options, deps).ttl as unknown as { IdToken: () => number };
  expect(ttl.IdToken()).toBe(PROTOCOL.idTokenLifetime);
});

describe('the loopback port rule: one wording everywhere, and what the server does', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => { app = await startApp(); });
  afterAll(() => app.stop());

  /** Whether the authorization endpoint takes `redirectUri` for `clientId` (a 303 onward, not the error page). */
  async function accepted(clientId: string, redirectUri: string): Promise<boolean> {
    const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri }, { scope: 'openid', challenge: pkcePair().challenge, state: 's' });
    const res = await fetch(url, { redirect: 'manual' });
    return res.status === 303 && !/invalid_redirect_uri/.test(await res.text());
  }

  it('auth.md, /openapi.json and the trace\'s advice state it alike', async () => {
    const docs = await fetchDocuments(app.baseUrl);
    expect(docs.authMd).toContain(`Redirect URIs match exactly; ${loopbackPortRule((o) => o.map((x) => `\`${x}\``).join(', '))}.`);
    const authorize = docs.openapi.paths[ENDPOINTS.authorization.path]!.get as unknown as { parameters: { name: string; description: string }[] };
    expect(authorize.parameters.find((p) => p.name === 'redirect_uri')!.description).toContain(loopbackPortRule());
    // a web client's loopback redirect on another port: refused, and the advice does not say otherwise
    const operatorApp = operator(app.baseUrl, app.operatorSecret);
    expect(await accepted(operatorApp.clientId, operatorApp.redirectUri.replace(/:\d+\//, ':1/'))).toBe(false);
    const trace = await eventually(() => app.auth.clientTrace(operatorApp.clientId), (t) => t.length > 0);
    expect(trace[0]!.action).toContain('and only for a native app');
  });

  it('a native app\'s loopback redirect matches on any port, localhost included; a member client with one is native', async () => {
    expect(await accepted(MEMBER.clientId, 'http://127.0.0.1:4567/callback')).toBe(true);
    const { client } = await app.auth.memberClients.create('demo-school', { name: 'Localhost app', type: 'public', redirectUris: ['http://localhost/cb'], scopes: ['openid', 'account:read'] });
    expect(await accepted(client.clientId, 'http://localhost:4567/cb')).toBe(true);
  });
});
