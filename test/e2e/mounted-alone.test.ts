/**
 * The pieces of `auth.middleware`, mounted one by one on a host app instead of `routes()`,
 * keep its rules on their own paths (lib/http/mounted-alone.ts): a host body parser or a
 * stream reader in front is refused with the configuration error, logged once, on every
 * piece that reads a body; a storage outage is the outage answer (503 with `Retry-After`,
 * the outage page for a browser, one line in the log). The host's own routes after them are
 * left as they came. Over real HTTP, on a store that can be switched to "down".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';

import { createDemoMemberData } from '../../examples/host/member-data.ts';
import { createAccountStore, createSiteStore, demoClients, VENDOR_CLIENT_ID } from '../../examples/host/seed.ts';
import { FLOWING_BODY_MESSAGE, MOUNT_ORDER_MESSAGE, pieceRouterMountMessage } from '../../lib/http/mount-order.ts';
import { createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuth } from '../../lib/index.ts';
import { RETRY_AFTER_SECONDS } from '../../lib/storage/outage.ts';
import { Browser, isPage } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, obtainTokens, postForm } from '../support/flows.ts';
import { countingBodies } from '../support/host-middleware.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { switchableAdapter } from '../support/switchable-adapter.ts';
import type { StorageSwitch } from '../support/switchable-adapter.ts';

interface Host {
  readonly url: string;
  readonly errors: string[];
  readonly warnings: string[];
  stop(): Promise<void>;
}

/** Every piece, in the order routes() runs them, each mounted with its own app.use(). */
const PIECES = ['resource', 'interactions', 'accountApi', 'mcp', 'docs', 'registration', 'provider'] as const;

/** Every piece mounted with its own app.use(), after `before`. */
const eachOnTheApp = (before: readonly Koa.Middleware[] = []) => (app: Koa, auth: PlatformAuth) => {
  for (const m of before) app.use(m);
  for (const name of PIECES) app.use(auth.middleware[name]!);
};

async function startHost(storage: StorageSwitch, mount: (app: Koa, auth: PlatformAuth) => void = eachOnTheApp()): Promise<Host> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const errors: string[] = [];
  const warnings: string[] = [];
  const adapter = switchableAdapter(storage);
  const auth: PlatformAuth = await createPlatformAuth({
    baseUrl: url,
    adapter,
    accounts: createAccountStore(),
    sites: createSiteStore(),
    clients: demoClients(url, 'operator-secret-for-tests-0123456789'),
    memberData: createDemoMemberData(),
    registration: { variant: 'restricted', vendors: [{ clientId: VENDOR_CLIENT_ID }] },
    logger: { info() {}, warn: (m) => warnings.push(m), error: (m) => errors.push(m) },
  });
  const app = new Koa();
  mount(app, auth);
  app.use(async (ctx) => {
    if (ctx.path === '/echo') ctx.body = { echoed: (ctx.request as { body?: unknown }).body ?? null };
  });
  server.on('request', app.callback());
  return {
    url,
    errors,
    warnings,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
      await adapter.close();
    },
  };
}

const MISCONFIGURED = { error: 'server_error', error_description: 'the authorization server is misconfigured' };

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
});
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

describe.each([
  // what the host's own route after them sees of its body: the parser's object, or nothing parsed
  ['a body parser', () => bodyParser({ enableTypes: ['json', 'form'] }), MOUNT_ORDER_MESSAGE, { a: 1 }],
  ['a stream reader (a data listener)', () => countingBodies([]), FLOWING_BODY_MESSAGE, null],
])('%s in front of the pieces mounted on their own', (_name, front, message, echoed) => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ failure: 'none' }, eachOnTheApp([front()]));
  });
  afterAll(() => host.stop());

  it('refuses every body a piece would read, with the configuration error, logged once', async () => {
    const answers = [
      ['sign-in form', await postForm(`${host.url}/oauth/interaction/abc/login`, { email: 'a@b.c', password: 'x' })],
      ['Account API', await fetch(`${host.url}/account/graphql`, json({ query: '{ me { id } }' }, { authorization: 'Bearer refused-before-it-is-looked-at' }))],
      ['MCP', await fetch(`${host.url}/mcp`, json(TOOLS_LIST, MCP_HEADERS))],
      ['registration', await fetch(`${host.url}/api/oauth/register`, json({ client_name: 'x', redirect_uris: ['https://a.example/cb'] }))],
      ['token endpoint', await postForm(`${host.url}/api/oauth/token`, { grant_type: 'client_credentials', client_id: 'x' })],
    ] as const;
    for (const [name, res] of answers) {
      expect([name, res.status, await res.json()]).toEqual([name, 500, MISCONFIGURED]);
    }
    expect(host.errors).toEqual([message]);
  });

  it('leaves requests without a body, and the host\'s own routes, alone', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/openid-configuration', '/openapi.json']) {
      expect([path, (await fetch(`${host.url}${path}`)).status]).toEqual([path, 200]);
    }
    const echo = await fetch(`${host.url}/echo`, json({ a: 1 }));
    expect(await echo.json()).toEqual({ echoed });
    expect(host.errors).toHaveLength(1);
  });
});

describe('storage down under the pieces mounted on their own', () => {
  const storage: StorageSwitch = { failure: 'none' };
  let host: Host;
  beforeAll(async () => {
    host = await startHost(storage);
  });
  afterEach(() => {
    storage.failure = 'none';
  });
  afterAll(() => host.stop());

  async function expectOutageJson(name: string, res: Response) {
    expect([name, res.status, res.headers.get('retry-after'), await res.json()]).toEqual([
      name, 503, String(RETRY_AFTER_SECONDS), { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable, retry later' },
    ]);
  }

  it('answers 503 with Retry-After, the outage page to a browser, logged once; served again when it is back', async () => {
    const tokens = await obtainTokens(host.url, MEMBER, { scope: 'openid profile email account:read' }, STUDENT);
    const browser = new Browser(host.url);
    const { challenge } = pkcePair();
    const page = await browser.navigate(buildAuthorizeUrl(host.url, MEMBER, { scope: 'openid account:read', challenge, state: randomState() }));
    if (!isPage(page) || !page.html.includes('name="password"')) throw new Error('expected the sign-in page');

    storage.failure = 'unavailable';
    const reload = await browser.request(page.url, { headers: { accept: 'text/html' } });
    expect(reload.status).toBe(503);
    expect(reload.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reload.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    expect(reload.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await reload.text()).toContain('<h1>Temporarily unavailable</h1>');
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    await expectOutageJson('UserInfo', await fetch(`${host.url}/api/oauth/userinfo`, { headers: bearer }));
    await expectOutageJson('Account API', await fetch(`${host.url}/account/graphql`, json({ query: '{ me { id } }' }, bearer)));
    await expectOutageJson('MCP', await fetch(`${host.url}/mcp`, json(TOOLS_LIST, { ...MCP_HEADERS, ...bearer })));
    expect(host.warnings.filter((w) => w.startsWith('platform-auth: storage is unavailable'))).toHaveLength(1);
    expect(host.errors).toEqual([]);

    storage.failure = 'none';
    expect((await fetch(`${host.url}/api/oauth/userinfo`, { headers: bearer })).status).toBe(200);
    expect((await browser.request(page.url, { headers: { accept: 'text/html' } })).status).toBe(200);
  });
});

describe('pieces mounted inside a @koa/router router (router.use(piece))', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startHost({ failure: 'none' }, (app, auth) => {
      const router = new Router();
      router.use(auth.middleware.mcp!);
      router.use(auth.middleware.provider);
      router.get('/courses', (ctx) => {
        ctx.body = 'courses';
      });
      app.use(router.routes());
    });
  });
  afterAll(() => host.stop());

  it('leaves their paths unanswered (the router\'s rule), and says so once per piece, with the fix, when a routed request reaches them', async () => {
    // the router runs its use() middleware only where one of its routes matches
    expect((await fetch(`${host.url}/.well-known/openid-configuration`)).status).toBe(404);
    expect((await fetch(`${host.url}/mcp`, json({ jsonrpc: '2.0', id: 1, method: 'ping' }, MCP_HEADERS))).status).toBe(404);
    expect(host.errors).toEqual([]);
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(`${host.url}/courses`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('courses');
    }
    expect(host.errors).toEqual([pieceRouterMountMessage('mcp'), pieceRouterMountMessage('provider')]);
    expect(host.errors[0]).toContain('app.use(auth.middleware.mcp)');
  });
});

describe('a @koa/router router mounted on the app before the pieces', () => {
  let host: Host;
  beforeAll(async () => {
    const health = new Router();
    health.get('/health', (ctx) => {
      ctx.body = 'ok';
    });
    host = await startHost({ failure: 'none' }, eachOnTheApp([health.routes() as unknown as Koa.Middleware]));
  });
  afterAll(() => host.stop());

  it('is not taken for a mount inside it: the pieces answer their paths and nothing is logged', async () => {
    expect(await (await fetch(`${host.url}/health`)).text()).toBe('ok');
    const discovery = await fetch(`${host.url}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect((await discovery.json()).issuer).toBe(host.url);
    expect((await fetch(`${host.url}/mcp`, json({ jsonrpc: '2.0', id: 1, method: 'ping' }, MCP_HEADERS))).status).toBe(200);
    expect((await fetch(`${host.url}/echo`, json({}))).status).toBe(200);
    expect(host.errors).toEqual([]);
  });
});
