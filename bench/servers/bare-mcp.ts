/**
 * The baseline of the legacy `/mcp` scenarios (MCP 2025-11-25: `mcp-tools-list-legacy`,
 * `mcp-member-call-legacy`): the v1 MCP SDK's (`@modelcontextprotocol/sdk`, a devDependency)
 * default stateless pattern, mounted in Koa. For every request it builds a new `McpServer`,
 * registers the tools, creates a `StreamableHTTPServerTransport` with
 * `sessionIdGenerator: undefined` and `enableJsonResponse: true`, connects them and hands the
 * request over, then closes both when the response closes: the v1 SDK's
 * `simpleStatelessStreamableHttp` example, with the body parsed first as that example's
 * `express.json()` does (here `@koa/bodyparser`). Nothing is checked: no token, no audience,
 * no scope. It is the baseline the legacy ratios were first measured against, kept so that
 * "the legacy path keeps its ratio" compares like with like (the modern scenarios have the
 * v2 SDK's own handler as theirs: bench/servers/bare-mcp-v2.ts).
 *
 * The tools are the library's own definitions (bench/servers/mcp-tools.ts), registered with
 * the v1 `McpServer.registerTool` (which takes the zod 4 raw shapes the library's tools use)
 * and listed by McpServer's own `tools/list` (which converts every schema on every call; ours
 * converts once). Two variants, one per scenario, each with the tool set the scenario's caller
 * sees from ours:
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
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Koa from 'koa';

import { toolFailure, toolResult } from '../../lib/mcp/tools/result.ts';
import type { AnyMcpTool } from '../../lib/mcp/tools/types.ts';
import type { BearerAuth } from '../../lib/resource/bearer.ts';
import type { BuildServer, ServerTarget } from '../lib/types.ts';
import { BENCH_CALLER, benchTools, MCP_PATH, quiet, READ_ONLY, runFor } from './mcp-tools.ts';

const LABEL = 'MCP SDK v1, server per request (no auth)';

/** The baseline of `mcp-tools-list-legacy`: the public tools, anonymous. */
export const bareMcpPublic: ServerTarget = {
  id: 'mcp-sdk-v1',
  label: LABEL,
  module: import.meta.url,
  export: 'buildBareMcpPublic',
};

/** The baseline of `mcp-member-call-legacy`: public and member tools, answered for the bench member. */
export const bareMcpMember: ServerTarget = {
  id: 'mcp-sdk-v1',
  label: LABEL,
  module: import.meta.url,
  export: 'buildBareMcpMember',
};

function register(server: McpServer, tool: AnyMcpTool, caller: BearerAuth | undefined): void {
  const run = runFor(tool, caller);
  server.registerTool(tool.name, {
    title: tool.title,
    description: tool.description,
    // the library's tools are raw shapes of zod 4 schemas, which the v1 SDK takes (its own zod-compat types)
    inputSchema: tool.inputSchema as ZodRawShapeCompat,
    annotations: tool.annotations ?? READ_ONLY,
  }, async (args: Record<string, unknown>): Promise<CallToolResult> => {
    try {
      // the library's result is the v2 SDK's CallToolResult: the same JSON
      return toolResult(await run(args)) as CallToolResult;
    } catch (error) {
      return toolFailure(error, tool.name, quiet) as CallToolResult;
    }
  });
}

function buildBareMcp(member: boolean): BuildServer {
  return async () => {
    // the definitions only; servers, registrations and validators are made per request
    const tools = benchTools(member);
    const caller = member ? BENCH_CALLER : undefined;

    function getServer(): McpServer {
      const server = new McpServer({ name: 'bare-mcp-sdk-v1', version: '1.0.0' });
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
        console.error('bare MCP v1: error handling a request', error);
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
