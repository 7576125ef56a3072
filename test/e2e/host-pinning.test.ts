/**
 * Issuer-pinned URLs (issue #16 item 5): a foreign `Host` (or, with `proxy: true`, a foreign
 * `X-Forwarded-Host`/`X-Forwarded-Proto`) changes no URL in any answer, and discovery may be
 * kept by a shared cache. Raw `node:http` requests, since `fetch` cannot set `Host`.
 */
import { request } from 'node:http';

import { ENDPOINTS } from '../../lib/index.ts';
import { findForm } from '../support/browser.ts';
import { MEMBER, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

function raw(port: number, path: string, init: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const FOREIGN = 'evil.example';

/** A cookie jar that sends every cookie it got (one server, one test). */
class Jar {
  readonly #cookies = new Map<string, string>();
  store(answer: RawAnswer) {
    for (const header of [answer.headers['set-cookie'] ?? []].flat()) {
      const pair = header.split(';')[0]!;
      const eq = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }

  header(): Record<string, string> {
    return this.#cookies.size ? { cookie: [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }
}

/** Every header and the body, as one text to search. */
const everything = (answer: RawAnswer) => `${JSON.stringify(answer.headers)}\n${answer.body}`;

/** Every http(s) URL in the answer's headers and body. */
const urlsIn = (answer: RawAnswer) => everything(answer).match(/https?:\/\/[^\s"'<>\\)\]`,]+/gi) ?? [];

/** No URL on the foreign host or scheme: every URL of this server is on `baseUrl`. */
function expectNoForeignUrl(answer: RawAnswer, baseUrl: string) {
  const { host } = new URL(baseUrl);
  for (const url of urlsIn(answer)) {
    expect(url).not.toContain(FOREIGN);
    if (url.includes(`//${host}`)) expect(url.startsWith(baseUrl)).toBe(true);
  }
}

/** As {@link expectNoForeignUrl}, and no trace of the foreign host at all. */
function expectPinned(answer: RawAnswer, baseUrl: string) {
  expect(everything(answer)).not.toContain(FOREIGN);
  expectNoForeignUrl(answer, baseUrl);
}

const DISCOVERY = [ENDPOINTS.openidConfiguration.path, ENDPOINTS.authorizationServerMetadata.path];

describe.each<{ name: string; proxy: boolean; spoof: Record<string, string> }>([
  { name: 'without proxy, a foreign Host', proxy: false, spoof: { host: FOREIGN } },
  { name: 'with proxy: true, a foreign X-Forwarded-Host and -Proto', proxy: true, spoof: { 'x-forwarded-host': FOREIGN, 'x-forwarded-proto': 'https' } },
  { name: 'with proxy: true, a foreign Host', proxy: true, spoof: { host: FOREIGN } },
])('$name', ({ proxy, spoof }) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ auth: { proxy } });
  });
  afterAll(() => app.stop());

  const get = (path: string, init: RawRequest = {}) => raw(app.port, path, { ...init, headers: { ...spoof, ...init.headers } });

  it.each(DISCOVERY)('%s lists only baseUrl endpoints and may be cached', async (path) => {
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expectPinned(answer, app.baseUrl);
    const doc = JSON.parse(answer.body) as Record<string, unknown>;
    expect(doc.issuer).toBe(app.baseUrl);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint', 'revocation_endpoint', 'introspection_endpoint']) {
      expect(doc[key]).toEqual(expect.stringMatching(new RegExp(`^${app.baseUrl.replace(/\./g, '\\.')}/`)));
    }
    expect(answer.headers['cache-control']).toBe('public, max-age=3600');
    expect(answer.headers.vary).toMatch(/\bOrigin\b/i);
  });

  it('discovery is the same as for the right host', async () => {
    const right = await raw(app.port, ENDPOINTS.openidConfiguration.path);
    const spoofed = await get(ENDPOINTS.openidConfiguration.path);
    expect(JSON.parse(spoofed.body)).toEqual(JSON.parse(right.body));
  });

  it('protected-resource metadata names baseUrl', async () => {
    const answer = await get(ENDPOINTS.protectedResourceMetadata.path);
    expect(answer.status).toBe(200);
    expectPinned(answer, app.baseUrl);
    expect(JSON.parse(answer.body)).toMatchObject({ resource: app.baseUrl, authorization_servers: [app.baseUrl] });
  });

  it('the UserInfo 401 challenge points at baseUrl metadata', async () => {
    const answer = await get(ENDPOINTS.userinfo.path);
    expect(answer.status).toBe(401);
    expectPinned(answer, app.baseUrl);
    expect(answer.headers['www-authenticate']).toContain(`resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
  });

  it('/mcp refuses the foreign host (403)', async () => {
    const answer = await get(ENDPOINTS.mcp.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(answer.status).toBe(403);
    // refused: its message names the Host it refused, and no URL is built from it
    expectNoForeignUrl(answer, app.baseUrl);
  });

  it.each([ENDPOINTS.openapi.path, ENDPOINTS.authMd.path])('%s names only baseUrl', async (path) => {
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(app.baseUrl);
    expectPinned(answer, app.baseUrl);
  });

  it('authorization, the sign-in page and the resume redirect stay on baseUrl', async () => {
    const jar = new Jar();
    const { challenge } = pkcePair();
    const query = new URLSearchParams({
      response_type: 'code', client_id: MEMBER.clientId, redirect_uri: MEMBER.redirectUri,
      scope: 'openid profile', state: randomState(), code_challenge: challenge, code_challenge_method: 'S256',
    });
    const authorize = await get(`${ENDPOINTS.authorization.path}?${query}`);
    expect(authorize.status).toBeGreaterThanOrEqual(300);
    expect(authorize.status).toBeLessThan(400);
    expectPinned(authorize, app.baseUrl);
    jar.store(authorize);
    const signInUrl = new URL(authorize.headers.location as string, app.baseUrl);
    expect(signInUrl.origin).toBe(app.baseUrl);

    const page = await get(signInUrl.pathname, { headers: jar.header() });
    expect(page.status).toBe(200);
    expectPinned(page, app.baseUrl);
    jar.store(page);

    const form = findForm(page.body, '/login');
    const login = await get(new URL(form.action, app.baseUrl).pathname, {
      method: 'POST',
      headers: { ...jar.header(), 'content-type': 'application/x-www-form-urlencoded', origin: app.baseUrl },
      body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }).toString(),
    });
    expect(login.status).toBeGreaterThanOrEqual(300);
    expect(login.status).toBeLessThan(400);
    expectPinned(login, app.baseUrl);
    // the provider's resume URL (`returnTo`), computed when the authorization request came in
    const resume = new URL(login.headers.location as string, app.baseUrl);
    expect(resume.origin).toBe(app.baseUrl);
    expect(resume.pathname.startsWith(`${ENDPOINTS.authorization.path}/`)).toBe(true);
  });
});

it('the right host on loopback gets the same baseUrl URLs', async () => {
  const app = await startApp();
  try {
    const answer = await raw(app.port, ENDPOINTS.openidConfiguration.path);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).token_endpoint).toBe(`${app.baseUrl}${ENDPOINTS.token.path}`);
    expect(answer.headers['cache-control']).toBe('public, max-age=3600');
  } finally {
    await app.stop();
  }
});

describe.each([false, true])('an https baseUrl reached over plain HTTP (TLS ended at a load balancer), proxy: %s', (proxy) => {
  const BASE = 'https://learn.example.com';
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ baseUrl: BASE, auth: { proxy } });
  });
  afterAll(() => app.stop());

  // what the balancer sends on: its own Host, and (with proxy: true) the forwarded scheme
  const balanced = (path: string) => raw(app.port, path, { headers: { host: `127.0.0.1:${app.port}`, ...(proxy ? { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'learn.example.com' } : {}) } });

  it('discovery lists every endpoint on https baseUrl, none on http', async () => {
    const answer = await balanced(ENDPOINTS.openidConfiguration.path);
    expect(answer.status).toBe(200);
    const doc = JSON.parse(answer.body) as Record<string, unknown>;
    expect(doc.issuer).toBe(BASE);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint', 'revocation_endpoint', 'introspection_endpoint']) {
      expect(doc[key]).toEqual(expect.stringMatching(/^https:\/\/learn\.example\.com\//));
    }
    expect(answer.body).not.toContain('http://');
    // and it is the document kept for later requests (every endpoint on baseUrl)
    expect(answer.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('the authorization redirect is on https baseUrl and its cookies are Secure', async () => {
    const { challenge } = pkcePair();
    const query = new URLSearchParams({
      response_type: 'code', client_id: MEMBER.clientId, redirect_uri: MEMBER.redirectUri,
      scope: 'openid', state: randomState(), code_challenge: challenge, code_challenge_method: 'S256', resource: BASE,
    });
    const authorize = await balanced(`${ENDPOINTS.authorization.path}?${query}`);
    expect(authorize.status).toBe(303);
    expect(new URL(authorize.headers.location as string, BASE).origin).toBe(BASE);
    const cookies = [authorize.headers['set-cookie'] ?? []].flat();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*secure\b/i);
  });
});
