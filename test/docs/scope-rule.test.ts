/**
 * What becomes of a scope the client may not hold: `/auth.md` (the `scope` parameter, 2.1),
 * `/openapi.json` (the `scope` parameter) and the README state one rule, and it is what the
 * server does: an identity scope a member client may not hold is left out of the grant, while
 * a Client ID Metadata Document client is refused one its document leaves out
 * (lib/provider/identity-scopes.ts does not look such clients up).
 */
import { readFileSync } from 'node:fs';

import { buildAuthorizeUrl, obtainTokens, STUDENT } from '../support/flows.ts';
import { publicClientDocument, startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { codeSpans, fetchDocuments, tableUnder } from './support.ts';
import type { Documents } from './support.ts';

const EXCEPTION = 'the one exception is an identity scope (`openid`, `profile`, `email`) the client may not hold, which is left out of the grant rather than refused';
const DOCUMENT_EXCEPTION = 'a Client ID Metadata Document client has no such exception: an identity scope its document\'s `scope` leaves out is refused with `invalid_scope`';

/** The rule the `scope` row of /auth.md states, and the `scope` parameter of /openapi.json. */
function scopeStatements(docs: Documents) {
  const row = tableUnder(docs.authMd, /^### Authorization request parameters/).rows.find((r) => codeSpans(r[0]!)[0] === 'scope')!;
  const parameters = (docs.openapi.paths['/oauth/authorize']!.get as unknown as { parameters: { name: string; description: string }[] }).parameters;
  const scopes = docs.authMd.slice(docs.authMd.indexOf('### 2.1 Scopes'), docs.authMd.indexOf('### 2.2'));
  return { authMdRow: row[2]!, openapi: parameters.find((p) => p.name === 'scope')!.description, scopesSection: scopes };
}

describe('with Client ID Metadata Documents', () => {
  let documents: DocumentServer;
  let app: RunningApp;
  let docs: Documents;
  beforeAll(async () => {
    documents = await startDocumentServer();
    app = await startApp({ auth: { clientIdMetadataDocuments: { allowedHosts: [`tools.example:${documents.port}`], fetch: documents.fetch } } });
    docs = await fetchDocuments(app.baseUrl);
  });
  afterAll(async () => {
    await app.stop();
    await documents.close();
  });

  it('all statements say the same: identity scopes are left out of the grant, except for a metadata-document client', () => {
    const { authMdRow, openapi, scopesSection } = scopeStatements(docs);
    expect(authMdRow).toBe(openapi);
    const rule = authMdRow.slice(authMdRow.indexOf('a scope that is unknown'));
    expect(rule).toContain(EXCEPTION);
    expect(rule).toContain(DOCUMENT_EXCEPTION);
    expect(scopesSection).toContain(rule);
    for (const text of [authMdRow, scopesSection]) expect(text).not.toMatch(/never dropped|every client may request/);
  });

  it('a member client asking for an identity scope it may not hold is granted the rest', async () => {
    const { client } = await app.auth.memberClients.create('demo-school', {
      name: 'Without email', type: 'public', redirectUris: ['http://127.0.0.1:8765/callback'], scopes: ['openid', 'profile', 'account:read'],
    });
    const tokens = await obtainTokens(app.baseUrl, { clientId: client.clientId, redirectUri: 'http://127.0.0.1:8765/callback' }, { scope: 'openid profile email account:read' }, STUDENT);
    expect(tokens.scope).toBe('openid profile account:read');
  });

  it('a metadata-document client asking for an identity scope its document leaves out is refused with invalid_scope', async () => {
    const clientId = documents.url('tools.example', '/scope-rule.json');
    documents.serve('/scope-rule.json', { body: { ...publicClientDocument(clientId), scope: 'openid profile courses:read' } });
    const state = randomState();
    const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid profile email courses:read', challenge: pkcePair().challenge, state });
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'invalid_scope', scope: 'email', state });
  });
});

it('without metadata documents the rule names no metadata-document exception', async () => {
  const app = await startApp();
  try {
    const { authMdRow, openapi, scopesSection } = scopeStatements(await fetchDocuments(app.baseUrl));
    expect(authMdRow).toBe(openapi);
    expect(authMdRow).toContain(EXCEPTION);
    expect(scopesSection).toContain(EXCEPTION);
    expect(authMdRow).not.toContain('Metadata Document');
  } finally {
    await app.stop();
  }
});

it('the README\'s "Audiences, clients and registration" states the same rule, with the metadata-document exception', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Audiences, clients and registration'), readme.indexOf('\n## ', readme.indexOf('## Audiences, clients and registration') + 3));
  const prose = section.replace(/\s+/g, ' ');
  expect(prose).not.toContain('never dropped');
  expect(prose).toContain('an identity scope (`openid profile email`) the client may not hold is left out of the grant, not refused');
  expect(prose).toContain('A metadata-document client gets no such exception');
});
