/**
 * The discovery document, computed by the provider once (lib/policies/discovery-cache.ts):
 * later GETs are answered without entering the provider, with the provider's own bytes and
 * headers, whatever `Host` or `Origin` they name.
 */
import { request } from 'node:http';

import { ENDPOINTS } from '../../lib/index.ts';
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
  // no discovery route takes POST: not the kept document either
  const post = await send(app, OIDC, {}, 'POST');
  expect(post.status).toBe(404);
  expect(post.body).not.toContain('issuer');
});
