/**
 * What an anonymous caller can make the shared store keep (model `ClientMetadataDocument`):
 * a body is kept only when it is the document of the URL it was fetched from (its
 * `client_id`), and for at most SHARED_CACHE_MAX_SECONDS whatever its host asks. A body
 * anyone may serve (refused as a document) is remembered briefly as a failure, without
 * its text: the fetch budget bounds a rate, not what is kept.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { SHARED_CACHE_MAX_SECONDS } from '../../lib/cimd/fetch.ts';
import { ADMIN, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
let app: RunningApp;
const adapter = createMemoryAdapter();
const store = () => adapter('ClientMetadataDocument');

beforeAll(async () => {
  docs = await startDocumentServer();
  app = await startApp({ auth: { adapter, registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: docs.fetch } } });
});
afterAll(async () => {
  await app.stop();
  await docs.close();
});

it('a body that is not the document of its URL is refused and not kept; its failure is kept briefly', async () => {
  docs.serve('/junk', () => ({ body: { client_id: 'https://somewhere.else.example/', filler: 'x'.repeat(4900) }, headers: { 'cache-control': 'max-age=86400' } }));
  for (let i = 0; i < 3; i += 1) {
    const id = `${docs.url('tools.example', '/junk')}?n=${i}`;
    const res = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId: id, redirectUri: 'http://127.0.0.1:5000/callback' }, { scope: 'openid', challenge: pkcePair().challenge }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    const kept = await store().find(id) as { body?: string; maxAge?: number } | undefined;
    expect(kept?.body).toBeUndefined();
    expect(kept?.maxAge).toBeLessThanOrEqual(30);
  }
});

it('a document of its URL is kept, for at most SHARED_CACHE_MAX_SECONDS, and serves its client', async () => {
  const clientId = docs.url('tools.example', '/kept.json');
  docs.serve('/kept.json', {
    body: { client_id: clientId, client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] },
    headers: { 'cache-control': 'max-age=86400' },
  });
  const tokens = await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid' }, ADMIN);
  expect(tokens.access_token).toEqual(expect.any(String));
  const kept = await store().find(clientId) as { body?: string; maxAge?: number };
  expect(kept.body).toContain(clientId);
  expect(kept.maxAge).toBe(SHARED_CACHE_MAX_SECONDS);
});
