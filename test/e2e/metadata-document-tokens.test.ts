/**
 * An access token of a metadata-document client, checked (UserInfo, the Account API) on an
 * instance that must fetch the client's document again (its cached copies expired, or another
 * instance loaded it): a document now refused makes the token a 401 `invalid_token` with its
 * challenge, not oidc-provider's 400 `invalid_client` (which would name the caller's client);
 * and the look-up spends no fetch budget, so nobody can refuse a host's tokens by spending
 * that host's budget with junk client_ids. Nor its refreshes and sign-ins: the document of a
 * client that was issued tokens spends only its caller's budget, not its host's; a document
 * only fetched (no tokens issued) is not such a client.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { demoClients } from '../../examples/host/seed.ts';
import { ADMIN, obtainTokens, postForm } from '../support/flows.ts';
import { publicClientDocument, startDocumentServer } from '../support/metadata-documents.ts';
import type { DocumentServer } from '../support/metadata-documents.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let docs: DocumentServer;
const apps: RunningApp[] = [];
beforeAll(async () => { docs = await startDocumentServer(); });
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await docs.close();
});

const RESOURCE_SERVER = {
  client_id: 'resource-server', client_secret: 'rs-secret-0123456789-0123456789-0123456789',
  token_endpoint_auth_method: 'client_secret_post', redirect_uris: ['https://rs.example/cb'], audience: 'operator',
};

/** Two instances of one issuer on shared storage; a token issued by the first, for a published document. */
async function issued(path: string, fetchBudget?: object) {
  const adapter = createMemoryAdapter();
  const cimd = { allowedHosts: [`tools.example:${docs.port}`], fetch: docs.fetch, ...(fetchBudget ? { fetchBudget } : {}) };
  // with a resource server that may introspect every token
  const clients = [...demoClients('http://x', 'operator-secret-for-tests-0123456789'), RESOURCE_SERVER] as never;
  const auth = { adapter, proxy: true, clientIdMetadataDocuments: cimd, clients, introspectionClients: [RESOURCE_SERVER.client_id] };
  const first = await startApp({ auth });
  const second = await startApp({ baseUrl: first.baseUrl, auth });
  apps.push(first, second);
  const clientId = docs.url('tools.example', path);
  docs.serve(path, { body: publicClientDocument(clientId) });
  const tokens = await obtainTokens(first.baseUrl, { clientId, redirectUri: 'http://127.0.0.1:5555/callback' }, { scope: 'openid profile' }, ADMIN);
  // the shared copy expires (its lifetime, at least 30 s); the second instance never loaded it
  const expire = () => adapter('ClientMetadataDocument').destroy(clientId);
  return { first, second, clientId, tokens, expire };
}

const userinfo = (app: RunningApp, token: string) => fetch(`http://127.0.0.1:${app.port}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

it('while the document is served, the other instance accepts the token', async () => {
  const { second, tokens, expire } = await issued('/tokens/served.json');
  await expire();
  expect((await userinfo(second, tokens.access_token)).status).toBe(200);
});

it('a document now gone: 401 invalid_token with the challenge, at UserInfo and the Account API', async () => {
  const { second, tokens, expire } = await issued('/tokens/gone.json');
  docs.serve('/tokens/gone.json', { status: 404, body: {} });
  await expire();
  const res = await userinfo(second, tokens.access_token);
  expect({ status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({ status: 401, challenge: expect.stringMatching(/^Bearer error="invalid_token"/) });
  const graphql = await fetch(`http://127.0.0.1:${second.port}/account/graphql`, {
    method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' }, body: '{"query":"{ viewer { id } }"}',
  });
  expect(graphql.status).toBe(401);
});

it('a document host answering 503 for now: 503 to retry, not a 401 that would make the client drop its token', async () => {
  const { second, tokens, expire } = await issued('/tokens/down.json');
  docs.serve('/tokens/down.json', { status: 503, body: {} });
  await expire();
  const res = await userinfo(second, tokens.access_token);
  expect({ status: res.status, body: (await res.json() as { error?: string }).error }).toEqual({ status: 503, body: 'temporarily_unavailable' });
  expect(res.headers.get('retry-after')).toEqual(expect.any(String));
});

describe('introspected by a trusted resource server (introspectionClients) on the other instance', () => {
  const introspect = async (app: RunningApp, token: string) => {
    const res = await postForm(`http://127.0.0.1:${app.port}/api/oauth/introspect`, {
      token, client_id: RESOURCE_SERVER.client_id, client_secret: RESOURCE_SERVER.client_secret,
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() as Record<string, unknown> };
  };

  it('a document now gone: inactive, not invalid_client (which names the resource server); the grant is kept', async () => {
    const { first, second, tokens, expire } = await issued('/tokens/introspected-gone.json');
    docs.serve('/tokens/introspected-gone.json', { status: 404, body: {} });
    await expire();
    expect(await introspect(second, tokens.access_token)).toEqual({ status: 200, retryAfter: null, body: { active: false } });
    // nothing revoked for a document that may be fixed: the instance that still holds its copy
    // finds the token active
    expect(await introspect(first, tokens.access_token)).toMatchObject({ status: 200, body: { active: true } });
  });

  it('a document host answering 503 for now: 503 to retry', async () => {
    const { second, tokens, expire } = await issued('/tokens/introspected-down.json');
    docs.serve('/tokens/introspected-down.json', { status: 503, body: {} });
    await expire();
    expect(await introspect(second, tokens.access_token)).toMatchObject({ status: 503, retryAfter: expect.any(String), body: { error: 'temporarily_unavailable' } });
  });
});

it('a token check spends no fetch budget: a host whose budget is spent keeps its tokens working', async () => {
  const { first, second, tokens, expire } = await issued('/tokens/budget.json', { perHost: 2, perCaller: 100, windowSeconds: 600 });
  // anonymous junk client_ids on the same host spend its budget
  for (let i = 0; i < 4; i += 1) {
    await fetch(`${first.baseUrl}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(docs.url('tools.example', `/junk?${i}`))}`, { redirect: 'manual' });
  }
  await expire();
  expect((await userinfo(second, tokens.access_token)).status).toBe(200);
  expect((await userinfo(first, tokens.access_token)).status).toBe(200);
});

describe('a host whose budget junk client_ids spent', () => {
  const BUDGET = { perHost: 2, perCaller: 100, windowSeconds: 600 };
  const refresh = (app: RunningApp, clientId: string, refreshToken: string) => fetch(`http://127.0.0.1:${app.port}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
  const authorize = (app: RunningApp, clientId: string) => fetch(`http://127.0.0.1:${app.port}/oauth/authorize?${new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:5555/callback', scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  })}`, { redirect: 'manual' });

  async function spent(first: RunningApp) {
    for (let i = 0; i < 4; i += 1) await authorize(first, docs.url('tools.example', `/junk?${i}`));
    // a new document on that host is refused for now: the budget is spent
    const fresh = docs.url('tools.example', '/tokens/new.json');
    docs.serve('/tokens/new.json', { body: publicClientDocument(fresh) });
    const refused = await authorize(first, fresh);
    expect({ status: refused.status, page: /too many client_id metadata document fetches from this host/.test(await refused.text()) }).toEqual({ status: 429, page: true });
  }

  it('still refreshes its clients\' tokens once their cached copy is old', async () => {
    const { first, second, clientId, tokens, expire } = await issued('/tokens/refresh.json', BUDGET);
    await spent(first);
    await expire();
    const res = await refresh(second, clientId, tokens.refresh_token);
    const body = await res.json() as { access_token?: string; error?: string };
    expect({ status: res.status, error: body.error }).toEqual({ status: 200, error: undefined });
    expect(body.access_token).toEqual(expect.any(String));
    expect(docs.hits('/tokens/refresh.json')).toBe(2);
  });

  it('a document only fetched, its client never issued tokens, spends its host\'s budget as any other', async () => {
    const { first, second, expire } = await issued('/tokens/issued.json', BUDGET);
    const fetchedOnly = docs.url('tools.example', '/tokens/fetched-only.json');
    docs.serve('/tokens/fetched-only.json', { body: publicClientDocument(fetchedOnly) });
    expect((await authorize(first, fetchedOnly)).status).toBe(303);
    await spent(first);
    await expire();
    // its shared copy is old too; the second instance never loaded it
    await first.auth.options.adapter('ClientMetadataDocument').destroy(fetchedOnly);
    const res = await authorize(second, fetchedOnly);
    expect({ status: res.status, page: /fetches from this host/.test(await res.text()) }).toEqual({ status: 429, page: true });
  });

  it('still lets its clients start a sign-in once their cached copy is old', async () => {
    const { first, second, clientId, expire } = await issued('/tokens/sign-in.json', BUDGET);
    await spent(first);
    await expire();
    const res = await authorize(second, clientId);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/\/oauth\/interaction\//);
  });
});
