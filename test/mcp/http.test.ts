/**
 * The HTTP helpers of lib/mcp/http.ts: what the end-to-end tests cannot pin down, and a body
 * the client never finishes, over a raw socket.
 */
import { connect } from 'node:net';

import { jest } from '@jest/globals';

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
