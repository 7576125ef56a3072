/**
 * `/mcp` `tools/call` by a member: `list_my_courses` (first: 20) with a member token, one
 * stateless JSON-RPC POST answered as JSON. Ours verifies the token against storage, checks
 * the tool's audience and scope before the call, and runs it on a pooled server; the
 * baselines answer the same tool without auth, for the same member over the same data; bare
 * Koa is the ceiling. Two scenarios, one per revision ours serves:
 *
 * - `mcp-member-call`: MCP 2026-07-28, the per-request `_meta` envelope and the
 *   `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers, through the v2 SDK's
 *   `createMcpHandler` in ours; the baseline is the v2 SDK's own stateless handler building a
 *   server and its tools per request (bench/servers/bare-mcp-v2.ts).
 * - `mcp-member-call-legacy` (bench/scenarios/mcp-member-call-legacy.ts): MCP 2025-11-25, no
 *   envelope, through the v2 SDK's Streamable HTTP transport in ours; the baseline is the v1
 *   SDK's stateless example, as when the ratio was first measured (bench/servers/bare-mcp.ts).
 */
import { httpWorkload } from '../load/autocannon.ts';
import { MCP_REVISION, mcpCall, probeMcp } from '../load/mcp.ts';
import type { McpRevision } from '../load/mcp.ts';
import { bearerHeader, memberTokens } from '../lib/token-pool.ts';
import type { Scenario, ServerTarget } from '../lib/types.ts';
import { bareMcpMember } from '../servers/bare-mcp.ts';
import { bareMcpV2Member } from '../servers/bare-mcp-v2.ts';
import { koaHello } from '../servers/koa-hello.ts';
import { ours } from '../servers/ours.ts';

/** the seeded student's first 20 of 27 courses, as structured content, and no tool error */
function called(body: string): boolean {
  return body.includes('"result"') && body.includes('"structuredContent"') && body.includes('"totalCount":27')
    && !body.includes('"isError":true') && !body.includes('"error"');
}

const BASELINE: Record<McpRevision, { target: ServerTarget; what: string }> = {
  modern: {
    target: bareMcpV2Member,
    what: 'the v2 SDK\'s own stateless handler (createMcpHandler(() => new McpServer + tools), legacy: \'reject\'; a server '
      + 'built per request by the factory) in Koa behind @koa/bodyparser, mounted as @modelcontextprotocol/node\'s toNodeHandler does',
  },
  legacy: {
    target: bareMcpMember,
    what: 'the v1 SDK\'s stateless example (new McpServer + tools + StreamableHTTPServerTransport per request, '
      + 'enableJsonResponse) in Koa',
  },
};

export function memberCallScenario(revision: McpRevision): Scenario {
  const call = mcpCall(revision, 'tools/call', { name: 'list_my_courses', arguments: { first: 20 } });
  const { target: baseline, what } = BASELINE[revision];
  const version = MCP_REVISION[revision];
  const modern = revision === 'modern';
  return {
    id: modern ? 'mcp-member-call' : 'mcp-member-call-legacy',
    title: `/mcp tools/call list_my_courses (member token, MCP ${version})`,
    unit: 'req/s',
    order: modern ? 80 : 81,
    ours,
    baselines: [baseline, koaHello],
    // ours looks the token up in storage on every request
    usesStorage: true,
    targets: [{ kind: 'ratio', min: 1.5, against: baseline.id }],
    method: 'POST /mcp {"method":"tools/call","params":{"name":"list_my_courses","arguments":{"first":20}'
      + `${modern ? ',"_meta":{protocolVersion, clientCapabilities}' : ''}}} (Accept: application/json, text/event-stream; `
      + `MCP-Protocol-Version ${version}${modern ? '; Mcp-Method: tools/call; Mcp-Name: list_my_courses' : ''}), stateless JSON answer. `
      + 'Ours: Authorization: Bearer, 8 member access tokens (account:read) from real login flows, one per connection. '
      + `Baseline: ${what}, with the same public and member tools, answering for the same member, no auth. `
      + 'Koa: "hello", body unread. Checked once before timing (200 with a result); errors: non-200, a JSON-RPC or tool '
      + 'error, or an answer without the 20-of-27 page.',
    async prepare(server) {
      // ours, or ours with some options changed (bench/scenarios/mcp-member-call-diagnostics.ts)
      const isOurs = server.target.id === ours.id || server.target.id.startsWith(`${ours.id}-`);
      const isKoa = server.target.id === koaHello.id;
      const tokens = isOurs ? await memberTokens(server, 8) : undefined;
      if (!isKoa) {
        await probeMcp(server.origin, server.target.id, call, called, tokens ? bearerHeader(tokens, 0) : {});
      }
      return httpWorkload({
        origin: server.origin,
        connection: (index) => [{
          method: 'POST',
          path: '/mcp',
          headers: { ...call.headers, ...(tokens && bearerHeader(tokens, index)) },
          body: call.body,
          ...(!isKoa && { verify: called }),
        }],
      });
    },
  };
}

export default memberCallScenario('modern');
