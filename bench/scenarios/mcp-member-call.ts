/**
 * `/mcp` `tools/call` by a member: `list_my_courses` (first: 20) with a member token, one
 * stateless JSON-RPC POST answered as JSON. Ours verifies the token against storage, checks
 * the tool's audience and scope before the call, and runs it on a pooled server; the
 * baseline is the MCP SDK's default per-request set-up (a new McpServer, its tools and
 * transport for every request) answering the same tool, without auth, for the same member
 * over the same data (bench/servers/bare-mcp.ts); bare Koa is the ceiling.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import { httpWorkload } from '../load/autocannon.ts';
import { bearerSetup, memberTokens } from '../lib/token-pool.ts';
import type { Scenario } from '../lib/types.ts';
import { bareMcpMember } from '../servers/bare-mcp.ts';
import { koaHello } from '../servers/koa-hello.ts';
import { ours } from '../servers/ours.ts';

const BODY = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_courses', arguments: { first: 20 } },
});

const HEADERS = {
  'content-type': 'application/json',
  // the Streamable HTTP transport requires both
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
};

/** the seeded student's first 20 of 27 courses, as structured content, and no tool error */
function called(body: string): boolean {
  return body.includes('"structuredContent"') && body.includes('"totalCount":27')
    && !body.includes('"isError":true') && !body.includes('"error"');
}

const scenario: Scenario = {
  id: 'mcp-member-call',
  title: '/mcp tools/call list_my_courses (member token)',
  unit: 'req/s',
  order: 80,
  ours,
  baselines: [bareMcpMember, koaHello],
  // ours looks the token up in storage on every request
  usesStorage: true,
  targets: [{ kind: 'ratio', min: 1.5, against: bareMcpMember.id }],
  method: 'POST /mcp {"method":"tools/call","params":{"name":"list_my_courses","arguments":{"first":20}}} '
    + `(Accept: application/json, text/event-stream; MCP-Protocol-Version ${LATEST_PROTOCOL_VERSION}), stateless JSON answer. `
    + 'Ours: Authorization: Bearer, 8 member access tokens (account:read) from real login flows, round-robin. Baseline: the '
    + 'MCP SDK\'s stateless example (new McpServer + tools + StreamableHTTPServerTransport per request, enableJsonResponse) in '
    + 'Koa with the same public and member tools, answering for the same member, no auth. Koa: "hello", body unread. '
    + 'Errors: non-200, a JSON-RPC or tool error, or an answer without the 20-of-27 page.',
  async prepare(server) {
    const isOurs = server.target.id === ours.id;
    const isKoa = server.target.id === koaHello.id;
    const setup = isOurs ? bearerSetup(await memberTokens(server, 8)) : undefined;
    return httpWorkload({
      origin: server.origin,
      connection: () => [{
        method: 'POST',
        path: '/mcp',
        headers: HEADERS,
        body: BODY,
        ...(setup && { setup }),
        ...(!isKoa && { verify: called }),
      }],
    });
  },
};

export default scenario;
