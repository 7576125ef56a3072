/**
 * `sector_identifier_uri` (lib/policies/client-metadata.ts, lib/provider/configuration.ts):
 * subjects are public only, so no registered or metadata-document client may name one, and
 * the server never fetches one. oidc-provider fetched it from any host, past the metadata
 * documents' allowlist and budgets, at every registration and every document load.
 */
import { buildAuthorizeUrl } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const REFUSAL = 'sector_identifier_uri is not supported: subject identifiers are public, never pairwise';

let docs: DocumentServer;
const apps: RunningApp[] = [];
beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await docs.close();
});

it('a metadata document naming one is refused, and the URI never fetched', async () => {
  const app = await startApp({ auth: { clientIdMetadataDocuments: { allowedHosts: [`tools.example:${docs.port}`], fetch: docs.fetch } } });
  apps.push(app);
  const clientId = docs.url('tools.example', '/sector-client.json');
  docs.serve('/sector', { body: ['http://127.0.0.1/callback'] });
  docs.serve('/sector-client.json', {
    body: {
      client_id: clientId, client_name: 'x', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none',
      sector_identifier_uri: docs.url('other.example', '/sector'),
    },
  });
  const res = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1/callback' }, {
    scope: 'openid', state: 's', challenge: pkcePair().challenge,
  }), { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(docs.hits('/sector-client.json')).toBe(1);
  expect(docs.hits('/sector')).toBe(0);
});

it('open registration refuses one with invalid_client_metadata, and never fetches it', async () => {
  const app = await startApp({ auth: { registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: docs.fetch } } });
  apps.push(app);
  docs.serve('/registered-sector', { body: ['https://app.example/cb'] });
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'x', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none',
      sector_identifier_uri: docs.url('evil.example', '/registered-sector'),
    }),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: 'invalid_client_metadata', error_description: REFUSAL });
  expect(docs.hits('/registered-sector')).toBe(0);
});
