/**
 * The tools of one `/mcp` endpoint, prepared once: their validators and the JSON Schemas
 * `tools/list` answers (lib/mcp/tools/schema.ts), and the list filtered by who may call.
 *
 * With `advertise`, an anonymous caller also sees the member tools, marked as needing sign-in
 * (`_meta` and `securitySchemes`); calling one without a token answers the 401 challenge with
 * the tool's scopes, which is what starts an MCP host's OAuth flow.
 *
 * @module
 */
import type { StandardSchemaWithJSON, Tool } from '@modelcontextprotocol/server';

import type { BearerAuth } from '../../resource/bearer.ts';
import { scanParamHeaders } from '../param-headers.ts';
import type { ParamHeader } from '../param-headers.ts';
import { mayCall } from './access.ts';
import { prepareInputSchema } from './schema.ts';
import type { AnyMcpTool } from './types.ts';

export interface PreparedTool {
  readonly tool: AnyMcpTool;
  /** the validator the SDK runs before the handler */
  readonly schema: StandardSchemaWithJSON;
  /** its `tools/list` entry */
  readonly descriptor: Tool;
  /** the arguments a 2026-07-28 call mirrors in `Mcp-Param-*` headers (`x-mcp-header`) */
  readonly paramHeaders: readonly ParamHeader[];
}

export interface ToolRegistry {
  readonly tools: readonly PreparedTool[];
  get(name: string): PreparedTool | undefined;
  /** the `tools/list` entries for `caller`, in registration order */
  list(caller: BearerAuth | undefined): Tool[];
}

export interface RegistryOptions {
  /** show anonymous callers the member tools too, marked as needing sign-in */
  readonly advertiseMemberTools: boolean;
}

/** `_meta` key on a tool an anonymous caller sees but may call only once signed in. */
export const SIGN_IN_META_KEY = 'platform-auth/requiresSignIn';

function prepare(tool: AnyMcpTool): PreparedTool {
  const { validator, jsonSchema } = prepareInputSchema(`the MCP tool ${tool.name}`, tool.inputSchema);
  const descriptor: Tool = {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: jsonSchema,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
  return Object.freeze({ tool, schema: validator, descriptor: Object.freeze(descriptor), paramHeaders: scanParamHeaders(jsonSchema) });
}

/**
 * The entry an anonymous caller sees for a tool that needs sign-in. `securitySchemes` follows
 * the mixed-auth proposal for MCP tool metadata (SEP-1488, as OpenAI's Apps SDK reads it);
 * the MCP 2026-07-28 revision has no standard field for it, so the 401 challenge on a call
 * remains the normative signal.
 */
function signInEntry(prepared: PreparedTool): Tool {
  const { tool, descriptor } = prepared;
  const scopes = [...tool.scopes];
  return Object.freeze({
    ...descriptor,
    description: `${descriptor.description} (Sign-in required: ${scopes.join(' ')}.)`,
    securitySchemes: [{ type: 'oauth2', scopes }],
    _meta: { [SIGN_IN_META_KEY]: true, securitySchemes: [{ type: 'oauth2', scopes }] },
  } as Tool);
}

export function createToolRegistry(tools: readonly AnyMcpTool[], options: RegistryOptions = { advertiseMemberTools: false }): ToolRegistry {
  const byName = new Map<string, PreparedTool>();
  for (const tool of tools) byName.set(tool.name, prepare(tool));
  const prepared = Object.freeze([...byName.values()]);
  const anonymous = Object.freeze(prepared.flatMap((p) => {
    if (p.tool.audience === 'public') return [p.descriptor];
    return options.advertiseMemberTools && p.tool.audience === 'member' ? [signInEntry(p)] : [];
  }));

  return Object.freeze({
    tools: prepared,
    get: (name: string) => byName.get(name),
    list(caller: BearerAuth | undefined): Tool[] {
      if (!caller) return anonymous as Tool[];
      return prepared.filter((p) => mayCall(p.tool, caller)).map((p) => p.descriptor);
    },
  });
}
