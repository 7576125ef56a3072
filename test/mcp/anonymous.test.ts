/**
 * `/mcp` without a token, through the SDK's own client: the public tools only, schema-checked
 * inputs, tool errors instead of HTTP errors, and 401 (never a silent anonymous answer) for
 * a protected tool. Raw HTTP only for what no MCP client sends (other methods, CORS, limits).
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import { serveMcpEndpoint } from '../support/mcp-endpoint.ts';
import { rawRequest } from '../support/raw-request.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import {
  challengeParams, connect, expectHttpError, LIBRARY_PUBLIC_TOOLS, mcpUrl, rejection, structured, toolErrorText,
} from './support.ts';
import type { Connected } from './support.ts';

let app: RunningApp;
let anon: Connected;

beforeAll(async () => {
  app = await startApp();
  anon = await connect(app);
});
afterAll(async () => {
  await anon.close();
  await app.stop();
});

interface Course { slug: string; title: string; summary: string | null }
interface CoursePage { site: string; courses: Course[]; pageInfo: { hasNextPage: boolean; endCursor: string | null }; totalCount: number }

describe('anonymous tools/list and tools/call', () => {
  it('negotiates the newest protocol revision', () => {
    expect(anon.transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(anon.client.getServerVersion()?.name).toBe('platform-auth');
    // stateless: the tool list never changes under a client, so no list_changed notifications
    expect(anon.client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(anon.client.getInstructions()).toMatch(/public course catalogue/);
  });

  it('lists the public tools only, each with an input schema and read-only annotations', async () => {
    const { tools } = await anon.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(LIBRARY_PUBLIC_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
      expect(tool.description).toEqual(expect.any(String));
    }
    expect(tools[0]!.inputSchema.properties).toHaveProperty('first.maximum', 100);
  });

  it('searches the default school\'s public catalogue', async () => {
    const page = structured<CoursePage>(await anon.client.callTool({ name: 'search_courses', arguments: { query: 'colour' } }));
    expect(page.site).toBe('demo-school');
    expect(page.courses.map((c) => c.slug)).toEqual(['watercolour-basics', 'colour-theory']);
    expect(page.totalCount).toBe(2);
  });

  it('pages through the catalogue with first/after, and never lists private courses', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 5; i += 1) {
      const page = structured<CoursePage>(await anon.client.callTool({ name: 'search_courses', arguments: { first: 12, ...(after ? { after } : {}) } }));
      seen.push(...page.courses.map((c) => c.slug));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor!;
    }
    expect(seen).toHaveLength(29);
    expect(new Set(seen).size).toBe(29);
    expect(seen).not.toContain('life-drawing');
    expect(seen).not.toContain('staff-onboarding');
  });

  it('reads another school\'s catalogue when asked by site', async () => {
    const page = structured<CoursePage>(await anon.client.callTool({ name: 'search_courses', arguments: { site: 'other-school' } }));
    expect(page.courses.map((c) => c.slug).sort()).toEqual(['guitar-for-beginners', 'music-theory']);
  });

  it('gives a public course outline', async () => {
    const { course } = structured<{ course: { slug: string; sections: { lectures: { id: string; freePreview: boolean }[] }[] } }>(
      await anon.client.callTool({ name: 'get_course_outline', arguments: { course: 'perspective' } }),
    );
    expect(course.slug).toBe('perspective');
    expect(course.sections).toHaveLength(3);
    expect(course.sections[0]!.lectures[0]).toEqual(expect.objectContaining({ id: 'perspective-l1', freePreview: true }));
  });

  it.each(['staff-onboarding', 'alumni-masterclass', 'no-such-course'])('answers a tool error, not an outline, for %s', async (course) => {
    const text = toolErrorText(await anon.client.callTool({ name: 'get_course_outline', arguments: { course } }));
    expect(text).toContain(`no public course "${course}"`);
  });

  it('says the caller is anonymous', async () => {
    expect(structured(await anon.client.callTool({ name: 'whoami', arguments: {} }))).toEqual(expect.objectContaining({ authenticated: false }));
  });
});

describe('inputs are validated by schema; failures are tool errors', () => {
  it.each([
    ['first above the cap', { first: 101 }, /first/],
    ['first of 0', { first: 0 }, /first/],
    ['a string first', { first: 'ten' }, /first/],
    ['a search text too long', { query: 'x'.repeat(201) }, /query/],
  ])('%s', async (_label, args, message) => {
    expect(toolErrorText(await anon.client.callTool({ name: 'search_courses', arguments: args }))).toMatch(message);
  });

  it('an unknown argument is dropped, not an error (models add them)', async () => {
    const page = structured<CoursePage>(await anon.client.callTool({ name: 'search_courses', arguments: { query: 'ink', sorting: 'asc' } }));
    expect(page.courses.map((c) => c.slug)).toEqual(['ink-and-wash']);
  });

  it('a forged cursor is a tool error naming the argument', async () => {
    expect(toolErrorText(await anon.client.callTool({ name: 'search_courses', arguments: { after: 'bm90LWEtY3Vyc29yOjU' } }))).toMatch(/^after: /);
  });

  it('a missing required argument is a tool error', async () => {
    expect(toolErrorText(await anon.client.callTool({ name: 'get_course_outline', arguments: {} }))).toMatch(/course/);
  });

  it('an unknown tool is a JSON-RPC invalid-params error (the v2 SDK\'s answer in every revision)', async () => {
    const error = await rejection(anon.client.callTool({ name: 'drop_tables', arguments: {} }));
    expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/drop_tables not found/) });
  });
});

describe('protected tools without a token', () => {
  it.each([
    ['list_my_courses', 'account:read'],
    ['list_my_orders', 'account:read'],
    ['list_site_courses', 'courses:read'],
    ['list_site_students', 'students:read'],
  ])('%s: the client sees 401 naming %s and the metadata, with no error code (RFC 6750 §3.1: no credentials were sent)', async (name, scope) => {
    const before = anon.seen.length;
    expectHttpError(await rejection(anon.client.callTool({ name, arguments: {} })), 401);
    const [response] = anon.seen.slice(before);
    expect(response!.status).toBe(401);
    expect(challengeParams(response!.challenge)).toEqual({
      scope,
      resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
    });
  });

  it('a header of another scheme (Basic) is refused as invalid_token saying why, not served as anonymous', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, {
      'mcp-protocol-version': '2025-03-26', authorization: 'Basic dXNlcjpwYXNz',
    });
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers.get('www-authenticate'))).toEqual({
      error: 'invalid_token',
      error_description: 'only the Bearer authorization scheme is accepted',
      resource_metadata: `${app.baseUrl}/.well-known/oauth-protected-resource`,
    });
  });

  it('a batch with one protected call is refused as a whole', async () => {
    const res = await post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_my_orders', arguments: {} } },
    ], { 'mcp-protocol-version': '2025-03-26' });
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers.get('www-authenticate')).scope).toBe('account:read');
  });
});

function post(body: unknown, headers: Record<string, string> = {}, init: RequestInit = {}) {
  return fetch(mcpUrl(app), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

describe('HTTP edges (no MCP client sends these)', () => {
  it.each(['GET', 'DELETE', 'PUT'])('%s is 405 with a JSON-RPC error: the server keeps no sessions', async (method) => {
    const res = await fetch(mcpUrl(app), { method, headers: { accept: 'text/event-stream, application/json' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/^Method not allowed/) }, id: null });
  });

  it('with mcp.cors false, OPTIONS is refused too, and the 405\'s Allow says POST alone', async () => {
    const served = await serveMcpEndpoint({ bearer: app.auth.bearer, options: { cors: false }, logger: { info() {}, warn() {}, error() {} } });
    try {
      for (const method of ['OPTIONS', 'GET']) {
        const res = await fetch(`${served.baseUrl}/mcp`, { method });
        expect({ method, status: res.status, allow: res.headers.get('allow') }).toEqual({ method, status: 405, allow: 'POST' });
      }
    } finally {
      await served.close();
    }
  });

  it('answers a CORS preflight from an allowed origin (a loopback page by default) and exposes the challenge header', async () => {
    const inspector = 'http://localhost:6274';
    const res = await fetch(mcpUrl(app), {
      method: 'OPTIONS',
      headers: { origin: inspector, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(inspector);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Mcp-Method, Mcp-Name/);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    const refused = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_orders' } }, { origin: inspector });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(inspector);
    expect(refused.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
  });

  it('refuses a foreign Origin or Host with 403 before anything else (DNS rebinding)', async () => {
    const foreignOrigin = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://evil.example.com' });
    expect(foreignOrigin.status).toBe(403);
    expect(await foreignOrigin.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Invalid Origin: https://evil.example.com' }, id: null });
    const preflight = await fetch(mcpUrl(app), { method: 'OPTIONS', headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(mcpUrl(app), { method: 'POST', headers: { host: 'evil.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
    expect(status).toBe(403);
  });

  it('takes a host with its default port spelled out (:80, :443) for the same host, in Host and in X-Forwarded-Host (RFC 9110 §4.2.3)', async () => {
    const logger = { info() {}, warn() {}, error() {} };
    const served = await serveMcpEndpoint({ bearer: app.auth.bearer, options: { allowedHosts: ['learn.example.com', 'tools.example.com:443'] }, logger });
    try {
      const port = Number(new URL(served.baseUrl).port);
      const send = (host: string) => rawRequest({
        port, target: '/mcp', method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      });
      const statuses: Record<string, number> = {};
      for (const host of ['learn.example.com', 'learn.example.com:443', 'LEARN.example.com:80', 'tools.example.com', 'tools.example.com:443', 'learn.example.com:8443', 'evil.example:443']) {
        statuses[host] = (await send(host)).status;
      }
      expect(statuses).toEqual({
        'learn.example.com': 200, 'learn.example.com:443': 200, 'LEARN.example.com:80': 200, 'tools.example.com': 200, 'tools.example.com:443': 200,
        'learn.example.com:8443': 403, 'evil.example:443': 403,
      });
    } finally {
      await served.close();
    }
    const behind = await startApp({ auth: { proxy: true, mcp: { allowedHosts: ['learn.example.com'] } } });
    try {
      const forwarded = (host: string) => rawRequest({
        port: behind.port, target: '/mcp', method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        headers: { host: 'internal:8080', 'x-forwarded-host': host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      });
      expect([(await forwarded('learn.example.com:443')).status, (await forwarded('evil.example:443')).status]).toEqual([200, 403]);
    } finally {
      await behind.stop();
    }
  });

  it('answers a request whose target is in absolute form (RFC 9112 §3.2.2) as any other', async () => {
    const answer = await rawRequest({
      port: app.port, method: 'POST', target: mcpUrl(app).href,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'absolute', version: '0' } },
      }),
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.protocolVersion).toBe('2025-06-18');
  });

  it('negotiates an older protocol revision a client asks for', async () => {
    const res = await post({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '0' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect((await res.json()).result.protocolVersion).toBe('2025-03-26');
  });

  it('refuses a body over the limit with 413, without reading it', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(300 * 1024) } });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe(-32000);
  });

  it('answers malformed JSON with a JSON-RPC parse error', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await post('tools/list', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });

  it.each([
    'application/json; charset=iso-8859-1',
    'application/json; charset=UTF-16',
    'application/json;charset="windows-1252"',
    'application/json; CHARSET=latin1',
  ])('refuses %s with 415: the body is read as UTF-8, never misread', async (contentType) => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'content-type': contentType, 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type: the charset of Content-Type must be utf-8 (or left out)' }, id: null,
    });
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json;charset="utf-8"',
    'Application/JSON; Charset=Utf-8',
  ])('serves %s', async (contentType) => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'content-type': contentType, 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(200);
    expect((await res.json()).result.tools.length).toBeGreaterThan(0);
  });

  it('answers without Accept of both media types with 406, as the SDK does', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
    expect(res.status).toBe(406);
  });

  it('is never stored by a cache', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves other paths to the next middleware', async () => {
    expect((await fetch(new URL('/mcp/extra', app.baseUrl), { method: 'POST' })).status).toBe(404);
  });
});

describe('behind a proxy (proxy: true): the X-Forwarded-Host entry the trusted proxy wrote counts', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  const send = (behind: RunningApp, forwardedHost: string) => rawRequest({
    port: behind.port, target: '/mcp', method: 'POST', body: initialize,
    headers: {
      host: 'evil.example', 'x-forwarded-host': forwardedHost, 'content-type': 'application/json',
      accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18',
    },
  });

  it.each([1, 2])('proxyHops %i: a rebound name is refused whatever the client put to the left of it', async (proxyHops) => {
    const behind = await startApp({ auth: { proxy: true, proxyHops } });
    try {
      const own = new URL(behind.baseUrl).host;
      // the proxies appended what they received; the client wrote the entries further left
      const written = (client: string[], proxies: string[]) => [...client, ...proxies].join(', ');
      const proxies = (outermost: string) => [outermost, ...Array(proxyHops - 1).fill(own)];
      expect((await send(behind, written([own], proxies('evil.example')))).status).toBe(403);
      expect((await send(behind, written([own, own], proxies('evil.example')))).status).toBe(403);
      expect((await send(behind, written([], proxies('evil.example')))).status).toBe(403);
      // addressed to this server: answered, also with a client entry on the left
      expect((await send(behind, written([], proxies(own)))).status).toBe(200);
      expect((await send(behind, written(['evil.example'], proxies(own)))).status).toBe(200);
      // a proxy that sets the header (one entry) is read whatever proxyHops says
      expect((await send(behind, own)).status).toBe(200);
    } finally {
      await behind.stop();
    }
  });
});
