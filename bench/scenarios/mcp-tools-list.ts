/**
 * `/mcp` `tools/list`, anonymous: one stateless JSON-RPC POST answered as JSON (no session,
 * no `initialize` first). Two scenarios, one per revision ours serves:
 *
 * - `mcp-tools-list`: MCP 2026-07-28, the per-request `_meta` envelope and the
 *   `MCP-Protocol-Version`/`Mcp-Method` headers. Ours answers through the v2 SDK's
 *   `createMcpHandler` from its pool of ready servers with the tool list prepared once
 *   (lib/mcp/server.ts); the baseline is the v2 SDK's own stateless handler, building a
 *   server and its tools per request (bench/servers/bare-mcp-v2.ts).
 * - `mcp-tools-list-legacy` (bench/scenarios/mcp-tools-list-legacy.ts): MCP 2025-11-25, no
 *   envelope. Ours answers on the v2 SDK's Streamable HTTP transport from a pooled server;
 *   the baseline is the v1 SDK's stateless example, as when the ratio was first measured
 *   (bench/servers/bare-mcp.ts).
 *
 * Both list the same public tools; bare Koa is the ceiling. No request carries a token, so no
 * request reaches storage: each runs once, not per adapter (the member call is the one that
 * checks a token).
 */
import { MCP_REVISION, mcpCall, probeMcp } from '../load/mcp.ts';
import type { McpRevision } from '../load/mcp.ts';
import { httpWorkload } from '../load/autocannon.ts';
import type { Scenario, ServerTarget } from '../lib/types.ts';
import { bareMcpPublic } from '../servers/bare-mcp.ts';
import { bareMcpV2Public } from '../servers/bare-mcp-v2.ts';
import { koaHello } from '../servers/koa-hello.ts';
import { ours } from '../servers/ours.ts';

/** the three public tools, and nothing a member or operator could see */
function listed(body: string): boolean {
  return body.includes('"result"') && !body.includes('"error"')
    && ['search_courses', 'get_course_outline', 'whoami'].every((name) => body.includes(`"name":"${name}"`))
    && !body.includes('"list_my_courses"');
}

const BASELINE: Record<McpRevision, { target: ServerTarget; what: string }> = {
  modern: {
    target: bareMcpV2Public,
    what: 'the v2 SDK\'s own stateless handler (createMcpHandler(() => new McpServer + tools), legacy: \'reject\'; a server '
      + 'built per request by the factory) in Koa behind @koa/bodyparser, mounted as @modelcontextprotocol/node\'s toNodeHandler does',
  },
  legacy: {
    target: bareMcpPublic,
    what: 'the v1 SDK\'s stateless example (new McpServer + tools + StreamableHTTPServerTransport per request, '
      + 'enableJsonResponse) in Koa',
  },
};

export function toolsListScenario(revision: McpRevision): Scenario {
  const call = mcpCall(revision, 'tools/list');
  const { target: baseline, what } = BASELINE[revision];
  const version = MCP_REVISION[revision];
  const modern = revision === 'modern';
  return {
    id: modern ? 'mcp-tools-list' : 'mcp-tools-list-legacy',
    title: `/mcp tools/list (anonymous, MCP ${version})`,
    unit: 'req/s',
    order: modern ? 75 : 76,
    ours,
    baselines: [baseline, koaHello],
    // anonymous: no token to look up, nothing stored or read per request
    usesStorage: false,
    targets: [{ kind: 'ratio', min: 1.5, against: baseline.id }],
    method: `POST /mcp {"method":"tools/list"${modern ? ',"params":{"_meta":{protocolVersion, clientCapabilities}}' : ''}} without a token `
      + `(Accept: application/json, text/event-stream; MCP-Protocol-Version ${version}${modern ? '; Mcp-Method: tools/list' : ''}), `
      + `stateless JSON answer. Baseline: ${what}, with the same public tools, no auth. Koa: "hello", body unread. `
      + 'Checked once before timing (200 with a result); errors: non-200, a JSON-RPC error, or a list other than the three public tools.',
    async prepare(server) {
      const isKoa = server.target.id === koaHello.id;
      if (!isKoa) await probeMcp(server.origin, server.target.id, call, listed);
      return httpWorkload({
        origin: server.origin,
        connection: () => [{
          method: 'POST',
          path: '/mcp',
          headers: call.headers,
          body: call.body,
          ...(!isKoa && { verify: listed }),
        }],
      });
    },
  };
}

export default toolsListScenario('modern');
