/**
 * The tools of one `/mcp` endpoint, prepared once: zod object schemas (the validators), the
 * JSON Schemas `tools/list` answers (the SDK would convert on every list), and the list
 * filtered by who may call.
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { z } from 'zod';

import { ConfigurationError } from '../../errors.ts';
import type { BearerAuth } from '../../resource/bearer.ts';
import { mayCall } from './access.ts';
import type { AnyMcpTool } from './types.ts';

export interface PreparedTool {
  readonly tool: AnyMcpTool;
  /** the validator: the tool's schema as a zod object */
  readonly schema: z.AnyZodObject;
  /** its `tools/list` entry */
  readonly descriptor: Tool;
}

export interface ToolRegistry {
  readonly tools: readonly PreparedTool[];
  get(name: string): PreparedTool | undefined;
  /** the `tools/list` entries `caller` may call, in registration order */
  list(caller: BearerAuth | undefined): Tool[];
}

const READ_ONLY = Object.freeze({ readOnlyHint: true, openWorldHint: false });

function toObjectSchema(input: AnyMcpTool['inputSchema']): z.AnyZodObject {
  return input instanceof z.ZodObject ? input : z.object(input);
}

function prepare(tool: AnyMcpTool): PreparedTool {
  const schema = toObjectSchema(tool.inputSchema);
  // the options McpServer's own tools/list uses, so the answer is the same, computed once
  const inputSchema = toJsonSchemaCompat(schema, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'];
  const descriptor: Tool = {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema,
    annotations: tool.annotations ?? READ_ONLY,
  };
  return Object.freeze({ tool, schema, descriptor: Object.freeze(descriptor) });
}

export function createToolRegistry(tools: readonly AnyMcpTool[]): ToolRegistry {
  const byName = new Map<string, PreparedTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) {
      throw new ConfigurationError(`options.mcp.tools: a tool named ${JSON.stringify(tool.name)} is already registered (the library's own tools take their names first); rename it`);
    }
    byName.set(tool.name, prepare(tool));
  }
  const prepared = Object.freeze([...byName.values()]);
  const publicOnly = prepared.filter((p) => p.tool.audience === 'public').map((p) => p.descriptor);

  return Object.freeze({
    tools: prepared,
    get: (name: string) => byName.get(name),
    list(caller: BearerAuth | undefined): Tool[] {
      if (!caller) return publicOnly;
      return prepared.filter((p) => mayCall(p.tool, caller)).map((p) => p.descriptor);
    },
  });
}
