/**
 * `/mcp` refuses a foreign `Host` or `Origin` with the SDK's 403 (DNS rebinding), and the
 * client's SDK reports only a failed version negotiation, while every other endpoint answers
 * any `Host`: the first refusal of each kind is logged, once per instance, with the option to
 * change. Raw `node:http` requests, since `fetch` cannot set `Host`.
 */
import { request } from 'node:http';

import { MCP_REVISIONS } from '../../lib/constants.ts';
import type { Logger, PlatformAuthOptions } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

interface Logged {
  readonly warn: string[];
  readonly error: string[];
  readonly logger: Logger;
}

function recording(): Logged {
  const warn: string[] = [];
  const error: string[] = [];
  return { warn, error, logger: { info() {}, warn: (m) => warn.push(m), error: (m) => error.push(m) } };
}

/** The demo host logging to `logged`, which then holds only what was logged after start-up. */
async function started(logged: Logged, auth: Partial<PlatformAuthOptions> = {}): Promise<RunningApp> {
  const app = await startApp({ auth: { logger: logged.logger, ...auth } });
  // start-up's own hints (no jwks, no cookieKeys) are not what is tested
  logged.warn.length = 0;
  logged.error.length = 0;
  return app;
}

const discover = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: {
  'io.modelcontextprotocol/protocolVersion': MCP_REVISIONS.current, 'io.modelcontextprotocol/clientCapabilities': {},
} } });
const mcpHeaders = {
  'content-type': 'application/json', accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MCP_REVISIONS.current, 'mcp-method': 'server/discover',
};

function post(app: RunningApp, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: app.port, path: '/mcp', method: 'POST',
      headers: { 'content-length': String(Buffer.byteLength(discover)), ...mcpHeaders, ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(discover);
  });
}

/** Fails unless the answer is the SDK's 403 for `reason`. */
function expectForbidden(answer: { status: number; body: string }, reason: string): void {
  expect(answer.status).toBe(403);
  expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: `Forbidden: ${reason}` }, id: null });
}

describe('a refused Host', () => {
  it('is answered 403 every time and logged once, naming the host, baseUrl\'s host and mcp.allowedHosts', async () => {
    const logged = recording();
    const app = await started(logged);
    try {
      // baseUrl is http://127.0.0.1:<port>: a client on localhost reaches the same server
      for (const host of [`localhost:${app.port}`, `localhost:${app.port}`, 'other.example', `localhost:${app.port}`]) {
        expectForbidden(await post(app, { host }), `Invalid Host: ${host}`);
      }
      expect(logged.warn).toHaveLength(1);
      expect(logged.warn[0]).toBe(`platform-auth: /mcp answered 403 to Host "localhost:${app.port}": it answers the Host of baseUrl (127.0.0.1:${app.port}) only, `
        + 'against DNS rebinding (the other endpoints answer any Host). If clients reach this server under that name (localhost and 127.0.0.1 are different hosts), '
        + 'list it in options.mcp.allowedHosts; behind a proxy that does not pass Host on, set options.proxy and have the proxy send X-Forwarded-Host. '
        + 'Logged once per instance; later refused hosts are not logged.');
      expect(logged.error).toEqual([]);
      // this server's own host is still served
      expect((await post(app, { host: `127.0.0.1:${app.port}` })).status).toBe(200);
      expect(logged.warn).toHaveLength(1);
    } finally {
      await app.stop();
    }
  });

  it('names the allowed hosts when options.mcp.allowedHosts is set', async () => {
    const logged = recording();
    const configured = await started(logged, { mcp: { allowedHosts: ['learn.example', 'learn.example:8443'] } });
    try {
      expectForbidden(await post(configured, { host: 'localhost' }), 'Invalid Host: localhost');
      expect(logged.warn).toEqual([expect.stringMatching(/^platform-auth: \/mcp answered 403 to Host "localhost": it answers the Host of baseUrl and those in options\.mcp\.allowedHosts \(127\.0\.0\.1:\d+, learn\.example, learn\.example:8443\) only/)]);
    } finally {
      await configured.stop();
    }
  });

  it('behind a proxy, names X-Forwarded-Host', async () => {
    const logged = recording();
    const app = await started(logged, { proxy: true });
    try {
      expectForbidden(await post(app, { 'x-forwarded-host': 'internal:8080' }), 'Invalid Host: internal:8080');
      expect(logged.warn).toEqual([expect.stringMatching(/^platform-auth: \/mcp answered 403 to X-Forwarded-Host "internal:8080": .* have the proxy send the name clients use in X-Forwarded-Host/)]);
    } finally {
      await app.stop();
    }
  });

  it('behind a proxy that sent no X-Forwarded-Host, says so', async () => {
    const logged = recording();
    const app = await started(logged, { proxy: true });
    try {
      expectForbidden(await post(app, { host: 'internal:8080' }), 'Invalid Host: internal:8080');
      expect(logged.warn).toEqual([expect.stringMatching(/^platform-auth: \/mcp answered 403 to Host "internal:8080": .* options\.proxy is set, but the request had no X-Forwarded-Host/)]);
    } finally {
      await app.stop();
    }
  });

  it('shows the request\'s value cut and with its control characters escaped', async () => {
    const logged = recording();
    const app = await started(logged);
    try {
      const host = `a\tb${'x'.repeat(2000)}`;
      expect((await post(app, { host })).status).toBe(403);
      expect(logged.warn).toHaveLength(1);
      const [line] = logged.warn;
      expect(line).toContain(`Host "a\\\\u0009b${'x'.repeat(297)}": it answers`);
      expect(line).not.toContain('\t');
      expect(line!.length).toBeLessThan(800);
    } finally {
      await app.stop();
    }
  });
});

describe('a refused Origin', () => {
  it('is answered 403 every time and logged once, apart from a refused Host, naming mcp.allowedOrigins', async () => {
    const logged = recording();
    const app = await started(logged);
    try {
      for (let i = 0; i < 3; i += 1) {
        expectForbidden(await post(app, { origin: 'https://app.example' }), 'Invalid Origin: https://app.example');
      }
      expect(logged.warn).toEqual([
        `platform-auth: /mcp answered 403 to Origin "https://app.example": a browser page may call it only from the origin of baseUrl (${app.baseUrl}) and pages on a loopback host, `
        + 'against DNS rebinding. To let a web app call /mcp, list its origin in options.mcp.allowedOrigins (or "*": tokens travel in the Authorization header, never in cookies). '
        + 'Logged once per instance; later refused origins are not logged.',
      ]);
      expectForbidden(await post(app, { host: 'other.example' }), 'Invalid Host: other.example');
      expectForbidden(await post(app, { host: 'other.example' }), 'Invalid Host: other.example');
      expect(logged.warn).toHaveLength(2);
      expect(logged.warn[1]).toMatch(/^platform-auth: \/mcp answered 403 to Host "other\.example":/);
    } finally {
      await app.stop();
    }
  });
});

describe('mcp.allowedHosts and mcp.allowedOrigins add to what is always allowed', () => {
  it('listing a partner keeps baseUrl\'s host and origin and loopback pages; the log line names them all', async () => {
    const logged = recording();
    const app = await started(logged, { mcp: { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://partner.example.com'] } });
    try {
      const own = new URL(app.baseUrl).host;
      const statuses = {
        'baseUrl\'s host': (await post(app, { host: own })).status,
        'a listed host': (await post(app, { host: 'mcp.example.com' })).status,
        'another host': (await post(app, { host: 'other.example' })).status,
        'baseUrl\'s own pages': (await post(app, { origin: app.baseUrl })).status,
        'a loopback page': (await post(app, { origin: 'http://localhost:5173' })).status,
        'the listed partner': (await post(app, { origin: 'https://partner.example.com' })).status,
        'another origin': (await post(app, { origin: 'https://evil.example' })).status,
      };
      expect(statuses).toEqual({
        'baseUrl\'s host': 200, 'a listed host': 200, 'another host': 403,
        'baseUrl\'s own pages': 200, 'a loopback page': 200, 'the listed partner': 200, 'another origin': 403,
      });
      expect(logged.warn).toEqual([
        expect.stringContaining(`it answers the Host of baseUrl and those in options.mcp.allowedHosts (${own}, mcp.example.com) only`),
        expect.stringContaining(`may call it only from the origin of baseUrl, those in options.mcp.allowedOrigins (${app.baseUrl}, https://partner.example.com) and pages on a loopback host`),
      ]);
    } finally {
      await app.stop();
    }
  });
});
