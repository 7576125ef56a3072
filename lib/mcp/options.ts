/**
 * `options.mcp`: what it accepts, its defaults, and the one place they are checked. A bad
 * host tool fails here, at start-up, naming the tool and the fix.
 *
 * @module
 */
import { ConfigurationError } from '../errors.ts';
import { MAX_PAGE_SIZE } from '../member-data/pagination.ts';
import { findScope } from '../scopes/catalogue.ts';
import { MEMBER_TOOL_NAMES } from './tools/member.ts';
import { PUBLIC_TOOL_NAMES } from './tools/public.ts';
import type { AnyMcpTool, McpToolAudience } from './tools/types.ts';

export interface McpOptions {
  /**
   * The host's own tools, beside the library's public and member tools. Each names the
   * audience and scopes it needs; `tools/list` shows a caller only what it may call.
   * @default []
   */
  tools?: readonly AnyMcpTool[];
  /**
   * The school whose public catalogue the public tools read when the caller names no `site`
   * and has no token naming one. Without it, such a call is a tool error asking for `site`.
   * @default undefined
   */
  defaultSite?: string;
  /**
   * The cap on `first` of the list tools; larger values are refused by the input schema.
   * From 1 to 1000.
   * @default 100
   */
  maxPageSize?: number;
  /**
   * The largest request body in bytes; larger bodies get 413 without being read.
   * From 1 KiB to 4 MiB.
   * @default 262144 (256 KiB)
   */
  maxBodyBytes?: number;
  /**
   * The most idle MCP servers kept for reuse; a request finding none builds one. From 1 to 1024.
   * @default 16
   */
  maxIdleServers?: number;
  /**
   * Answer CORS preflights and send `Access-Control-Allow-Origin: *`, for browser-based MCP
   * clients. Tokens travel in the `Authorization` header, never in cookies.
   * @default true
   */
  cors?: boolean;
  /**
   * `serverInfo` of the `initialize` answer.
   * @default { name: 'platform-auth', title: 'Course platform', version: '1.0.0' }
   */
  serverInfo?: { name: string; version: string; title?: string };
  /**
   * `instructions` of the `initialize` answer, shown to the model.
   * @default a short description of the public, member and operator tools
   */
  instructions?: string;
}

export interface ResolvedMcpOptions {
  readonly enabled: boolean;
  readonly tools: readonly AnyMcpTool[];
  readonly defaultSite: string | undefined;
  readonly maxPageSize: number;
  readonly maxBodyBytes: number;
  readonly maxIdleServers: number;
  readonly cors: boolean;
  readonly serverInfo: Readonly<{ name: string; version: string; title?: string }>;
  readonly instructions: string;
}

const DEFAULT_INSTRUCTIONS = 'Tools of an online course platform. Without a token: search a school\'s public course '
  + 'catalogue and read course outlines. With a member token (account:read): your own courses with progress and '
  + 'expiry, where you left off, your orders and event registrations. Operator tools need an operator token.';

const NUMBERS = {
  maxPageSize: { min: 1, max: 1000, fallback: MAX_PAGE_SIZE },
  maxBodyBytes: { min: 1024, max: 4 * 1024 * 1024, fallback: 256 * 1024 },
  maxIdleServers: { min: 1, max: 1024, fallback: 16 },
} as const;

const KNOWN = new Set(['tools', 'defaultSite', 'maxPageSize', 'maxBodyBytes', 'maxIdleServers', 'cors', 'serverInfo', 'instructions']);
const RESERVED = new Set<string>([...PUBLIC_TOOL_NAMES, ...MEMBER_TOOL_NAMES]);
const AUDIENCES: readonly McpToolAudience[] = ['public', 'member', 'operator'];
// the MCP tool-name rule (SEP-986)
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function fail(message: string): never {
  throw new ConfigurationError(message);
}

function show(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function checkNumber(name: keyof typeof NUMBERS, value: unknown): number {
  const { min, max, fallback } = NUMBERS[name];
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    fail(`options.mcp.${name} must be a whole number from ${min} to ${max}; got ${show(value)}. Leave it out for the default, ${fallback}`);
  }
  return value as number;
}

function isZodSchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

function checkTool(tool: unknown, index: number, seen: Set<string>): AnyMcpTool {
  const at = `options.mcp.tools[${index}]`;
  if (tool === null || typeof tool !== 'object') fail(`${at} must be a tool object ({ name, description, audience, scopes, inputSchema, handler }); got ${show(tool)}`);
  const t = tool as Record<string, unknown>;
  if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) {
    fail(`${at}.name must be 1 to 128 letters, digits, "_", "-" or "."; got ${show(t.name)}`);
  }
  const where = `${at} (${t.name})`;
  if (RESERVED.has(t.name)) fail(`${where}: the name is one of the library's own tools (${[...RESERVED].join(', ')}); pick another`);
  if (seen.has(t.name)) fail(`${where}: another tool has the same name; tool names must be unique`);
  seen.add(t.name);
  if (typeof t.description !== 'string' || t.description.trim() === '') fail(`${where}.description must be a non-empty string telling the model what the tool does`);
  if (!AUDIENCES.includes(t.audience as McpToolAudience)) fail(`${where}.audience must be "public", "member" or "operator"; got ${show(t.audience)}`);
  const audience = t.audience as McpToolAudience;
  if (!Array.isArray(t.scopes) || t.scopes.some((s) => typeof s !== 'string')) fail(`${where}.scopes must be an array of scope names`);
  const scopes = t.scopes as string[];
  if (audience === 'public' && scopes.length > 0) {
    fail(`${where}: a public tool is called without a token, so it cannot require scopes; remove scopes or make it a member or operator tool`);
  }
  if (audience !== 'public') {
    if (scopes.length === 0) fail(`${where}.scopes must name at least one scope: it is what the 403 insufficient_scope step-up asks the client for`);
    for (const scope of scopes) {
      const definition = findScope(scope);
      if (!definition) fail(`${where}.scopes: ${scope} is not a scope of this server (see SCOPES)`);
      if (!definition.audiences.includes(audience)) {
        fail(`${where}.scopes: ${scope} cannot be held by ${audience} clients, so no caller could ever use the tool; use a ${audience} scope`);
      }
    }
  }
  const schema = t.inputSchema;
  const isShape = schema !== null && typeof schema === 'object' && !isZodSchema(schema)
    && Object.values(schema as object).every(isZodSchema);
  if (!isShape && !(isZodSchema(schema) && typeof (schema as { shape?: unknown }).shape === 'object')) {
    fail(`${where}.inputSchema must be a zod object schema (z.object({...})) or its shape ({ field: z.string() }); use {} for no arguments`);
  }
  if (typeof t.handler !== 'function') fail(`${where}.handler must be a function (args, caller) => result`);
  return tool as AnyMcpTool;
}

/** Defaults and checks `options.mcp`; throws ConfigurationError naming the option and the fix. */
export function resolveMcpOptions(input: McpOptions | false | undefined): ResolvedMcpOptions {
  if (input !== undefined && input !== false && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    fail(`options.mcp must be an object of MCP settings, or false to turn /mcp off; got ${show(input)}`);
  }
  const given = input || {};
  for (const key of Object.keys(given)) {
    if (!KNOWN.has(key)) fail(`options.mcp.${key} is not a known option; use one of ${[...KNOWN].join(', ')}`);
  }
  if (given.tools !== undefined && !Array.isArray(given.tools)) fail(`options.mcp.tools must be an array of tools; got ${show(given.tools)}`);
  const seen = new Set<string>();
  const tools = (given.tools ?? []).map((tool, i) => checkTool(tool, i, seen));
  if (given.defaultSite !== undefined && (typeof given.defaultSite !== 'string' || given.defaultSite === '')) {
    fail(`options.mcp.defaultSite must be a site id; got ${show(given.defaultSite)}`);
  }
  if (given.cors !== undefined && typeof given.cors !== 'boolean') fail(`options.mcp.cors must be true or false; got ${show(given.cors)}`);
  const info = given.serverInfo;
  if (info !== undefined && (info === null || typeof info.name !== 'string' || !info.name || typeof info.version !== 'string' || !info.version)) {
    fail(`options.mcp.serverInfo must be { name, version } with non-empty strings; got ${show(info)}`);
  }
  if (given.instructions !== undefined && typeof given.instructions !== 'string') {
    fail(`options.mcp.instructions must be a string; got ${show(given.instructions)}`);
  }
  return Object.freeze({
    enabled: input !== false,
    tools: Object.freeze(tools),
    defaultSite: given.defaultSite,
    maxPageSize: checkNumber('maxPageSize', given.maxPageSize),
    maxBodyBytes: checkNumber('maxBodyBytes', given.maxBodyBytes),
    maxIdleServers: checkNumber('maxIdleServers', given.maxIdleServers),
    cors: given.cors ?? true,
    serverInfo: Object.freeze({ ...(info ?? { name: 'platform-auth', title: 'Course platform', version: '1.0.0' }) }),
    instructions: given.instructions ?? DEFAULT_INSTRUCTIONS,
  });
}
