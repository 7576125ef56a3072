/**
 * The MCP servers behind `/mcp`: built from the prepared tools (lib/mcp/tools/registry.ts)
 * and kept in a pool, so no request pays for a server, its tools or its validators.
 *
 * Why a pool and not one shared server: an SDK `Protocol` serves one transport at a time
 * (`connect()` refuses a second), and one transport shared by concurrent requests would mix
 * up their JSON-RPC ids, which every client numbers from 0 (GHSA-345p-7cg4-v4c7). So each
 * request gets its own transport, connected to a server that serves no other request until
 * it is closed and returned. Servers are made on demand and at most `maxIdle` are kept.
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import type { Logger } from '../contracts.ts';
import type { BearerAuth } from '../resource/bearer.ts';
import { mayCall } from './tools/access.ts';
import type { PreparedTool, ToolRegistry } from './tools/registry.ts';
import { toolError, toolFailure, toolResult } from './tools/result.ts';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
export function callerOf(extra: Pick<Extra, 'authInfo'>): BearerAuth | undefined {
  return extra.authInfo?.extra?.caller as BearerAuth | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function runner(prepared: PreparedTool, logger: Logger) {
  const { tool } = prepared;
  return async function runTool(args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
    const caller = callerOf(extra);
    // the HTTP layer answered 401/403 already; this is the second lock on the same door
    if (!mayCall(tool, caller)) return toolError(`the ${tool.name} tool is not available to this caller`);
    try {
      const data: unknown = await tool.handler(args, caller as BearerAuth);
      if (!isRecord(data)) throw new TypeError('the handler did not return a JSON object');
      return toolResult(data);
    } catch (error) {
      return toolFailure(error, tool.name, logger);
    }
  };
}

/** One server with every tool registered and `tools/list` answering per caller. */
export function buildServer({ info, instructions, registry, logger }: ServerSpec): McpServer {
  const server = new McpServer(
    { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) },
    { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) },
  );
  for (const prepared of registry.tools) {
    const { tool, schema } = prepared;
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: schema,
      annotations: prepared.descriptor.annotations,
    }, runner(prepared, logger));
  }
  // replaces McpServer's own list, which converts every schema on every call and shows every tool
  server.server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => ({ tools: registry.list(callerOf(extra)) }));
  // stateless: the list never changes during a connection, and no notification could be delivered
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

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

  acquire(): McpServer {
    return this.#idle.pop() ?? this.#build();
  }

  /** Takes back a server whose transport is closed; one still connected is dropped. */
  release(server: McpServer): void {
    if (!server.isConnected() && this.#idle.length < this.#maxIdle) this.#idle.push(server);
  }
}
