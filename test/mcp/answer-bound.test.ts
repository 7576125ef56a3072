/**
 * The bound on the wait for an answer (the 2025 revisions' JSON, the start of a 2026-07-28 response): a tool that never returns is answered 503
 * with a JSON-RPC error once the bound runs out, logged once, and its server closed (back to
 * its pool); answers that come in time are untouched. The endpoint runs over real HTTP with
 * the bound shortened, since the default is 30 s.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { jest } from '@jest/globals';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

import { MCP_REVISIONS } from '../../lib/constants.ts';
import { ANSWER_TIMEOUT_MS, answerWithin, NO_ANSWER } from '../../lib/mcp/answer-bound.ts';
import { defineMcpTool } from '../../lib/mcp/index.ts';
import type { McpOptions } from '../../lib/mcp/index.ts';
import { serveMcpEndpoint } from '../support/mcp-endpoint.ts';
import type { ServedMcpEndpoint } from '../support/mcp-endpoint.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const BOUND_MS = 300;

let app: RunningApp;
let served: ServedMcpEndpoint;
let baseUrl: string;
const logged: string[] = [];

beforeAll(async () => {
  // for a real bearer core; the endpoint under test is mounted on a Koa app of its own
  app = await startApp();
  const tools = [
    defineMcpTool({
      name: 'never_returns', description: 'waits on a backend that never answers', audience: 'public', scopes: [], inputSchema: {},
      handler: () => new Promise<Record<string, unknown>>(() => {}),
    }),
  ];
  served = await serveMcpEndpoint({
    bearer: app.auth.bearer, options: { tools }, answerTimeoutMs: BOUND_MS,
    logger: { info() {}, warn: (m) => logged.push(m), error: (m) => logged.push(m) },
  });
  baseUrl = served.baseUrl;
});
afterAll(async () => {
  await served.close();
  await app.stop();
});

function post(body: unknown, revision = '2025-06-18') {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision },
    body: JSON.stringify(body),
    // without the bound the answer never comes: fail here, not at the test's timeout
    signal: AbortSignal.timeout(5000),
  });
}

describe('over HTTP, with the bound shortened', () => {
  it('a call that never returns is answered 503 -32603 with Retry-After once the bound runs out, and its server is closed', async () => {
    const closes = jest.spyOn(McpServer.prototype, 'close');
    const before = logged.length;
    const started = Date.now();
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'never_returns', arguments: {} } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(BOUND_MS - 20);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(NO_ANSWER.headers!['Retry-After']);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: NO_ANSWER.message }, id: null });
    // ours, not the client's: one line, naming the tool
    expect(logged.slice(before)).toEqual([`platform-auth: /mcp: no answer within ${BOUND_MS} ms (tools/call of "never_returns"); answered 503`]);
    // the exchange's server is closed, which aborts the call and returns it to the pool
    expect(closes).toHaveBeenCalled();
    closes.mockRestore();
  });

  it('on 2026-07-28 too: the wait for the response is bounded, and the exchange\'s server closed', async () => {
    const closes = jest.spyOn(McpServer.prototype, 'close');
    const before = logged.length;
    const res = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_REVISIONS.current,
        'mcp-method': 'tools/call', 'mcp-name': 'never_returns',
      },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 3, method: 'tools/call',
        params: { name: 'never_returns', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MCP_REVISIONS.current, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
      signal: AbortSignal.timeout(5000),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(NO_ANSWER.headers!['Retry-After']);
    expect((await res.json()).error.code).toBe(-32603);
    expect(logged.slice(before)).toEqual([`platform-auth: /mcp: no answer within ${BOUND_MS} ms (tools/call of "never_returns"); answered 503`]);
    expect(closes).toHaveBeenCalled();
    closes.mockRestore();
  });

  it('a browser page reads the 503\'s Retry-After (exposed: it is not a CORS-safelisted response header)', async () => {
    const page = 'http://localhost:5173';
    const res = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', origin: page },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'never_returns', arguments: {} } }),
      signal: AbortSignal.timeout(5000),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('access-control-allow-origin')).toBe(page);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(exposed).toContain('retry-after');
    await res.body?.cancel();
  });

  it('the endpoint serves on: an answer in time is untouched', async () => {
    const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(res.status).toBe(200);
    expect((await res.json()).result.tools.map((t: { name: string }) => t.name)).toContain('never_returns');
  });
});

describe('options.mcp.answerTimeout, over HTTP', () => {
  /** answers after `ms`, unless its call is aborted first */
  const sleeps = defineMcpTool({
    name: 'sleeps', description: 'waits on a slow backend', audience: 'public', scopes: [], inputSchema: { ms: z.number().int() },
    async handler({ ms }, _caller, { signal }) {
      await sleep(ms, undefined, { signal });
      return { slept: ms };
    },
  });
  const endpoints: { url: string; close: () => Promise<void> }[] = [];

  /** `/mcp` with these options and nothing shortened: the bound is the option's */
  async function endpoint(options: McpOptions): Promise<string> {
    const served = await serveMcpEndpoint({
      bearer: app.auth.bearer, options: { tools: [sleeps], ...options },
      logger: { info() {}, warn: (m) => logged.push(m), error: (m) => logged.push(m) },
    });
    endpoints.push({ url: `${served.baseUrl}/mcp`, close: () => served.close() });
    return `${served.baseUrl}/mcp`;
  }
  afterAll(async () => {
    await Promise.all(endpoints.map((e) => e.close()));
  });

  function sleepFor(url: string, ms: number) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sleeps', arguments: { ms } } }),
      signal: AbortSignal.timeout(10_000),
    });
  }

  it('answerTimeout: 1 answers a call still running after 1 s with 503 and the NO_ANSWER body', async () => {
    const url = await endpoint({ answerTimeout: 1 });
    const before = logged.length;
    const started = Date.now();
    const res = await sleepFor(url, 3000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(NO_ANSWER.headers!['Retry-After']);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: NO_ANSWER.code, message: NO_ANSWER.message }, id: null });
    // well before the tool's 3 s
    expect(Date.now() - started).toBeLessThan(2500);
    expect(logged.slice(before)).toEqual(['platform-auth: /mcp: no answer within 1000 ms (tools/call of "sleeps"); answered 503']);
  });

  it('answerTimeout: false sets no bound: no timer, and a slow call is answered when it is done', async () => {
    const unbound = await endpoint({ answerTimeout: false });
    const byDefault = await endpoint({});
    const timers = jest.spyOn(globalThis, 'setTimeout');
    try {
      // the spy sees the default bound's timer...
      expect((await sleepFor(byDefault, 1)).status).toBe(200);
      expect(timers.mock.calls.filter(([, ms]) => ms === ANSWER_TIMEOUT_MS)).toHaveLength(1);
      timers.mockClear();
      // ...and none without a bound, where a call that outlives a 1 s bound still gets its answer
      const res = await sleepFor(unbound, 1200);
      expect(res.status).toBe(200);
      expect((await res.json()).result.structuredContent).toEqual({ slept: 1200 });
      expect(timers.mock.calls.filter(([, ms]) => ms === ANSWER_TIMEOUT_MS || ms === 1000)).toEqual([]);
    } finally {
      timers.mockRestore();
    }
  });
});

describe('answerWithin', () => {
  it('gives the answer that comes in time, and never calls onTimeout', async () => {
    const onTimeout = jest.fn();
    expect(await answerWithin(Promise.resolve('answer'), 50, onTimeout)).toBe('answer');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(onTimeout).not.toHaveBeenCalled();
  });

  it('gives undefined once the bound runs out, after calling onTimeout once', async () => {
    const onTimeout = jest.fn();
    expect(await answerWithin(new Promise<string>(() => {}), 50, onTimeout)).toBeUndefined();
    expect(onTimeout).toHaveBeenCalledTimes(1);
  });

  it('gives undefined at once when `ended` aborts, and never calls onTimeout', async () => {
    const onTimeout = jest.fn();
    const ended = new AbortController();
    const answer = answerWithin(new Promise<string>(() => {}), 50, onTimeout, ended.signal);
    ended.abort();
    expect(await answer).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(onTimeout).not.toHaveBeenCalled();
  });
});
