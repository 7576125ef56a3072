/**
 * `/mcp` `tools/list`, anonymous: one JSON-RPC POST, stateless, answered as JSON (no
 * session, no `initialize` first, as a stateless server allows). Ours answers from its pool
 * of ready servers with the tool list prepared once (lib/mcp/server.ts); the baseline is the
 * MCP SDK's default per-request set-up (a new McpServer, its tools and transport for every
 * request) listing the same public tools (bench/servers/bare-mcp.ts); bare Koa is the ceiling.
 *
 * No request carries a token, so no request of this scenario reaches storage: it runs once,
 * not per adapter (the member call, mcp-member-call, is the one that checks a token).
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import { httpWorkload } from '../load/autocannon.ts';
import type { Scenario } from '../lib/types.ts';
import { bareMcpPublic } from '../servers/bare-mcp.ts';
import { koaHello } from '../servers/koa-hello.ts';
import { ours } from '../servers/ours.ts';

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

const HEADERS = {
  'content-type': 'application/json',
  // the Streamable HTTP transport requires both
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
};

/** the three public tools, and nothing a member or operator could see */
function listed(body: string): boolean {
  return body.includes('"result"') && !body.includes('"error"')
    && ['search_courses', 'get_course_outline', 'whoami'].every((name) => body.includes(`"name":"${name}"`))
    && !body.includes('"list_my_courses"');
}

const scenario: Scenario = {
  id: 'mcp-tools-list',
  title: '/mcp tools/list (anonymous)',
  unit: 'req/s',
  order: 75,
  ours,
  baselines: [bareMcpPublic, koaHello],
  // anonymous: no token to look up, nothing stored or read per request
  usesStorage: false,
  targets: [{ kind: 'ratio', min: 1.5, against: bareMcpPublic.id }],
  method: 'POST /mcp {"method":"tools/list"} without a token (Accept: application/json, text/event-stream; '
    + `MCP-Protocol-Version ${LATEST_PROTOCOL_VERSION}), stateless JSON answer. Baseline: the MCP SDK's stateless example `
    + '(new McpServer + tools + StreamableHTTPServerTransport per request, enableJsonResponse) in Koa with the same public '
    + 'tools, no auth. Koa: "hello", body unread. Errors: non-200, a JSON-RPC error, or a list other than the three public tools.',
  async prepare(server) {
    const isKoa = server.target.id === koaHello.id;
    return httpWorkload({
      origin: server.origin,
      connection: () => [{
        method: 'POST',
        path: '/mcp',
        headers: HEADERS,
        body: BODY,
        ...(!isKoa && { verify: listed }),
      }],
    });
  },
};

export default scenario;
