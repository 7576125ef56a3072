/**
 * The baseline of the modern `/mcp` scenarios (MCP 2026-07-28: `mcp-tools-list`,
 * `mcp-member-call`): the v2 server SDK's own stateless handler as its documentation shows
 * it, mounted in Koa. `createMcpHandler(factory, { legacy: 'reject' })` where the factory
 * builds a new `McpServer` and registers the tools: the handler calls it once per request,
 * so every request pays for a server, its registrations and validators (the SDK's way; ours
 * keeps ready servers in a pool). `legacy: 'reject'` makes it modern-only, like ours' own
 * modern handler; the scenarios send 2026-07-28 requests only, which both postures serve
 * alike. Nothing is checked: no token, no audience, no scope, no Origin.
 *
 * Mounting: the SDK documents `toNodeHandler(handler)` from `@modelcontextprotocol/node` for
 * Node frameworks, called with the parsed body behind a body parser; that package is not a
 * dependency here, so `nodeHandler` below does what it does (a web `Request` with every
 * header, the parsed body re-serialised as its body and passed as `parsedBody`, then the
 * `Response`'s status, headers and body chunks written to the Node response). The body is
 * parsed first by `@koa/bodyparser`, as the v1 baseline does.
 *
 * The tools are the library's own definitions (bench/servers/mcp-tools.ts), registered with
 * the v2 `McpServer.registerTool` (raw shapes wrapped in `z.object`, as the v2 SDK asks)
 * and listed by McpServer's own `tools/list`. Two variants, one per scenario:
 * - `buildBareMcpV2Public`: the public tools, answered anonymously;
 * - `buildBareMcpV2Member`: the public and the member tools, every call answered for Sam
 *   Student (`acc-student`) at `demo-school`, the member whose token ours checks.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { bodyParser } from '@koa/bodyparser';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, McpHttpHandler, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import Koa from 'koa';
import { z } from 'zod';

import { toolFailure, toolResult } from '../../lib/mcp/tools/result.ts';
import type { AnyMcpTool } from '../../lib/mcp/tools/types.ts';
import type { BearerAuth } from '../../lib/resource/bearer.ts';
import type { BuildServer, ServerTarget } from '../lib/types.ts';
import { BENCH_CALLER, benchTools, MCP_PATH, quiet, READ_ONLY, runFor } from './mcp-tools.ts';

const LABEL = 'MCP SDK v2 createMcpHandler, server per request (no auth)';

/** The baseline of `mcp-tools-list`: the public tools, anonymous. */
export const bareMcpV2Public: ServerTarget = {
  id: 'mcp-sdk-v2',
  label: LABEL,
  module: import.meta.url,
  export: 'buildBareMcpV2Public',
};

/** The baseline of `mcp-member-call`: public and member tools, answered for the bench member. */
export const bareMcpV2Member: ServerTarget = {
  id: 'mcp-sdk-v2',
  label: LABEL,
  module: import.meta.url,
  export: 'buildBareMcpV2Member',
};

function isStandardSchema(value: unknown): value is StandardSchemaWithJSON {
  return value !== null && typeof value === 'object' && '~standard' in value;
}

/** A tool's schema as the v2 SDK takes it: a Standard Schema, the raw shapes wrapped in `z.object`. */
function schemaOf(tool: AnyMcpTool): StandardSchemaWithJSON {
  const input = tool.inputSchema;
  return isStandardSchema(input) ? input : z.object(input as z.ZodRawShape);
}

function register(server: McpServer, tool: AnyMcpTool, caller: BearerAuth | undefined): void {
  const run = runFor(tool, caller);
  server.registerTool(tool.name, {
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: schemaOf(tool),
    annotations: tool.annotations ?? READ_ONLY,
  }, async (args: unknown): Promise<CallToolResult> => {
    try {
      return toolResult(await run(args));
    } catch (error) {
      return toolFailure(error, tool.name, quiet);
    }
  });
}

/** What `toNodeHandler(handler)` of `@modelcontextprotocol/node` does, for a body already parsed. */
async function nodeHandler(handler: McpHttpHandler, req: IncomingMessage, res: ServerResponse, parsedBody: unknown): Promise<void> {
  const abort = new AbortController();
  let finished = false;
  res.on('close', () => {
    if (!finished) abort.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  // the parsed body, serialised again: the stream is drained, and the Request should still carry it
  const body = method === 'GET' || method === 'HEAD' || parsedBody === undefined ? undefined : JSON.stringify(parsedBody);
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  if (body === undefined) headers.delete('content-length');
  else headers.set('content-length', String(Buffer.byteLength(body)));
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method, headers, signal: abort.signal, ...(body !== undefined && { body }),
  });
  let response: Response;
  try {
    response = await handler.fetch(request, parsedBody === undefined ? {} : { parsedBody });
  } catch (error) {
    console.error('bare MCP v2: error handling a request', error);
    response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }, { status: 500 });
  }
  const out: Record<string, string> = {};
  for (const [name, value] of response.headers) out[name] = value;
  res.writeHead(response.status, out);
  if (response.body) {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done && !abort.signal.aborted; read = await reader.read()) res.write(read.value);
  }
  finished = true;
  res.end();
}

function buildBareMcpV2(member: boolean): BuildServer {
  return async () => {
    // the definitions only; servers, registrations and validators are made per request
    const tools = benchTools(member);
    const caller = member ? BENCH_CALLER : undefined;

    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'bare-mcp-sdk-v2', version: '1.0.0' });
      for (const tool of tools) register(server, tool, caller);
      return server;
    }, { legacy: 'reject', onerror: (error) => console.error(`bare MCP v2: ${error.message}`) });

    const app = new Koa();
    app.use(bodyParser());
    app.use(async function mcp(ctx, next) {
      if (ctx.path !== MCP_PATH) return next();
      // the handler writes the Node response itself
      ctx.respond = false;
      await nodeHandler(handler, ctx.req, ctx.res, ctx.request.body);
    });
    return { listener: app.callback(), close: () => handler.close() };
  };
}

export const buildBareMcpV2Public: BuildServer = buildBareMcpV2(false);
export const buildBareMcpV2Member: BuildServer = buildBareMcpV2(true);
