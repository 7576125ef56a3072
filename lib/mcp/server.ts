/**
 * The MCP servers behind `/mcp` (the official v2 server SDK, `@modelcontextprotocol/server`):
 * built from the prepared tools (lib/mcp/tools/registry.ts) and kept in pools, so no request
 * pays for a server, its tools or its validators.
 *
 * Why pools and not one shared server: an SDK server serves one exchange at a time (the
 * handler refuses an instance that is still connected), and a transport shared by concurrent
 * requests would mix up their JSON-RPC ids, which every client numbers from 0. Why one pool
 * per protocol era: the negotiated protocol version is state of the instance, and the SDK
 * validates a message against the era of the instance serving it (2026-07-28 vs the 2025
 * revisions, which share one codec).
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';

import { MCP_REVISIONS } from '../constants.ts';
import type { Logger } from '../contracts.ts';
import { REQUEST_ID_HEADER } from '../http/request-id.ts';
import type { BearerAuth } from '../resource/bearer.ts';
import { isRecord } from './http.ts';
import { mayCall } from './tools/access.ts';
import type { PreparedTool, ToolRegistry } from './tools/registry.ts';
import { toolError, toolFailure, toolResult } from './tools/result.ts';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
}

export interface ServerSpec {
  readonly info: ServerInfo;
  readonly instructions: string | undefined;
  readonly registry: ToolRegistry;
  readonly logger: Logger;
}

/** The caller the HTTP layer verified, carried to the handlers in the SDK's `authInfo`. */
export function callerOf(ctx: Pick<ServerContext, 'http'>): BearerAuth | undefined {
  return ctx.http?.authInfo?.extra?.caller as BearerAuth | undefined;
}

function runner(prepared: PreparedTool, logger: Logger) {
  const { tool } = prepared;
  return async function runTool(args: unknown, ctx: ServerContext): Promise<CallToolResult> {
    const caller = callerOf(ctx);
    // the HTTP layer answered 401/403 already; this is the second lock on the same door
    if (!mayCall(tool, caller)) return toolError(`the ${tool.name} tool is not available to this caller`);
    // the SDK's per-request signal: aborted when the exchange's server closes (the client
    // left, or past the answer bound) or the request is cancelled
    const { signal } = ctx.mcpReq;
    try {
      const data: unknown = await tool.handler(args as never, caller as never, { signal });
      if (!isRecord(data)) throw new TypeError('the handler did not return a JSON object');
      return toolResult(data);
    } catch (error) {
      // a handler that stopped because its call was aborted did what it should: the SDK
      // discards this answer, and the abort was logged where it happened (the bound), if at all
      if (signal.aborted) return toolError(ABORTED);
      // the request's id, which lib/mcp/http.ts put on the SDK's request for this line
      return toolFailure(error, tool.name, logger, ctx.http?.req?.headers.get(REQUEST_ID_HEADER) ?? undefined);
    }
  };
}

/** The answer to a call whose signal aborted; never sent (the SDK drops it), so never seen. */
const ABORTED = 'the call was aborted';

/** One server with every tool registered and `tools/list` answering per caller. */
export function buildServer({ info, instructions, registry, logger }: ServerSpec): McpServer {
  const server = new McpServer(
    { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) },
    {
      // stateless: the list never changes during an exchange, and no notification could be delivered
      capabilities: { tools: { listChanged: false } },
      ...(instructions ? { instructions } : {}),
      // the 2025 revisions this endpoint documents and tests, not the SDK's list (which adds
      // 2024-11-05 and 2024-10-07): an `MCP-Protocol-Version` naming another is refused with
      // 400, and `initialize` asking for another is offered 2025-11-25. createMcpHandler adds
      // 2026-07-28 to the servers it serves.
      supportedProtocolVersions: [...MCP_REVISIONS.legacy],
    },
  );
  for (const prepared of registry.tools) {
    const { tool, schema } = prepared;
    server.registerTool(tool.name, {
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: tool.description,
      inputSchema: schema,
      annotations: prepared.descriptor.annotations,
    }, runner(prepared, logger) as never);
  }
  // replaces McpServer's own list, which converts every schema on every call and shows every tool
  server.server.setRequestHandler('tools/list', (_request, ctx) => ({ tools: registry.list(callerOf(ctx)) }));
  return server;
}

/**
 * Servers of one era, made on demand; at most `maxIdle` are kept. A server goes back to the
 * pool when its exchange closes (the SDK closes it after the response); one closed before it
 * ever connected is simply dropped.
 */
export class ServerPool {
  readonly #build: () => McpServer;
  readonly #maxIdle: number;
  readonly #idle: McpServer[] = [];

  constructor(build: () => McpServer, maxIdle: number) {
    this.#build = build;
    this.#maxIdle = maxIdle;
    // one ready at start-up: a bad tool definition fails here, not on the first request
    this.#idle.push(build());
  }

  /** A server for one exchange; `onRelease` runs when that exchange closes, before the server is reused. */
  acquire(onRelease?: () => void): McpServer {
    const server = this.#idle.pop() ?? this.#build();
    const previous = server.server.onclose;
    server.server.onclose = () => {
      server.server.onclose = previous;
      previous?.();
      onRelease?.();
      if (this.#idle.length < this.#maxIdle) this.#idle.push(server);
    };
    return server;
  }
}
