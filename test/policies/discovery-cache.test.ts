/**
 * The discovery document, computed by the provider once (lib/policies/discovery-cache.ts):
 * later GETs are answered without entering the provider, with the provider's own bytes and
 * headers, whatever `Host` or `Origin` they name.
 */
import { request } from 'node:http';

import type { Context } from 'koa';

import { ENDPOINTS } from '../../lib/index.ts';
import { createDiscoveryCache } from '../../lib/policies/discovery-cache.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const OIDC = ENDPOINTS.openidConfiguration.path;
const RFC8414 = ENDPOINTS.authorizationServerMetadata.path;

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A request over real HTTP, with any `Host` (fetch would not send a foreign one). */
function send(app: RunningApp, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What the answers must agree on: every header but the date and the request id. */
function comparable({ status, body, headers }: Answer) {
  const { date: _date, 'x-request-id': _id, ...rest } = headers;
  return { status, body, headers: rest };
}

let app: RunningApp;
/** requests for a discovery address that entered the provider: each gets its `ctx.oidc` */
let entered: number;
beforeEach(async () => {
  app = await startApp();
  entered = 0;
  const { provider } = app.auth;
  const Context = provider.OIDCContext;
  Object.defineProperty(provider, 'OIDCContext', {
    value: class extends Context {
      constructor(ctx: ConstructorParameters<typeof Context>[0]) {
        super(ctx);
        if (ctx.path === OIDC) entered += 1;
      }
    },
  });
});
afterEach(() => app.stop());

it('answers later GETs with the provider\'s first answer, without entering the provider', async () => {
  const first = await send(app, OIDC);
  expect(first.status).toBe(200);
  expect(entered).toBe(1);
  const again = await send(app, OIDC);
  const rfc8414 = await send(app, RFC8414);
  expect(entered).toBe(1);
  expect(comparable(again)).toEqual(comparable(first));
  expect(comparable(rfc8414)).toEqual(comparable(first));
  expect(first.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'public, max-age=3600',
    'access-control-allow-origin': '*',
    vary: 'Origin',
  });
  expect(JSON.parse(first.body).issuer).toBe(app.baseUrl);
  // each answer is still its own request, with its own id
  expect(again.headers['x-request-id']).toEqual(expect.any(String));
  expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
});

it('gives a page\'s Origin the provider\'s CORS answer, and ignores a foreign Host', async () => {
  const page = { origin: 'https://app.example' };
  const fromProvider = await send(app, OIDC, page);
  const kept = await send(app, OIDC, { ...page, host: 'evil.example' });
  expect(entered).toBe(1);
  expect(comparable(kept)).toEqual(comparable(fromProvider));
  expect(kept.headers['access-control-allow-origin']).toBe('https://app.example');
  expect(kept.body).not.toContain('evil.example');
  expect(JSON.parse(kept.body).token_endpoint).toBe(`${app.baseUrl}${ENDPOINTS.token.path}`);
});

it('leaves HEAD, the preflight and other methods to the provider', async () => {
  await send(app, OIDC);
  const head = await send(app, OIDC, {}, 'HEAD');
  expect(head.status).toBe(200);
  expect(head.body).toBe('');
  const preflight = await send(app, OIDC, { origin: 'https://app.example', 'access-control-request-method': 'GET' }, 'OPTIONS');
  expect(preflight.status).toBe(204);
  expect(entered).toBe(3);
  // no discovery route takes POST: not the kept document either (lib/http/allowed-methods.ts)
  const post = await send(app, OIDC, {}, 'POST');
  expect(post.status).toBe(405);
  expect(entered).toBe(3);
  expect(post.body).not.toContain('issuer');
});

it.each(['http', 'foo'])('keeps no URL of a host named in the request line (%s:// in absolute form)', async (scheme) => {
  // RFC 9112 §3.2.2: servers accept `GET http://host/path`; Koa's href is then that URL (and
  // with another scheme, the origin with that target glued on: a host named `…foo`)
  const absolute = await send(app, `${scheme}://evil.example${OIDC}`);
  expect(absolute.status).toBe(200);
  expect(absolute.body).not.toContain('evil.example');
  expect(JSON.parse(absolute.body).token_endpoint).toBe(`${app.baseUrl}${ENDPOINTS.token.path}`);
  const later = await send(app, RFC8414);
  expect(later.body).not.toContain('evil.example');
  const document = JSON.parse(later.body) as Record<string, string>;
  expect(document.authorization_endpoint).toBe(`${app.baseUrl}${ENDPOINTS.authorization.path}`);
  expect(document.token_endpoint).toBe(`${app.baseUrl}${ENDPOINTS.token.path}`);
  expect(document.jwks_uri).toBe(`${app.baseUrl}${ENDPOINTS.jwks.path}`);
});

it('does not keep a document that names another origin than baseUrl\'s', () => {
  const cache = createDiscoveryCache('https://learn.example.com/auth');
  const answer = (document: Record<string, unknown>) => ({
    oidc: { route: 'discovery' }, status: 200, method: 'GET', body: document, set() {},
  }) as unknown as Context;
  const request = () => {
    const ctx = { method: 'GET', vary() {}, set() {}, get: () => '' } as unknown as Context & { body?: unknown };
    return { served: cache.serve(ctx), body: ctx.body };
  };
  cache.keep(answer({ issuer: 'https://learn.example.com/auth', token_endpoint: 'https://evil.example/api/oauth/token' }));
  cache.keep(answer({ issuer: 'https://learn.example.com/auth', jwks_uri: 'not a url' }));
  expect(request().served).toBe(false);
  const good = { issuer: 'https://learn.example.com/auth', token_endpoint: 'https://learn.example.com/api/oauth/token', jwks_uri: 'https://learn.example.com/jwks' };
  cache.keep(answer(good));
  expect(request()).toEqual({ served: true, body: JSON.stringify(good) });
});
