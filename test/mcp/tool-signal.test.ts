/**
 * A host tool's handler gets an abort signal (`context.signal`, the SDK's per-request signal):
 * aborted when `/mcp` stops waiting for its answer, so a tool stuck on a backend can stop its
 * work. Over real HTTP, in both protocol eras: past the answer bound (shortened here), and
 * when the client goes away. A tool that answers in time sees a signal that never aborts.
 *
 * Not covered: `notifications/cancelled`. The SDK aborts a handler's signal when its server
 * receives one for the request's id, but on this stateless endpoint every POST is served by
 * a server of its own, so a notification in another POST never reaches the request; one in
 * the same POST (a 2025-03-26 batch) is refused with 400 before the SDK (lib/mcp/batch.ts),
 * and 2025-06-18 and later have no batches.
 */

import { MCP_REVISIONS } from '../../lib/constants.ts';
import { NO_ANSWER } from '../../lib/mcp/answer-bound.ts';
import { defineMcpTool } from '../../lib/mcp/index.ts';
import type { McpToolContext } from '../../lib/mcp/index.ts';
import { serveMcpEndpoint } from '../support/mcp-endpoint.ts';
import type { ServedMcpEndpoint } from '../support/mcp-endpoint.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const BOUND_MS = 300;
/** how long a test waits for what it expects before failing (never the test's own timeout) */
const PATIENCE_MS = 3000;

interface Call {
  readonly signal: AbortSignal | undefined;
  /** resolves with the abort event's signal once it fires */
  readonly aborted: Promise<AbortSignal>;
}

/** the handler calls of the tools below, in order; `started` resolves on each */
const calls: Call[] = [];
let onStart: (() => void) | undefined;

function started(): Promise<void> {
  return new Promise((resolve) => {
    onStart = resolve;
  });
}

function record(context: McpToolContext | undefined): AbortSignal | undefined {
  const signal = context?.signal;
  calls.push({
    signal,
    aborted: new Promise((resolve) => signal?.addEventListener('abort', () => resolve(signal), { once: true })),
  });
  onStart?.();
  return signal;
}

const tools = [
  defineMcpTool({
    name: 'never_returns', description: 'waits on a backend that never answers', audience: 'public', scopes: [], inputSchema: {},
    handler: (_args, _caller, context) => {
      record(context);
      return new Promise<Record<string, unknown>>(() => {});
    },
  }),
  defineMcpTool({
    name: 'answers', description: 'answers at once', audience: 'public', scopes: [], inputSchema: {},
    handler: (_args, _caller, context) => ({ aborted: record(context)?.aborted ?? null }),
  }),
];

let app: RunningApp;

/** what the endpoints logged as errors */
const logged: string[] = [];

/** `/mcp` on a Koa app of its own, with a real bearer core */
function serveEndpoint(answerTimeoutMs?: number): Promise<ServedMcpEndpoint> {
  return serveMcpEndpoint({
    bearer: app.auth.bearer, options: { tools }, logger: { info() {}, warn() {}, error: (m) => logged.push(m) },
    ...(answerTimeoutMs === undefined ? {} : { answerTimeoutMs }),
  });
}

let bounded: ServedMcpEndpoint;
/** the default bound (30 s), which none of these tests reaches */
let unbounded: ServedMcpEndpoint;

beforeAll(async () => {
  app = await startApp();
  bounded = await serveEndpoint(BOUND_MS);
  unbounded = await serveEndpoint();
});
afterAll(async () => {
  await bounded?.close();
  await unbounded?.close();
  await app.stop();
});
beforeEach(() => {
  calls.length = 0;
  logged.length = 0;
});

const REVISIONS = [['2025-06-18', '2025-06-18'], ['2026-07-28', MCP_REVISIONS.current]] as const;

/** a tools/call of `name` in `revision`, as a client sends it */
function callTool(endpoint: ServedMcpEndpoint, revision: string, name: string, signal: AbortSignal): Promise<Response> {
  const modern = revision === MCP_REVISIONS.current;
  return fetch(`${endpoint.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision,
      ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 7, method: 'tools/call',
      params: {
        name, arguments: {},
        ...(modern ? { _meta: { 'io.modelcontextprotocol/protocolVersion': revision, 'io.modelcontextprotocol/clientCapabilities': {} } } : {}),
      },
    }),
    signal,
  });
}

/** `promise`, or a failure naming `what` once PATIENCE_MS have passed */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${PATIENCE_MS} ms`)), PATIENCE_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe.each(REVISIONS)('a host tool\'s context.signal, MCP %s', (_label, revision) => {
  it('aborts once the answer bound runs out (and the client is answered 503)', async () => {
    const res = await callTool(bounded, revision, 'never_returns', AbortSignal.timeout(PATIENCE_MS));
    expect(res.status).toBe(503);
    expect((await res.json()).error).toEqual({ code: NO_ANSWER.code, message: NO_ANSWER.message });
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.signal).toBeInstanceOf(AbortSignal);
    // the abort event fires, so a handler listening for it (fetch, a driver) stops
    expect(await within(call!.aborted, 'the abort event')).toBe(call!.signal);
    expect(call!.signal!.aborted).toBe(true);
  });

  it.each([['the default bound', () => unbounded], ['a bound', () => bounded]])('aborts once the client goes away before the answer (%s)', async (_bound, endpoint) => {
    const client = new AbortController();
    const running = started();
    const response = callTool(endpoint(), revision, 'never_returns', client.signal).catch((error: unknown) => error);
    await within(running, 'the handler');
    expect(calls[0]!.signal?.aborted).toBe(false);
    client.abort();
    expect(await response).toMatchObject({ name: 'AbortError' });
    const [call] = calls;
    expect(await within(call!.aborted, 'the abort event')).toBe(call!.signal);
    expect(call!.signal!.aborted).toBe(true);
  });

  it('a client that went away ends the bound too: no timeout is logged for it', async () => {
    const client = new AbortController();
    const running = started();
    const response = callTool(bounded, revision, 'never_returns', client.signal).catch((error: unknown) => error);
    await within(running, 'the handler');
    client.abort();
    await response;
    await within(calls[0]!.aborted, 'the abort event');
    // past the bound: nothing was waiting for an answer any more
    await new Promise((resolve) => setTimeout(resolve, BOUND_MS + 200));
    expect(logged).toEqual([]);
  });

  it('is not aborted while the tool answers in time', async () => {
    const res = await callTool(bounded, revision, 'answers', AbortSignal.timeout(PATIENCE_MS));
    expect(res.status).toBe(200);
    expect((await res.json()).result.structuredContent).toEqual({ aborted: false });
  });
});
