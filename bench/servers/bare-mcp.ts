/**
 * The `/mcp` baseline: the MCP SDK's default stateless pattern, mounted in Koa. For every
 * request it builds a new `McpServer`, registers the tools, creates a
 * `StreamableHTTPServerTransport` with `sessionIdGenerator: undefined` and
 * `enableJsonResponse: true`, connects them and hands the request over, then closes both
 * when the response closes: the SDK's `simpleStatelessStreamableHttp` example, with the
 * body parsed first as that example's `express.json()` does (here `@koa/bodyparser`).
 * Nothing is checked: no token, no audience, no scope.
 *
 * The tools are the library's own definitions (lib/mcp/tools/public.ts and member.ts:
 * same names, descriptions, zod input schemas and handlers) over the same member-data
 * service and the demo host's seeded data, registered with `McpServer.registerTool` and
 * listed by McpServer's own `tools/list` (which converts every schema on every call; ours
 * converts once). Two variants, one per scenario, each with the tool set the scenario's
 * caller sees from ours:
 * - `buildBareMcpPublic`: the public tools (`search_courses`, `get_course_outline`,
 *   `whoami`), answered anonymously, as ours lists them to a caller without a token;
 * - `buildBareMcpMember`: the public and the member tools, every call answered for Sam
 *   Student (`acc-student`) at `demo-school`, the member whose token ours checks.
 *
 * @module
 */
import { bodyParser } from '@koa/bodyparser';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Koa from 'koa';

import { createDemoMemberData } from '../../examples/host/member-data.ts';
import type { Logger } from '../../lib/index.ts';
import { MAX_PAGE_SIZE } from '../../lib/member-data/pagination.ts';
import { createMemberDataService } from '../../lib/member-data/service.ts';
import { memberTools } from '../../lib/mcp/tools/member.ts';
import { publicTools } from '../../lib/mcp/tools/public.ts';
import { toolFailure, toolResult } from '../../lib/mcp/tools/result.ts';
import type { AnyMcpTool } from '../../lib/mcp/tools/types.ts';
import { toScopes } from '../../lib/resource/bearer.ts';
import type { BearerAuth } from '../../lib/resource/bearer.ts';
import type { BuildServer, ServerTarget } from '../lib/types.ts';

const MCP_PATH = '/mcp';
const READ_ONLY = Object.freeze({ readOnlyHint: true, openWorldHint: false });
const quiet: Logger = { info() {}, warn() {}, error: (m) => console.error(m) };

/** The baseline of `mcp-tools-list`: the public tools, anonymous. */
export const bareMcpPublic: ServerTarget = {
  id: 'mcp-sdk',
  label: 'MCP SDK, server per request (no auth)',
  module: import.meta.url,
  export: 'buildBareMcpPublic',
};

/** The baseline of `mcp-member-call`: public and member tools, answered for the bench member. */
export const bareMcpMember: ServerTarget = {
  id: 'mcp-sdk',
  label: 'MCP SDK, server per request (no auth)',
  module: import.meta.url,
  export: 'buildBareMcpMember',
};

/** What ours' member tools are given after checking a token of the demo member client. */
const BENCH_CALLER: BearerAuth = Object.freeze({
  sub: 'acc-student',
  clientId: 'demo-member-app',
  audience: 'member',
  site: 'demo-school',
  roles: ['student'],
  scopes: toScopes(['openid', 'profile', 'email', 'account:read']),
  expiresAt: Math.floor(Date.now() / 1000) + 365 * 24 * 3600,
  grantId: 'bench',
});

function register(server: McpServer, tool: AnyMcpTool, caller: BearerAuth | undefined): void {
  server.registerTool(tool.name, {
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations ?? READ_ONLY,
  }, async (args: Record<string, unknown>): Promise<CallToolResult> => {
    try {
      return toolResult(await tool.handler(args, caller));
    } catch (error) {
      return toolFailure(error, tool.name, quiet);
    }
  });
}

function buildBareMcp(member: boolean): BuildServer {
  return async () => {
    const service = createMemberDataService(createDemoMemberData(), { maxPageSize: MAX_PAGE_SIZE });
    // the definitions only; servers, registrations and validators are made per request
    const tools = [
      ...publicTools({ catalogue: service.catalogue, defaultSite: 'demo-school', maxPageSize: MAX_PAGE_SIZE }),
      ...(member ? memberTools({ service, maxPageSize: MAX_PAGE_SIZE }) : []),
    ];
    const caller = member ? BENCH_CALLER : undefined;

    function getServer(): McpServer {
      const server = new McpServer({ name: 'bare-mcp-sdk', version: '1.0.0' });
      for (const tool of tools) register(server, tool, caller);
      return server;
    }

    const app = new Koa();
    app.use(bodyParser());
    app.use(async function mcp(ctx, next) {
      if (ctx.path !== MCP_PATH) return next();
      if (ctx.method !== 'POST') {
        ctx.status = 405;
        ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };
        return;
      }
      // the transport writes the Node response itself
      ctx.respond = false;
      const server = getServer();
      try {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        // the SDK's example listens after handleRequest; by then a JSON answer may have closed already
        ctx.res.once('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
      } catch (error) {
        console.error('bare MCP: error handling a request', error);
        if (!ctx.res.headersSent) {
          ctx.res.writeHead(500, { 'content-type': 'application/json' });
          ctx.res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
        }
      }
    });
    return { listener: app.callback(), close: async () => {} };
  };
}

export const buildBareMcpPublic: BuildServer = buildBareMcp(false);
export const buildBareMcpMember: BuildServer = buildBareMcp(true);
