/**
 * Client ID metadata documents, through the authorization endpoint with a real HTTPS document
 * server: `metadata_document.fetched` once per document actually fetched (not when the cache
 * answers, on this instance or another on the same storage), and `metadata_document.failed`
 * with its exact reason for each way a document fails (DNS, refused address, timeout, size,
 * status, invalid content, over the fetch budget), the same reason again when the failure is
 * answered from the failure cache; and the document client's trace in plain words.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { DOCUMENT_BODY_LIMIT } from '../../lib/policies/metadata-documents.ts';
import type { MetadataDocumentFetch, PlatformAuthEvent, PlatformAuthOptions } from '../../lib/index.ts';
import { buildAuthorizeUrl } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
const adapter = createMemoryAdapter();
let app: RunningApp;
/** a second instance on the same storage */
let twin: RunningApp;
const events: PlatformAuthEvent[] = [];
let counter = 0;

/** The test document server, plus two hosts that fail before any answer, as DNS and a slow host would. */
const fetchDocument: MetadataDocumentFetch = async (url, init) => {
  const { hostname } = new URL(url);
  if (hostname === 'nxdomain.example') {
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }) });
  }
  if (hostname === 'slow.example') throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  return docs.fetch(url, init);
};

// open registration: documents are fetched from any host that is not refused
const options = (extra: Partial<PlatformAuthOptions> = {}): Partial<PlatformAuthOptions> => ({
  adapter, registration: { variant: 'open' }, clientIdMetadataDocuments: { fetch: fetchDocument }, ...extra,
});

beforeAll(async () => {
  docs = await startDocumentServer();
  app = await startApp({ auth: options() });
  twin = await startApp({ baseUrl: app.baseUrl, auth: options() });
  for (const instance of [app, twin]) instance.auth.events.on('*', (event) => { events.push(event); });
});
afterAll(async () => {
  await Promise.all([app?.stop(), twin?.stop()]);
  await adapter.close();
  await docs?.close();
});

const loopbackApp = (clientId: string) => ({
  client_id: clientId, client_name: 'Loopback Agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none',
});

const served = (clientId: string) => ({ body: loopbackApp(clientId) });

/** A fresh document path served as `doc`, and its client_id on `host`. */
function publish(host: string, doc: (clientId: string) => { status?: number; body: unknown }): string {
  counter += 1;
  const path = `/clients/events-${counter}.json`;
  const clientId = docs.url(host, path);
  docs.serve(path, doc(clientId));
  return clientId;
}

/** A client_id on a host with nothing served (DNS, timeout and refused hosts never answer). */
function unserved(host: string): string {
  counter += 1;
  return host === 'localhost' ? `https://localhost/clients/events-${counter}.json` : docs.url(host, `/clients/events-${counter}.json`);
}

/** An authorization request naming `clientId`; its answer and the document events it caused. */
async function authorize(clientId: string, at: RunningApp = app) {
  const from = events.length;
  const url = buildAuthorizeUrl(at.baseUrl, { clientId, redirectUri: 'http://127.0.0.1/callback' }, { scope: 'openid', challenge: pkcePair().challenge, state: 'st' });
  const res = await fetch(url, { redirect: 'manual' });
  await res.arrayBuffer();
  const emitted = events.slice(from).filter((e) => e.name.startsWith('metadata_document.') || e.name === 'authorization.failed');
  return { res, emitted };
}

describe('metadata_document.fetched', () => {
  it('is emitted once, for the request that fetched the document from its host', async () => {
    const clientId = publish('tools.example', served);
    const first = await authorize(clientId);
    expect(first.res.status).toBeLessThan(400);
    expect(first.emitted).toEqual([{ name: 'metadata_document.fetched', clientId, at: expect.any(Number), requestId: first.res.headers.get('x-request-id') }]);
    // oidc-provider's own cache on this instance, the shared cache on the other: no fetch, no event
    expect((await authorize(clientId)).emitted).toEqual([]);
    const other = await authorize(clientId, twin);
    expect(other.res.status).toBeLessThan(400);
    expect(other.emitted).toEqual([]);
    const trace = await app.auth.clientTrace(clientId);
    expect(trace.filter((e) => e.event === 'metadata_document.fetched')).toEqual([
      expect.objectContaining({ outcome: 'ok', summary: 'The app\'s metadata document was fetched.', requestId: first.res.headers.get('x-request-id') }),
    ]);
  });
});

describe('a document URL with line separators', () => {
  it('is named printably in metadata_document.fetched and its trace, as in metadata_document.failed', async () => {
    // oidc-provider fetches a client_id holding NEL and U+2028/9 (it refuses C0 controls only),
    // then its client schema refuses the id: one fetch event, then one failure, for one name
    counter += 1;
    const clientId = docs.url('tools.example', `/clients/forge-${counter}\u2028FORGED\u0085LINE\u2029.json`);
    docs.serve(new URL(clientId).pathname, served(clientId));
    const { emitted } = await authorize(clientId);
    const fetched = emitted.find((e) => e.name === 'metadata_document.fetched');
    expect(fetched).toBeDefined();
    const named = (fetched as { clientId: string }).clientId;
    // eslint-disable-next-line no-control-regex
    expect(named).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    for (const event of emitted) expect(event).toMatchObject({ clientId: named });
    expect(await app.auth.clientTrace(clientId)).toEqual([]);
    expect((await app.auth.clientTrace(named)).map((e) => e.event)).toContain('metadata_document.fetched');
  });
});

describe('metadata_document.failed, with its reason', () => {
  const SECRET_NEEDED = /^The metadata document cannot be used: a client ID metadata document holds no secret: token_endpoint_auth_method must be "none" \(leaving it out means client_secret_post\), and no algorithm may be HMAC \(HS256, HS384, HS512\) or symmetric encryption, each of which needs a client_secret\.$/;
  type Case = [label: string, clientId: () => string, reason: string, summary: RegExp];
  const cases: Case[] = [
    ['a host that does not resolve', () => unserved('nxdomain.example'), 'dns', /^The host of the metadata document, nxdomain\.example:\d+, does not resolve\.$/],
    ['a host that does not answer in time', () => unserved('slow.example'), 'timeout', /^Fetching the metadata document from slow\.example:\d+ timed out\.$/],
    ['a special-use host', () => unserved('localhost'), 'refused_address', /^The host of the metadata document, localhost, resolves to a private or special-use address/],
    ['a 404', () => publish('tools.example', () => ({ status: 404, body: {} })), 'status', /^The metadata document URL answered HTTP 404 instead of 200\.$/],
    ['a document over the size limit', () => publish('tools.example', (id) => ({ body: { ...loopbackApp(id), pad: 'x'.repeat(DOCUMENT_BODY_LIMIT) } })), 'size', /^The metadata document is larger than 5 KB\.$/],
    ['a body that is not JSON', () => publish('tools.example', () => ({ body: 'not json {' })), 'invalid_content', /^The metadata document cannot be used: /],
    ['a document for another client_id', () => publish('tools.example', () => ({ body: loopbackApp('https://tools.example/someone-else.json') })), 'invalid_content', /client_id does not match/],
    // the provider says "client_secret is mandatory property": the opposite of the fix, for a document
    ['a document without token_endpoint_auth_method', () => publish('tools.example', (id) => ({ body: { ...loopbackApp(id), token_endpoint_auth_method: undefined } })), 'invalid_content', SECRET_NEEDED],
    // the provider says the same of a document that does say "none" but names an HMAC algorithm
    ['a document naming an HMAC algorithm', () => publish('tools.example', (id) => ({ body: { ...loopbackApp(id), id_token_signed_response_alg: 'HS256' } })), 'invalid_content', SECRET_NEEDED],
  ];

  it.each(cases)('%s, and again the same when the failure cache answers', async (_, make, reason, summary) => {
    const clientId = make();
    for (const attempt of [1, 2]) {
      const { res, emitted } = await authorize(clientId);
      expect(res.status).toBe(400);
      const failed = emitted.filter((e) => e.name === 'metadata_document.failed');
      expect({ attempt, failed }).toEqual({ attempt, failed: [expect.objectContaining({ clientId, reason, requestId: res.headers.get('x-request-id') })] });
      expect(emitted.filter((e) => e.name === 'authorization.failed')).toEqual([]);
    }
    const trace = await app.auth.clientTrace(clientId);
    const entries = trace.filter((e) => e.event === 'metadata_document.failed');
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(entry).toMatchObject({ outcome: 'refused', reason, summary: expect.stringMatching(summary), action: expect.any(String) });
  });

  it('a document without token_endpoint_auth_method: the error page\'s support code names the field to set', async () => {
    const clientId = publish('tools.example', (id) => ({ body: { ...loopbackApp(id), token_endpoint_auth_method: undefined } }));
    const url = buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1/callback' }, { scope: 'openid', challenge: pkcePair().challenge, state: 'st' });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('invalid_client_metadata: a client ID metadata document holds no secret: token_endpoint_auth_method must be &quot;none&quot;');
    expect(page).not.toContain('client_secret is mandatory property');
  });

  it('the status of a failure answered from the cache is the status the host answered', async () => {
    const clientId = publish('tools.example', () => ({ status: 503, body: {} }));
    await authorize(clientId);
    const { emitted } = await authorize(clientId);
    expect(emitted).toEqual([expect.objectContaining({ name: 'metadata_document.failed', reason: 'status', status: 503 })]);
  });

  it('over the fetch budget: over_budget, with the wait, in the document\'s trace', async () => {
    const budgeted = await startApp({ auth: options({ adapter: createMemoryAdapter(), clientIdMetadataDocuments: { fetch: fetchDocument, fetchBudget: { perCaller: 1 } } }) });
    try {
      const heard: PlatformAuthEvent[] = [];
      budgeted.auth.events.on('*', (event) => { heard.push(event); });
      const first = publish('tools.example', served);
      const second = publish('tools.example', served);
      expect((await authorize(first, budgeted)).res.status).toBeLessThan(400);
      const { res } = await authorize(second, budgeted);
      expect(res.status).toBe(429);
      const failed = heard.filter((e) => e.name === 'metadata_document.failed');
      expect(failed).toEqual([expect.objectContaining({
        clientId: second, reason: 'over_budget', requestId: res.headers.get('x-request-id'),
        description: `too many client_id metadata document fetches for this client address; try again in ${res.headers.get('retry-after')} seconds`,
      })]);
      expect(heard.filter((e) => e.name === 'authorization.failed')).toEqual([]);
      const [entry] = await budgeted.auth.clientTrace(second);
      expect(entry).toMatchObject({
        event: 'metadata_document.failed', reason: 'over_budget', outcome: 'refused',
        summary: expect.stringMatching(/^The metadata document was not fetched this time: too many client_id metadata document fetches for this client address; try again in \d+ seconds\.$/),
        action: expect.stringContaining('then try again'),
      });
    } finally {
      await budgeted.stop();
    }
  });
});
