/**
 * Cross-origin calls from a real browser (Debian's Chromium driven by playwright-core): a web
 * app on another origin calls `/mcp` (MCP 2026-07-28), UserInfo and registration with plain
 * `fetch`, so Chromium itself sends the CORS preflights and decides what the page may read.
 *
 * The web app is a tiny HTTP server on 127.0.0.1; Chromium resolves `app.test` and `evil.test`
 * to it (`--host-resolver-rules`), which gives its pages real, non-loopback origins without
 * DNS. `/mcp` allows `http://app.test:<port>` (`options.mcp.allowedOrigins`, beside `baseUrl`'s
 * own origin and loopback pages), so the same page served as `http://evil.test:<port>` is refused. Every result is read by the
 * page's own script (what CORS lets it read), handed back through `page.evaluate`, and
 * rendered on the page; a screenshot of it is written to the OS temp directory (no ignore
 * rule in .gitignore covers artifacts in the repository).
 * Run by `npm run test:browser`; set CHROMIUM_PATH to use another binary.
 */
import { existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from 'playwright-core';
import type { Browser, CDPSession, Page } from 'playwright-core';

import { demoMcpOptions } from '../../examples/host/mcp-tools.ts';
import { createAccountStore, VENDOR_CLIENT_ID } from '../../examples/host/seed.ts';
import { MCP_REVISIONS } from '../../lib/constants.ts';
import { MEMBER, obtainTokens, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join(tmpdir(), 'platform-auth-cross-origin.png');

/** What the page's script reports of one call: what its own JS could read of the answer. */
interface Seen {
  label: string;
  status?: number;
  /** `WWW-Authenticate`, as `response.headers.get` gave it to the page (null when not exposed) */
  challenge?: string | null;
  body?: any;
  /** the call failed in the browser: `fetch` rejected */
  error?: { name: string; message: string };
}

interface Report {
  origin: string;
  mcp: { discover: Seen; list: Seen; call: Seen };
  userinfo: { withToken: Seen; withoutToken: Seen };
  registration: { known: Seen; unknown: Seen; open: Seen };
}

// The web app's script: plain JS, as a page would load it (no bundler, no test code in it).
const APP_JS = String.raw`
const REVISION = ${JSON.stringify(MCP_REVISIONS.current)};
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': REVISION, 'io.modelcontextprotocol/clientCapabilities': {} };
let nextId = 1;

function render(seen) {
  const row = document.createElement('tr');
  const summary = seen.error ? seen.error.name + ': ' + seen.error.message
    : seen.body && seen.body.result && seen.body.result.supportedVersions ? 'supportedVersions ' + seen.body.result.supportedVersions.join(', ')
    : seen.body && seen.body.result && seen.body.result.tools ? 'tools ' + seen.body.result.tools.map((t) => t.name).join(', ')
    : seen.challenge ? 'WWW-Authenticate: ' + seen.challenge
    : seen.body && seen.body.sub ? 'sub ' + seen.body.sub
    : seen.body && seen.body.client_id ? 'client_id ' + seen.body.client_id
    : seen.body && seen.body.error ? 'error ' + seen.body.error
    : JSON.stringify(seen.body);
  for (const text of [seen.label, seen.error ? 'failed' : String(seen.status), summary]) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  row.className = seen.error ? 'failed' : 'answered';
  document.querySelector('#results tbody').append(row);
  return seen;
}

async function attempt(label, call) {
  try {
    const res = await call();
    const text = await res.text();
    let body = text;
    try { body = JSON.parse(text); } catch {}
    return render({ label, status: res.status, challenge: res.headers.get('WWW-Authenticate'), body });
  } catch (e) {
    return render({ label, error: { name: e.name, message: e.message } });
  }
}

function mcp(base, method, params, headers) {
  return fetch(base + '/mcp', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': REVISION,
      'Mcp-Method': method,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: ENVELOPE } }),
  });
}

function register(base, metadata) {
  return fetch(base + '/api/oauth/register', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(metadata) });
}

window.probeMcp = (base) => attempt('mcp server/discover', () => mcp(base, 'server/discover', {}));

window.userinfo = (base, token) => attempt(token ? 'userinfo (token)' : 'userinfo (no token)',
  () => fetch(base + '/api/oauth/userinfo', token ? { headers: { Authorization: 'Bearer ' + token } } : {}));

window.runChecks = async ({ authBase, openBase, token }) => ({
  origin: location.origin,
  mcp: {
    discover: await window.probeMcp(authBase),
    list: await attempt('mcp tools/list', () => mcp(authBase, 'tools/list', {})),
    call: await attempt('mcp tools/call list_my_orders', () => mcp(authBase, 'tools/call', { name: 'list_my_orders', arguments: {} }, { 'Mcp-Name': 'list_my_orders' })),
  },
  userinfo: {
    withToken: await window.userinfo(authBase, token),
    withoutToken: await window.userinfo(authBase, undefined),
  },
  registration: {
    known: await attempt('register A: Acme LMS', () => register(authBase, { client_name: 'Acme LMS' })),
    unknown: await attempt('register A: unknown', () => register(authBase, { client_name: 'Unknown Platform' })),
    open: await attempt('register B: loopback', () => register(openBase, {
      client_name: 'Browser App', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none',
    })),
  },
});
`;

const APP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Cross-origin web app</title>
<style>
  body { font: 13px system-ui, sans-serif; margin: 16px; }
  td { border-bottom: 1px solid #ddd; padding: 4px 8px; vertical-align: top; white-space: nowrap; }
  td:last-child { white-space: normal; word-break: break-all; }
  tr.failed td { color: #b91c1c; }
  tr.answered td:nth-child(2) { font-weight: bold; }
</style>
<script src="/app.js"></script>
</head>
<body>
<h1>Web app on <span id="origin"></span></h1>
<table id="results"><tbody></tbody></table>
<script>document.getElementById('origin').textContent = location.origin;</script>
</body>
</html>
`;

/** The web app: one page and its script, for any Host (app.test and evil.test alike). */
async function startWebApp(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(APP_JS);
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(APP_HTML);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** One request with Node's http client, which (unlike `fetch`) may set `Host` and `Origin`. */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({
      host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
      headers: { 'content-length': String(Buffer.byteLength(body)), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `WWW-Authenticate: Bearer k="v", …` as a map (the header as the page read it). */
function challengeParams(header: string | null | undefined): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  const params: Record<string, string> = {};
  for (const m of header!.slice('Bearer '.length).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[m[1]!] = m[2]!.replace(/\\(.)/g, '$1');
  }
  return params;
}

let web: { server: Server; port: number };
let appOrigin: string;
let evilOrigin: string;
let app: RunningApp;
let openApp: RunningApp;
let browser: Browser;
let memberToken: string;

beforeAll(async () => {
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  web = await startWebApp();
  appOrigin = `http://app.test:${web.port}`;
  evilOrigin = `http://evil.test:${web.port}`;
  app = await startApp({ auth: { mcp: { ...demoMcpOptions({ accounts: createAccountStore() }), allowedOrigins: [appOrigin] } } });
  openApp = await startApp({ auth: { registration: { variant: 'open' } } });
  memberToken = (await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile email account:read', resource: app.baseUrl }, STUDENT)).access_token;
  browser = await chromium.launch({
    executablePath,
    args: [
      '--headless', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync',
      '--host-resolver-rules=MAP app.test 127.0.0.1, MAP evil.test 127.0.0.1',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await openApp?.stop();
  if (web) {
    web.server.closeAllConnections();
    await new Promise<void>((resolve) => web.server.close(() => resolve()));
  }
});

/** A CORS preflight Chromium sent, as DevTools reports it: what it asked for, and the answer's status. */
interface Preflight {
  path: string;
  /** `Access-Control-Request-Headers`, lower-case, comma-separated */
  requestHeaders: string;
  status?: number;
}

/** Records the preflights the page's requests cause (DevTools protocol: `OPTIONS` requests, `Preflight` responses). */
async function watchPreflights(cdp: CDPSession): Promise<Preflight[]> {
  const preflights: Preflight[] = [];
  const byId = new Map<string, Preflight>();
  cdp.on('Network.requestWillBeSent', ({ requestId, request: sent }) => {
    if (sent.method !== 'OPTIONS') return;
    const asked = Object.entries(sent.headers).find(([name]) => name.toLowerCase() === 'access-control-request-headers');
    const preflight: Preflight = { path: new URL(sent.url).pathname, requestHeaders: String(asked?.[1] ?? '').toLowerCase() };
    preflights.push(preflight);
    byId.set(requestId, preflight);
  });
  cdp.on('Network.responseReceived', ({ requestId, type, response }) => {
    const preflight = byId.get(requestId);
    if (type === 'Preflight' && preflight) preflight.status = response.status;
  });
  await cdp.send('Network.enable');
  return preflights;
}

async function openPage(origin: string): Promise<{ page: Page; console: string[]; preflights: Preflight[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 520 } });
  const console: string[] = [];
  page.on('console', (m) => console.push(m.text()));
  const preflights = await watchPreflights(await page.context().newCDPSession(page));
  await page.goto(`${origin}/`);
  expect(await page.textContent('#origin')).toBe(origin);
  return { page, console, preflights };
}

/** The preflights of `path` whose `Access-Control-Request-Headers` name every one of `headers`. */
function preflightsOf(preflights: Preflight[], path: string, headers: string[]): Preflight[] {
  return preflights.filter((p) => p.path === path && headers.every((h) => p.requestHeaders.split(',').includes(h)));
}

describe('a web app on an allowed origin (http://app.test:<port>)', () => {
  let page: Page;
  let report: Report;
  let preflights: Preflight[];

  beforeAll(async () => {
    ({ page, preflights } = await openPage(appOrigin));
    report = await page.evaluate(
      (config) => (window as unknown as { runChecks(c: typeof config): Promise<Report> }).runChecks(config),
      { authBase: app.baseUrl, openBase: openApp.baseUrl, token: memberToken },
    );
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
  afterAll(() => page?.close());

  it('runs from its own non-loopback origin', () => {
    expect(report.origin).toBe(appOrigin);
  });

  it('MCP 2026-07-28: server/discover passes the preflight (Mcp-Method allowed) and names the revision', () => {
    const { discover } = report.mcp;
    expect(discover.error).toBeUndefined();
    expect(discover.status).toBe(200);
    expect(discover.body.result.supportedVersions).toContain(MCP_REVISIONS.current);
  });

  it('Chromium sent the preflights (one per endpoint and server), each answered 204', () => {
    // one for /mcp: its answer (allowing Mcp-Name too) is cached for the later calls
    expect(preflights.filter((p) => p.path === '/mcp')).toEqual([
      expect.objectContaining({ requestHeaders: 'content-type,mcp-method,mcp-protocol-version' }),
    ]);
    expect(preflightsOf(preflights, '/api/oauth/userinfo', ['authorization'])).toHaveLength(1);
    // Variant A and Variant B: two servers, two preflights
    expect(preflightsOf(preflights, '/api/oauth/register', ['content-type'])).toHaveLength(2);
    expect(preflights.map((p) => p.status)).toEqual(preflights.map(() => 204));
  });

  it('MCP tools/list answers the public tools to the page', () => {
    const { list } = report.mcp;
    expect(list.status).toBe(200);
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['search_courses', 'get_course_outline', 'whoami']);
  });

  it('an anonymous MCP tools/call of a member tool is 401 with a challenge the page can read', () => {
    const { call } = report.mcp;
    expect(call.status).toBe(401);
    expect(challengeParams(call.challenge)).toEqual({
      scope: 'account:read', resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
    });
  });

  it('UserInfo answers the member token with its claims, and no token with a readable 401 challenge', () => {
    const { withToken, withoutToken } = report.userinfo;
    expect(withToken.status).toBe(200);
    expect(withToken.body).toMatchObject({ sub: 'acc-student', email: 'student@example.com' });
    expect(withoutToken.status).toBe(401);
    expect(challengeParams(withoutToken.challenge)).toMatchObject({ resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource` });
  });

  it('registration, Variant A: the vendor by name is 201, an unknown name 400 invalid_client_metadata, both readable', () => {
    const { known, unknown } = report.registration;
    expect(known.status).toBe(201);
    expect(known.body).toMatchObject({ client_id: VENDOR_CLIENT_ID, client_name: 'Acme LMS', token_endpoint_auth_method: 'none' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.any(String) });
  });

  it('registration, Variant B: a public client with a loopback redirect URI is 201 with a client_id', () => {
    const { open } = report.registration;
    expect(open.status).toBe(201);
    expect(open.body).toMatchObject({ client_id: expect.any(String), redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
  });

  it('the page rendered every result', async () => {
    expect(await page.locator('#results tr.answered').count()).toBe(8);
    expect(await page.locator('#results tr.failed').count()).toBe(0);
  });
});

describe('a web app on an origin /mcp does not allow (http://evil.test:<port>)', () => {
  const discover = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': MCP_REVISIONS.current, 'io.modelcontextprotocol/clientCapabilities': {},
  } } });
  const mcpHeaders = {
    'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'server/discover',
  };

  it('cannot call /mcp from the browser: the preflight is refused and fetch rejects with a TypeError', async () => {
    const { page, console, preflights } = await openPage(evilOrigin);
    try {
      const probe = await page.evaluate((base) => (window as unknown as { probeMcp(b: string): Promise<Seen> }).probeMcp(base), app.baseUrl);
      expect(probe.status).toBeUndefined();
      expect(probe.error).toEqual({ name: 'TypeError', message: 'Failed to fetch' });
      // Chromium says why: the preflight's status (403) is not ok
      expect(console.join('\n')).toMatch(/blocked by CORS policy: Response to preflight request doesn't pass access control check/);
      expect(preflightsOf(preflights, '/mcp', ['mcp-method'])).toEqual([expect.objectContaining({ status: 403 })]);
      // the open endpoints stay open to it: UserInfo's challenge is readable from this origin too
      const userinfo = await page.evaluate((base) => (window as unknown as { userinfo(b: string): Promise<Seen> }).userinfo(base), app.baseUrl);
      expect(userinfo.status).toBe(401);
      expect(challengeParams(userinfo.challenge)).toHaveProperty('resource_metadata');
    } finally {
      await page.close();
    }
  });

  it('outside the browser: Origin http://evil.test:<port> gets 403 on the request and on its preflight', async () => {
    const refused = await rawPost(`${app.baseUrl}/mcp`, { ...mcpHeaders, origin: evilOrigin }, discover);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toBe(`Forbidden: Invalid Origin: ${evilOrigin}`);
    const preflight = await fetch(`${app.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: evilOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-method,mcp-protocol-version' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    // the same request from the allowed origin is served: the origin is what was refused
    const allowed = await rawPost(`${app.baseUrl}/mcp`, { ...mcpHeaders, origin: appOrigin }, discover);
    expect(allowed.status).toBe(200);
  });

  it('outside the browser: Host evil.test (DNS rebinding) gets 403', async () => {
    for (const host of ['evil.test', `evil.test:${app.port}`]) {
      const refused = await rawPost(`${app.baseUrl}/mcp`, { ...mcpHeaders, host }, discover);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.message).toBe(`Forbidden: Invalid Host: ${host}`);
    }
  });
});
