/**
 * The host's own routes behind auth.routes(): a path outside the endpoint table passes the
 * library's routers by (lib/platform-auth.ts), but stays inside the storage outage guard and
 * keeps its request id. The library's paths match exactly, case and trailing slash included,
 * through routes() and in the pieces of auth.middleware mounted on their own alike
 * (ROUTER_MATCHING, lib/served-endpoints.ts).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';

import { createAccountStore, createSiteStore, demoClients } from '../../examples/host/seed.ts';
import { REQUEST_ID_HEADER } from '../../lib/http/request-id.ts';
import { createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuth } from '../../lib/index.ts';
import { RETRY_AFTER_SECONDS } from '../../lib/storage/outage.ts';
import { switchableAdapter } from '../support/switchable-adapter.ts';
import type { StorageSwitch } from '../support/switchable-adapter.ts';

const SECRET = 'operator-secret-for-tests-0123456789';
const OUTAGE_BODY = { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable, retry later' };

let server: Server;
let url: string;
let auth: PlatformAuth;
const storage: StorageSwitch = { failure: 'none' };
const adapter = switchableAdapter(storage);
const hostSaw: string[] = [];

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  auth = await createPlatformAuth({
    baseUrl: url,
    accounts: createAccountStore(),
    sites: createSiteStore(),
    clients: demoClients(url, SECRET),
    adapter,
    logger: { info() {}, warn() {}, error() {} },
  });
  const app = new Koa();
  // the /broken route's error is expected: not printed by Koa's default error listener
  app.silent = true;
  app.use(auth.routes());
  app.use(async function host(ctx) {
    hostSaw.push(ctx.path);
    if (ctx.path === '/hello') ctx.body = 'hello';
    // a host page that reads the library's storage: the member's connected apps
    if (ctx.path === '/my/apps') ctx.body = await auth.connectedApps.list('someone');
    // a host route with a bug: Koa's handler answers it 500
    if (ctx.path === '/broken') throw new Error('a bug in the host');
    // a host route that answers the outage itself
    if (ctx.path === '/own-503') {
      ctx.status = 503;
      ctx.body = OUTAGE_BODY;
    }
  });
  server.on('request', app.callback());
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await auth.close();
  await adapter.close();
});

afterEach(() => {
  storage.failure = 'none';
  hostSaw.length = 0;
});

async function expectOutage(res: Response) {
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 503, body: OUTAGE_BODY });
  expect(res.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(res.headers.get('cache-control')).toBe('no-store');
}

it('a host route is answered by the host, with a request id', async () => {
  const res = await fetch(`${url}/hello`);
  expect({ status: res.status, body: await res.text() }).toEqual({ status: 200, body: 'hello' });
  expect(res.headers.get(REQUEST_ID_HEADER)).toMatch(/^[\w-]{8,}$/);
  expect(hostSaw).toEqual(['/hello']);
});

it('an error that escapes to Koa\'s handler keeps the request id on its answer', async () => {
  const res = await fetch(`${url}/broken`);
  expect(res.status).toBe(500);
  expect(await res.text()).toBe('Internal Server Error');
  expect(res.headers.get(REQUEST_ID_HEADER)).toMatch(/^[\w-]{8,}$/);
});

it('a host route that fails on storage is a 503 temporarily_unavailable, not a 500', async () => {
  const served = await fetch(`${url}/my/apps`);
  expect({ status: served.status, body: await served.json() }).toEqual({ status: 200, body: [] });
  storage.failure = 'unavailable';
  await expectOutage(await fetch(`${url}/my/apps`, { headers: { accept: 'application/json' } }));
});

it('a host route\'s own 503 temporarily_unavailable gets Retry-After', async () => {
  await expectOutage(await fetch(`${url}/own-503`));
});

it('the library\'s paths are the library\'s, the sign-in pages and the resume path with whatever follows', async () => {
  const metadata = await fetch(`${url}/.well-known/oauth-protected-resource`);
  expect(metadata.status).toBe(200);
  expect(((await metadata.json()) as { resource?: string }).resource).toBe(url);
  const userinfo = await fetch(`${url}/api/oauth/userinfo`);
  expect(userinfo.status).toBe(401);
  expect(userinfo.headers.get('www-authenticate')).toMatch(/^Bearer /);
  // an interaction that does not exist: the library's page, not the host's 404
  const page = await fetch(`${url}/oauth/interaction/unknown-uid`, { headers: { accept: 'text/html' } });
  expect(page.status).toBe(400);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(hostSaw).toEqual([]);
});

it('a path next to the library\'s is the host\'s', async () => {
  const res = await fetch(`${url}/api/oauth/userinfox`);
  expect(res.status).toBe(404);
  expect(hostSaw).toEqual(['/api/oauth/userinfox']);
});

it('paths match exactly: another case or a trailing slash is the host\'s', async () => {
  const variants = [
    '/.WELL-KNOWN/oauth-protected-resource', '/API/OAUTH/USERINFO', '/OAUTH/INTERACTION/abc', '/MCP',
    '/.well-known/oauth-protected-resource/', '/api/oauth/userinfo/', '/api/oauth/token/',
  ];
  for (const path of variants) {
    const res = await fetch(`${url}${path}`);
    expect([path, res.status]).toEqual([path, 404]);
  }
  expect(hostSaw).toEqual(variants);
});

it('a piece of auth.middleware mounted on its own matches paths as routes() does', async () => {
  const alone = new Koa();
  alone.use(auth.middleware.resource);
  alone.use((ctx) => {
    ctx.status = 404;
    ctx.body = 'host';
  });
  const other = createServer(alone.callback());
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  try {
    for (const [path, status] of [
      ['/.well-known/oauth-protected-resource', 200], ['/.well-known/oauth-protected-resource/', 404],
      ['/.WELL-KNOWN/oauth-protected-resource', 404], ['/API/OAUTH/USERINFO', 404], ['/api/oauth/userinfo/', 404],
    ] as const) {
      const res = await fetch(`${origin}${path}`);
      expect([path, res.status]).toEqual([path, status]);
    }
  } finally {
    other.closeAllConnections();
    await new Promise<void>((resolve) => other.close(() => resolve()));
  }
});
