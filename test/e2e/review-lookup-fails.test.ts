/**
 * A host's `clientIdMetadataDocuments.reviewed` callback that fails (throws or rejects): the
 * client counts as not reviewed, as README "No redirect before trust" says, and the failure is
 * logged. Only the redirect-trust rule caught it; the scope allowance and the pages awaited it
 * unguarded, so an unreviewed client asking only for what it may hold got a 500 page.
 */
import { ADMIN, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import { publicClientDocument, startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
let app: RunningApp;
beforeAll(async () => {
  docs = await startDocumentServer();
  app = await startApp({
    auth: {
      registration: { variant: 'open', rateLimit: false },
      clientIdMetadataDocuments: {
        fetch: docs.fetch,
        reviewed: () => { throw new Error('review store unreachable'); },
      },
    },
  });
});
afterAll(async () => {
  await app.stop();
  await docs.close();
});

function publish(path: string): string {
  const clientId = docs.url('tools.example', path);
  docs.serve(path, { body: publicClientDocument(clientId) });
  return clientId;
}

it('an unreviewed-scope request goes on to sign-in, not a 500', async () => {
  const clientId = publish('/clients/review-fails-1.json');
  const res = await fetch(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5000/callback' }, {
    scope: 'openid courses:read', state: 's', challenge: pkcePair().challenge,
  }), { redirect: 'manual' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toMatch(/\/oauth\/interaction\//);
});

it('the whole code flow works for it, as for any client not reviewed', async () => {
  const clientId = publish('/clients/review-fails-2.json');
  const tokens = await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5001/callback' }, { scope: 'openid courses:read' }, ADMIN);
  expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid']);
});

it('logs the failure, naming the option and the client', () => {
  expect(app.warnings.some((w) => /^platform-auth: options\.clientIdMetadataDocuments\.reviewed failed for "https:\/\/tools\.example:\d+\/clients\/review-fails-1\.json", so the client counts as not reviewed: review store unreachable$/.test(w))).toBe(true);
});
