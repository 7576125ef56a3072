/**
 * `/mcp` requests of the benchmark, in both revisions ours serves, and the check that they
 * succeed before anything is timed.
 *
 * - `modern`: MCP 2026-07-28, stateless: every request carries the per-request envelope in
 *   `params._meta` (protocol version, client capabilities) and the headers
 *   `MCP-Protocol-Version`, `Mcp-Method` and, for `tools/call`, `Mcp-Name`. Ours serves it
 *   through the v2 SDK's `createMcpHandler`; so does its baseline.
 * - `legacy`: MCP 2025-11-25 as the v1 SDK client sends it without a session: no envelope,
 *   `MCP-Protocol-Version: 2025-11-25`. Ours serves it on the v2 SDK's Streamable HTTP
 *   transport with JSON answers; its baseline is the v1 SDK's stateless example.
 *
 * A request of the wrong shape is answered with a non-200 status or a JSON-RPC `error`, and
 * the scenarios' `verify` counts either as an error; `probeMcp` refuses to measure at all
 * when the first request does not come back 200 with a `result`.
 *
 * @module
 */
export type McpRevision = 'modern' | 'legacy';

export const MCP_REVISION = Object.freeze({ modern: '2026-07-28', legacy: '2025-11-25' } as const);

export interface McpCall {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One JSON-RPC request (`id: 1`) of `method` in `revision`, as a client of that revision sends it. */
export function mcpCall(revision: McpRevision, method: string, params: Record<string, unknown> = {}): McpCall {
  const version = MCP_REVISION[revision];
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    // the Streamable HTTP transport (2025) and the 2026-07-28 handler both require both
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
  };
  let sent = params;
  if (revision === 'modern') {
    headers['mcp-method'] = method;
    if (method === 'tools/call') headers['mcp-name'] = String(params.name);
    sent = {
      ...params,
      _meta: { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} },
    };
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: sent }) };
}

/** The JSON-RPC message of an answer: a JSON body, or the last `data:` line of an event stream. */
function messageOf(text: string): { result?: unknown; error?: unknown } | undefined {
  const json = text.trimStart().startsWith('{')
    ? text
    : text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).at(-1);
  try {
    return json === undefined ? undefined : JSON.parse(json) as { result?: unknown; error?: unknown };
  } catch {
    return undefined;
  }
}

/**
 * Sends `call` once to `origin`'s `/mcp` and throws unless the answer is 200 with a JSON-RPC
 * `result`, no `error`, and passes `verify`: a scenario whose requests fail is reported as
 * failed rather than timed. `headers` adds to the call's own (a bearer token).
 */
export async function probeMcp(
  origin: string, label: string, call: McpCall, verify: (body: string) => boolean, headers: Record<string, string> = {},
): Promise<void> {
  const response = await fetch(`${origin}/mcp`, { method: 'POST', headers: { ...call.headers, ...headers }, body: call.body });
  const text = await response.text();
  const message = messageOf(text);
  const problem = response.status !== 200 ? `HTTP ${response.status}`
    : !message ? 'an answer that is not JSON-RPC'
      : message.error !== undefined || message.result === undefined ? 'a JSON-RPC error'
        : !verify(text) ? 'a result other than the expected one' : undefined;
  if (problem) throw new Error(`${label} answered the first /mcp request with ${problem}, so nothing was measured: ${text.slice(0, 500)}`);
}
