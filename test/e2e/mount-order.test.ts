/**
 * A host body parser mounted before auth.routes() (what most Koa apps already have) is
 * answered with a clear configuration error on the library's paths, logged once with the
 * fix, instead of the token endpoint's misleading "no client authentication mechanism".
 * The host's own routes keep their parser; mounted in the right order nothing changes.
 * The same for middleware that reads the request stream in front (a `data` listener), and a
 * mount inside a @koa/router router is logged; what the host's CORS middleware in front can
 * and cannot change is here too.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';

import { createAccountStore, createSiteStore, demoClients, MEMBER_CLIENT_ID, OPERATOR_CLIENT_ID } from '../../examples/host/seed.ts';
import { FLOWING_BODY_MESSAGE, ROUTER_MOUNT_MESSAGE } from '../../lib/http/mount-order.ts';
import { createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuth } from '../../lib/index.ts';
import { countingBodies } from '../support/host-middleware.ts';

interface Host {
  readonly url: string;
  readonly errors: string[];
  readonly auth: PlatformAuth;
  stop(): Promise<void>;
}

const SECRET = 'operator-secret-for-tests-0123456789';

interface HostSetup {
  /** the host's middleware in front of the library */
  readonly before?: readonly Koa.Middleware[];
  /** how the library is mounted (default: `app.use(auth.routes())`) */
  readonly mount?: (app: Koa, auth: PlatformAuth) => void;
  /** the host's middleware after the library */
  readonly after?: readonly Koa.Middleware[];
}

async function startHost({ before = [], mount = (app, auth) => app.use(auth.routes()), after = [] }: HostSetup): Promise<Host> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const errors: string[] = [];
  const auth = await createPlatformAuth({
    baseUrl: url,
    accounts: createAccountStore(),
    sites: createSiteStore(),
    clients: demoClients(url, SECRET),
    logger: { info() {}, warn() {}, error: (m) => errors.push(m) },
  });
  const app = new Koa();
  for (const m of before) app.use(m);
  mount(app, auth);
  for (const m of after) app.use(m);
  app.use(async (ctx) => {
    if (ctx.path === '/echo') ctx.body = { echoed: (ctx.request as { body?: unknown }).body };
  });
  server.on('request', app.callback());
  return {
    url,
    errors,
    auth,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
    },
  };
}

const parser = () => bodyParser({ enableTypes: ['json', 'form'] });

function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields) });
}

const TOKEN_REQUEST = { grant_type: 'authorization_code', code: 'nope', client_id: OPERATOR_CLIENT_ID, client_secret: SECRET, redirect_uri: 'https://x.example/cb', code_verifier: 'v'.repeat(43) };

describe('a body parser mounted before auth.routes()', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ before: [parser()] });
  });
  afterAll(() => host.stop());

  it('answers the library\'s endpoints with a configuration error, logged once with the fix', async () => {
    for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
      const res = await postForm(`${host.url}${path}`, TOKEN_REQUEST);
      expect(res.status).toBe(500);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ error: 'server_error', error_description: 'the authorization server is misconfigured' });
    }
    expect(host.errors).toHaveLength(1);
    expect(host.errors[0]).toMatch(/a body parser ran before auth\.routes\(\).*Mount app\.use\(auth\.routes\(\)\) before any body parser/);
  });

  it('also on the sign-in forms and registration, which read bodies too', async () => {
    expect((await postForm(`${host.url}/oauth/interaction/abc/login`, { email: 'a@b.c' })).status).toBe(500);
    const register = await fetch(`${host.url}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"client_name":"x"}' });
    expect(register.status).toBe(500);
  });

  it('leaves requests without a body and the host\'s own routes alone', async () => {
    expect((await fetch(`${host.url}/.well-known/openid-configuration`)).status).toBe(200);
    const echo = await fetch(`${host.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ echoed: { a: 1 } });
  });
});

describe('middleware that reads the request stream before auth.routes() (a data listener)', () => {
  let host: Host;
  const counted: number[] = [];
  beforeAll(async () => {
    host = await startHost({ before: [countingBodies(counted)] });
  });
  afterAll(() => host.stop());

  it('answers every body the library reads with a configuration error, logged once with the fix, never a lost body', async () => {
    const mcp = await fetch(`${host.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const token = await postForm(`${host.url}/api/oauth/token`, TOKEN_REQUEST);
    const signIn = await postForm(`${host.url}/oauth/interaction/abc/login`, { email: 'a@b.c' });
    for (const res of [mcp, token, signIn]) {
      expect(res.status).toBe(500);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect(await token.json()).toEqual({ error: 'server_error', error_description: 'the authorization server is misconfigured' });
    expect(host.errors).toEqual([FLOWING_BODY_MESSAGE]);
  });

  it('leaves requests without a body and the host\'s own routes alone', async () => {
    expect((await fetch(`${host.url}/.well-known/openid-configuration`)).status).toBe(200);
    counted.length = 0;
    const echo = await fetch(`${host.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(echo.status).toBe(200);
    expect(counted).toEqual([7]);
  });
});

describe('the same data listener mounted after auth.routes()', () => {
  let host: Host;
  const counted: number[] = [];
  beforeAll(async () => {
    host = await startHost({ after: [countingBodies(counted)] });
  });
  afterAll(() => host.stop());

  it('changes nothing: the library reads its bodies, and the host counts its own', async () => {
    const token = await postForm(`${host.url}/api/oauth/token`, TOKEN_REQUEST);
    expect(token.status).toBe(400);
    expect((await token.json()).error).toBe('invalid_grant');
    const echo = await fetch(`${host.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(echo.status).toBe(200);
    expect(counted).toEqual([7]);
    expect(host.errors).toEqual([]);
  });
});

describe('auth.routes() mounted first', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ after: [parser()] });
  });
  afterAll(() => host.stop());

  it('serves the token endpoint normally and the host\'s parser after it', async () => {
    const res = await postForm(`${host.url}/api/oauth/token`, TOKEN_REQUEST);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_grant');
    const echo = await fetch(`${host.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ echoed: { a: 1 } });
    expect(host.errors).toEqual([]);
  });
});

describe('auth.routes() mounted inside a @koa/router router (router.use)', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({
      mount: (app, auth) => {
        const router = new Router();
        router.use(auth.routes());
        router.get('/courses', (ctx) => {
          ctx.body = 'courses';
        });
        app.use(router.routes());
      },
    });
  });
  afterAll(() => host.stop());

  it('leaves the library\'s paths unanswered (the router\'s rule), and says so once, with the fix, when a routed request reaches it', async () => {
    // the router runs its use() middleware only where one of its routes matches: nothing reaches the library
    expect((await fetch(`${host.url}/.well-known/openid-configuration`)).status).toBe(404);
    expect(host.errors).toEqual([]);
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(`${host.url}/courses`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('courses');
    }
    expect(host.errors).toEqual([ROUTER_MOUNT_MESSAGE]);
  });
});

describe('a @koa/router router mounted on the app before auth.routes()', () => {
  let host: Host;
  /** whether the host's middleware after the library saw the router's mark on the context */
  const routed: boolean[] = [];
  beforeAll(async () => {
    const health = new Router();
    health.get('/health', (ctx) => {
      ctx.body = 'ok';
    });
    host = await startHost({
      before: [health.routes() as unknown as Koa.Middleware],
      after: [async (ctx, next) => {
        routed.push((ctx as { router?: unknown }).router !== undefined);
        await next();
      }],
    });
  });
  afterAll(() => host.stop());

  it('is not taken for a mount inside it: the library answers its paths and logs nothing', async () => {
    expect(await (await fetch(`${host.url}/health`)).text()).toBe('ok');
    const discovery = await fetch(`${host.url}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect((await discovery.json()).issuer).toBe(host.url);
    // a host path passes the router (which marks the context) and then the library
    const echo = await fetch(`${host.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(echo.status).toBe(200);
    expect(routed).toEqual([true]);
    expect(host.errors).toEqual([]);
  });
});

describe('the provider piece mounted on its own (auth.middleware.provider) after a body parser', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ before: [parser()], mount: (app, auth) => app.use(auth.middleware.provider) });
  });
  afterAll(() => host.stop());

  it('answers the same configuration error, logged once with the fix, not a misleading invalid_request', async () => {
    for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
      const res = await postForm(`${host.url}${path}`, TOKEN_REQUEST);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: 'server_error', error_description: 'the authorization server is misconfigured' });
    }
    expect(host.errors).toHaveLength(1);
    expect(host.errors[0]).toMatch(/a body parser ran before auth\.routes\(\)/);
    expect((await fetch(`${host.url}/.well-known/openid-configuration`)).status).toBe(200);
  });
});

/** A global CORS middleware as hosts mount one (@koa/cors' behaviour): any origin, or an allow-list with credentials. */
function hostCors(allowed?: string): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    ctx.vary('Origin');
    if (!origin || (allowed !== undefined && origin !== allowed)) return next();
    ctx.set('Access-Control-Allow-Origin', allowed ?? '*');
    if (allowed !== undefined) ctx.set('Access-Control-Allow-Credentials', 'true');
    ctx.set('Access-Control-Expose-Headers', 'X-Host-Trace');
    ctx.set('Access-Control-Allow-Private-Network', 'true');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET,HEAD,PUT,POST,DELETE,PATCH');
      ctx.status = 204;
      return undefined;
    }
    return next();
  };
}

describe.each([
  ['any origin', undefined, 'https://evil.example'],
  ['the host\'s own app, with credentials', 'https://app.school.example', 'https://app.school.example'],
])('a host CORS middleware (%s) in front of auth.routes()', (_name, allowed, origin) => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ before: [hostCors(allowed)] });
  });
  afterAll(() => host.stop());

  it('does not switch off the per-client rule: a confidential client is never served cross-origin', async () => {
    const res = await postForm(`${host.url}/api/oauth/token`, TOKEN_REQUEST, { Origin: origin });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    // the provider's own (WWW-Authenticate), not the host's
    expect(res.headers.get('access-control-expose-headers') ?? '').not.toContain('X-Host-Trace');
    expect(res.headers.get('access-control-allow-private-network')).toBeNull();
  });

  it('a public client is served from its loopback origin, by the library\'s rule (no credentials)', async () => {
    const res = await postForm(`${host.url}/api/oauth/token`, {
      grant_type: 'authorization_code', code: 'nope', client_id: MEMBER_CLIENT_ID, redirect_uri: 'http://127.0.0.1:8765/callback', code_verifier: 'v'.repeat(43),
    }, { Origin: 'http://127.0.0.1:8765' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8765');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
