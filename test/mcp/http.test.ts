/**
 * The HTTP helpers of lib/mcp/http.ts: what the end-to-end tests cannot pin down, and a body
 * the client never finishes, over a raw socket.
 */
import { connect as h2Connect, createServer as createH2Server } from 'node:http2';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

import { jest } from '@jest/globals';

import { buildApp } from '../../examples/host/app.ts';
import { calledTools } from '../../lib/mcp/http.ts';
import { startApp } from '../support/start-app.ts';

describe('calledTools', () => {
  it('finds the tool names of tools/call requests in a message or a batch, and nothing else', () => {
    expect(calledTools({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } })).toEqual(['whoami']);
    expect(calledTools([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'a' } },
      null, 7, 'x',
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 42 } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call' },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'b' } },
    ])).toEqual(['a', 'b']);
    expect(calledTools(null)).toEqual([]);
  });
});

describe('a body the client never finishes', () => {
  /**
   * Sends the headers of a 1000-byte body and 10 bytes of it, then `end`s (half-closed: the
   * answer can still be read) or `destroy`s the socket; what came back, as text.
   */
  function sendTruncated(port: number, stop: 'end' | 'destroy'): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write([
          'POST /mcp HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Content-Type: application/json',
          'Accept: application/json, text/event-stream', 'MCP-Protocol-Version: 2025-06-18', 'Content-Length: 1000', '', '{"jsonrpc"',
        ].join('\r\n'));
        // after the server has started reading the body
        setTimeout(() => (stop === 'end' ? socket.end() : socket.destroy()), 50);
      });
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => { answer += chunk; });
      socket.on('error', () => {});
      socket.on('close', () => resolve(answer));
    });
  }

  it.each(['end', 'destroy'] as const)('%s: never a 500, and the endpoint throws nothing to Koa and logs nothing', async (stop) => {
    const app = await startApp();
    const thrown: unknown[] = [];
    app.app.on('error', (error) => thrown.push(error));
    const printed = jest.spyOn(console, 'error').mockImplementation(() => {});
    const before = app.warnings.length;
    try {
      const answer = await sendTruncated(app.port, stop);
      // the request is over on the server's side shortly after the socket closed
      await new Promise((resolve) => setTimeout(resolve, 200));
      // a half-closed socket reads Node's own 400 (written when it sees the body cut short,
      // before the endpoint hears of it); the endpoint's answer cannot follow on the dead
      // connection, so what tells is what is thrown and printed
      if (stop === 'end') expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).not.toMatch(/ 500 /);
      // that parse error of Node's reaches Koa on every route; the endpoint's must not
      const ours = thrown.filter((error) => !/^HPE_/.test(String((error as { code?: unknown }).code)));
      expect(ours).toEqual([]);
      expect(printed.mock.calls.flat().join('\n')).not.toMatch(/BodyIncompleteError|not received completely/);
      expect(app.warnings.slice(before)).toEqual([]);
    } finally {
      printed.mockRestore();
      await app.stop();
    }
  });
});

describe('over HTTP/2', () => {
  /** The demo host on an h2c server: Node's compatibility layer gives `:authority`, no `Host`. */
  async function startH2(): Promise<{ url: string; stop(): Promise<void> }> {
    const server = createH2Server();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const demo = await buildApp({ baseUrl: url, operatorSecret: 'operator-secret-for-tests-0123456789', auth: { logger: { info() {}, warn() {}, error() {} } } });
    server.on('request', demo.app.callback());
    return { url, stop: async () => { await new Promise<void>((resolve) => server.close(() => resolve())); await demo.close(); } };
  }

  /** A `tools/list` POST over one HTTP/2 stream; its status and body. */
  function listTools(url: string, authority?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const session = h2Connect(url);
      session.on('error', reject);
      const stream = session.request({
        ':method': 'POST', ':path': '/mcp', ...(authority ? { ':authority': authority } : {}),
        'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18',
      });
      let status = 0;
      let body = '';
      stream.on('response', (headers) => { status = Number(headers[':status']); });
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => { body += chunk; });
      stream.on('end', () => { session.close(); resolve({ status, body }); });
      stream.on('error', reject);
      stream.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
  }

  it('takes the host from :authority: this server\'s is served, another is 403', async () => {
    const server = await startH2();
    try {
      const served = await listTools(server.url);
      expect(served.status).toBe(200);
      expect(JSON.parse(served.body).result.tools.map((t: { name: string }) => t.name)).toContain('search_courses');
      const rebound = await listTools(server.url, 'evil.example');
      expect(rebound.status).toBe(403);
      expect(rebound.body).toContain('Invalid Host: evil.example');
    } finally {
      await server.stop();
    }
  });
});
