/**
 * The well-known documents carry every field the spec names, derived from the catalogue
 * and the endpoint table.
 */
import { ENDPOINTS, IDENTITY_SCOPES, SCOPE_NAMES } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const get = async (path: string) => {
  const res = await fetch(`${app.baseUrl}${path}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/(jwk-set\+)?json/);
  return res.json();
};

it.each(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])('%s lists the endpoints, grants, methods and scopes', async (path) => {
  const doc = await get(path);
  const url = (id: keyof typeof ENDPOINTS) => `${app.baseUrl}${ENDPOINTS[id].path}`;
  expect(doc).toMatchObject({
    issuer: app.baseUrl,
    authorization_endpoint: url('authorization'),
    token_endpoint: url('token'),
    userinfo_endpoint: url('userinfo'),
    revocation_endpoint: url('revocation'),
    introspection_endpoint: url('introspection'),
    jwks_uri: url('jwks'),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    id_token_signing_alg_values_supported: ['ES256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: false,
    scopes_supported: [...SCOPE_NAMES],
  });
  expect(doc).not.toHaveProperty('end_session_endpoint');
  expect(doc).not.toHaveProperty('pushed_authorization_request_endpoint');
  expect(doc).not.toHaveProperty('dpop_signing_alg_values_supported');
});

it('both authorization-server documents are the same', async () => {
  expect(await get('/.well-known/oauth-authorization-server')).toEqual(await get('/.well-known/openid-configuration'));
});

it('serves RFC 9728 protected-resource metadata', async () => {
  expect(await get('/.well-known/oauth-protected-resource')).toEqual({
    resource: app.baseUrl,
    authorization_servers: [app.baseUrl],
    scopes_supported: [...IDENTITY_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${app.baseUrl}/auth.md`,
    resource_name: 'Course platform API',
  });
});

it('serves only ES256 public keys at jwks_uri', async () => {
  const { keys } = await get(ENDPOINTS.jwks.path);
  expect(keys.length).toBeGreaterThan(0);
  for (const key of keys) {
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(key).not.toHaveProperty('d');
  }
});

it('leaves unknown paths to the host app', async () => {
  expect((await fetch(`${app.baseUrl}/nothing-here`)).status).toBe(404);
  expect((await fetch(`${app.baseUrl}/`)).status).toBe(200);
});
