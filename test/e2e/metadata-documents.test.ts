/**
 * Client ID Metadata Documents through oidc-provider's feature, served by a local HTTPS
 * server: host allowlist vs open registration, the redirect-host rule, loopback on any
 * port without `application_type`, the unreviewed scope cap, malformed documents, the
 * consent page, the cache shared between instances, and SSRF protection without the
 * test-only fetch.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { Browser, isPage, signIn } from '../support/browser.ts';
import { ADMIN, buildAuthorizeUrl, obtainTokens } from '../support/flows.ts';
import { startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const run = promisify(execFile);
let docs: DocumentServer;
const apps: RunningApp[] = [];
let counter = 0;

beforeAll(async () => { docs = await startDocumentServer(); });
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await docs.close();
});

async function start(cimd: PlatformAuthOptions['clientIdMetadataDocuments'], extra: Partial<PlatformAuthOptions> = {}) {
  const app = await startApp({ auth: { clientIdMetadataDocuments: cimd, ...extra } });
  apps.push(app);
  return app;
}

const restricted = (more: object = {}) => ({ allowedHosts: [`tools.example:${docs.port}`], fetch: docs.fetch, ...more });

/** Publishes a document at a fresh path on `host` and returns its client_id. */
function publish(host: string, metadata: (clientId: string) => Record<string, unknown>, headers?: Record<string, string>): { clientId: string; path: string } {
  counter += 1;
  const path = `/clients/app-${counter}.json`;
  const clientId = docs.url(host, path);
  docs.serve(path, { body: metadata(clientId), headers });
  return { clientId, path };
}

const loopbackApp = (clientId: string) => ({
  client_id: clientId,
  client_name: 'Loopback Agent',
  redirect_uris: ['http://127.0.0.1/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
});

async function authorize(app: RunningApp, clientId: string, redirectUri: string, scope: string) {
  const state = randomState();
  return fetch(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri }, { scope, state, challenge: pkcePair().challenge }), { redirect: 'manual' });
}

/** The authorization endpoint refused the client itself: no redirect, an error page. */
async function expectClientRejected(res: Response, reason: RegExp = /invalid_client/) {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  const page = await res.text();
  expect(page).toContain('This sign-in link does not work');
  expect(page).toMatch(reason);
}

describe('discovery says whether documents are accepted', () => {
  it.each([
    ['restricted registration without hosts', () => undefined, {}, false],
    ['restricted registration with an allowlist', () => restricted(), {}, true],
    ['open registration', () => ({}), { registration: { variant: 'open' as const } }, true],
    ['open registration, turned off', () => ({ enabled: false }), { registration: { variant: 'open' as const } }, false],
  ])('%s', async (_label, cimd, extra, supported) => {
    const app = await start(cimd(), extra);
    const discovery = await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json();
    expect(discovery.client_id_metadata_document_supported).toBe(supported);
  });
});

describe('restricted registration: an allowlist of hosts', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await start(restricted()); });

  it('accepts a document on an allowlisted host: a full code flow on any loopback port', async () => {
    const { clientId, path } = publish('tools.example', loopbackApp);
    const tokens = await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:53111/callback' }, { scope: 'openid courses:read' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid']);
    // once more on another port, and the document was fetched only once
    await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://[::1]:40001/callback'.replace('[::1]', '127.0.0.1') }, { scope: 'openid' }, ADMIN);
    expect(docs.hits(path)).toBe(1);
  });

  it('rejects a document on a host that is not allowlisted, without fetching it', async () => {
    const { clientId, path } = publish('other.example', loopbackApp);
    await expectClientRejected(await authorize(app, clientId, 'http://127.0.0.1:5000/callback', 'openid'));
    expect(docs.hits(path)).toBe(0);
  });

  it('rejects a document on another port of an allowlisted host: an entry names one port (443 when it names none)', async () => {
    const bare = await start({ allowedHosts: ['tools.example'], fetch: docs.fetch });
    // the test server's port is not 443
    const { clientId, path } = publish('tools.example', loopbackApp);
    await expectClientRejected(await authorize(bare, clientId, 'http://127.0.0.1:5000/callback', 'openid'));
    expect(docs.hits(path)).toBe(0);
  });
});

describe('open registration: any host', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await start({ fetch: docs.fetch }, { registration: { variant: 'open' } }); });

  it('accepts a document on any host', async () => {
    const { clientId } = publish('other.example', loopbackApp);
    const tokens = await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:61000/callback' }, { scope: 'openid profile' }, ADMIN);
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('accepts redirect URIs on the document host and loopback ones', async () => {
    const { clientId } = publish('other.example', (id) => ({
      ...loopbackApp(id), redirect_uris: [`https://other.example:${docs.port}/oauth/callback`, 'http://127.0.0.1/callback'],
    }));
    const res = await authorize(app, clientId, `https://other.example:${docs.port}/oauth/callback`, 'openid');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/\/oauth\/interaction\//);
  });

  const OWN_HOST = /must be on its own host \(other\.example\) or a loopback address/;
  it.each([
    ['a redirect URI on another host', (id: string) => ({ ...loopbackApp(id), redirect_uris: ['https://evil.example/callback'] }), OWN_HOST],
    ['a redirect URI on a subdomain-looking host', (id: string) => ({ ...loopbackApp(id), redirect_uris: ['https://other.example.evil.example/callback'] }), OWN_HOST],
    ['an http redirect URI on its own host', (id: string) => ({ ...loopbackApp(id), redirect_uris: [`http://other.example:${docs.port}/callback`] }), OWN_HOST],
    ['a client_id that is not the document URL', (id: string) => ({ ...loopbackApp(id), client_id: `${id}?v=2` }), /client_id does not match/],
    ['a member audience', (id: string) => ({ ...loopbackApp(id), audience: 'member' }), /audience cannot be &quot;member&quot;/],
    ['an org_id', (id: string) => ({ ...loopbackApp(id), org_id: 'demo-school' }), /org_id cannot be set/],
    ['a shared-secret auth method', (id: string) => ({ ...loopbackApp(id), token_endpoint_auth_method: 'client_secret_post' }), /shared-secret/],
  ])('rejects a document with %s', async (_label, metadata, reason) => {
    const { clientId } = publish('other.example', metadata);
    await expectClientRejected(await authorize(app, clientId, 'http://127.0.0.1:5000/callback', 'openid'), reason);
  });

  it.each([
    ['larger than 5 KiB', { body: { client_name: 'x'.repeat(6000) } }],
    ['not JSON', { body: '<html>not json</html>' }],
    ['a JSON array', { body: [1, 2, 3] }],
    ['answered with 404', { status: 404, body: {} }],
    ['answered with a redirect', { status: 302, body: {}, headers: { location: 'https://other.example/x.json' } }],
  ])('rejects a document %s', async (_label, served) => {
    counter += 1;
    const path = `/clients/bad-${counter}.json`;
    docs.serve(path, served);
    await expectClientRejected(await authorize(app, docs.url('other.example', path), 'http://127.0.0.1:5000/callback', 'openid'));
  });

  it('caps an unreviewed client at read and identity scopes', async () => {
    const { clientId } = publish('other.example', loopbackApp);
    const client = { clientId, redirectUri: 'http://127.0.0.1:62000/callback' };
    for (const scope of ['openid courses:write', 'openid storage:write', 'students:write']) {
      const state = randomState();
      const redirect = await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, client, { scope, state, challenge: pkcePair().challenge }), ADMIN);
      const params = new URL(redirect).searchParams;
      expect({ scope, error: params.get('error') }).toEqual({ scope, error: 'invalid_scope' });
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(app.baseUrl);
    }
    const tokens = await obtainTokens(app.baseUrl, client, { scope: 'openid profile email courses:read students:read' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'email', 'openid', 'profile', 'students:read']);
  });

  it('refuses account:read: document clients are operator clients', async () => {
    const { clientId } = publish('other.example', loopbackApp);
    const redirect = await signIn(new Browser(app.baseUrl), buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:62001/callback' }, {
      scope: 'openid account:read', state: 's', challenge: pkcePair().challenge,
    }), ADMIN);
    expect(new URL(redirect).searchParams.get('error')).toBe('invalid_scope');
  });

  it('shows the document host, the redirect host and the loopback warning on the consent page', async () => {
    const { clientId } = publish('other.example', loopbackApp);
    const browser = new Browser(app.baseUrl);
    const login = await browser.navigate(buildAuthorizeUrl(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:62002/callback' }, {
      scope: 'openid', state: 's', challenge: pkcePair().challenge,
    }));
    if (!isPage(login)) throw new Error('expected the sign-in page');
    const consent = await browser.submit(login, '/login', ADMIN);
    if (!isPage(consent)) throw new Error('expected the consent page');
    expect(consent.html).toContain(`describes itself at <span class="host">other.example:${docs.port}</span>`);
    expect(consent.html).toContain('<span class="host">127.0.0.1:62002</span>');
    expect(consent.html).toContain('loopback address');
  });
});

describe('reviewed clients', () => {
  it('may request write scopes once reviewed', async () => {
    const { clientId } = publish('tools.example', loopbackApp);
    const app = await start(restricted({ reviewed: async (id: string) => id === clientId }));
    const tokens = await obtainTokens(app.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:63000/callback' }, { scope: 'openid courses:write' }, ADMIN);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:write', 'openid']);
  });
});

describe('shared cache', () => {
  it('two instances on one storage fetch a document once', async () => {
    const adapter = createMemoryAdapter();
    const a = await start(restricted(), { adapter });
    const b = await start(restricted(), { adapter });
    const { clientId, path } = publish('tools.example', loopbackApp);
    for (const app of [a, b, a, b]) {
      const res = await authorize(app, clientId, 'http://127.0.0.1:5000/callback', 'openid');
      expect(res.status).toBe(303);
    }
    expect(docs.hits(path)).toBe(1);
  });

  it('remembers a failure for a while instead of fetching again on every request', async () => {
    const adapter = createMemoryAdapter();
    const a = await start(restricted(), { adapter });
    const b = await start(restricted(), { adapter });
    counter += 1;
    const path = `/clients/broken-${counter}.json`;
    docs.serve(path, { status: 500, body: {} });
    for (const app of [a, b, a]) {
      await expectClientRejected(await authorize(app, docs.url('tools.example', path), 'http://127.0.0.1:5000/callback', 'openid'));
    }
    expect(docs.hits(path)).toBe(1);
  });
});

describe('SSRF protection', () => {
  it('without the test-only fetch, a document on a loopback address is refused before any request is sent', async () => {
    // a separate Node process, as in production (see test/support/ssrf-probe.ts), that
    // trusts the test certificate: TLS succeeds, so the refusal can only be the SSRF check
    const dir = mkdtempSync(join(tmpdir(), 'ssrf-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, docs.cert);
    const { clientId, path } = publish('127.0.0.1', loopbackApp);
    try {
      const { stdout } = await run(process.execPath, [fileURLToPath(new URL('../support/ssrf-probe.ts', import.meta.url)), clientId], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: ca, NODE_NO_WARNINGS: '1' },
        timeout: 20_000,
      });
      const { status, causes } = JSON.parse(stdout) as { status: number; causes: string[] };
      expect(status).toBe(400);
      expect(causes.join(' | ')).toMatch(/special-use IP address/);
      expect(docs.hits(path)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
