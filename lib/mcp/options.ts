/**
 * `options.mcp`: what it accepts, its defaults, and the one place they are checked. A bad
 * host tool fails here, at start-up, naming the tool and the fix.
 *
 * @module
 */
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, didYouMean, fail, mustBe, show } from '../config/check.ts';
import type { IntegerRange } from '../config/check.ts';
import { MAX_PAGE_SIZE } from '../member-data/pagination.ts';
import { findScope, SCOPE_NAMES } from '../scopes/catalogue.ts';
import { ANSWER_TIMEOUT_SECONDS } from './answer-bound.ts';
import { paramHeaderProblem } from './param-headers.ts';
import { MEMBER_TOOL_NAMES } from './tools/member.ts';
import { PUBLIC_TOOL_NAMES } from './tools/public.ts';
import { prepareInputSchema } from './tools/schema.ts';
import type { AnyMcpTool, McpInputSchema, McpToolAudience } from './tools/types.ts';

export interface McpOptions {
  /**
   * The host's own tools, beside the library's public and member tools. Each names the
   * audience and scopes it needs; `tools/list` shows a caller only what it may call.
   * @default {@link MCP_DEFAULTS}.tools
   */
  tools?: readonly AnyMcpTool[];
  /**
   * The school whose public catalogue the public tools read when the caller names no `site`
   * and has no token naming one. Without it, such a call is a tool error asking for `site`.
   * @default none
   */
  defaultSite?: string;
  /**
   * The cap on `first` of the list tools; larger values are refused by the input schema.
   *
   * @default {@link MCP_RANGES}.maxPageSize.default
   */
  maxPageSize?: number;
  /**
   * The largest request body in bytes; larger bodies get 413 without being read.
   * @default {@link MCP_RANGES}.maxBodyBytes.default
   */
  maxBodyBytes?: number;
  /**
   * The most idle MCP servers kept for reuse; a request finding none builds one.
   * @default {@link MCP_RANGES}.maxIdleServers.default
   */
  maxIdleServers?: number;
  /**
   * How long, in seconds, a POST waits for the answer to start before `/mcp` gives up on it:
   * it answers 503 with `Retry-After` (JSON-RPC `-32603`), logs the tools called, and aborts
   * the calls still running (their handlers' `context.signal`). It bounds a host tool stuck on
   * a backend that does not answer. `false` sets no bound: a stuck tool then holds its
   * connection until the client gives up; not recommended.
   * @default {@link MCP_RANGES}.answerTimeout.default
   */
  answerTimeout?: number | false;
  /**
   * Answer CORS (preflights included) for the origins `allowedOrigins` allows, for browser-based
   * MCP clients. Tokens travel in the `Authorization` header, never in cookies.
   * @default {@link MCP_DEFAULTS}.cors
   */
  cors?: boolean;
  /**
   * The `Origin`s of web apps that may call `/mcp` from a browser, besides the origin of
   * `baseUrl` and pages on a loopback host (`http://localhost:*`, developer tools such as the
   * MCP Inspector), which are always allowed; or `"*"` for any. A request with another `Origin`
   * is refused with 403 (MCP transports must validate `Origin`, against DNS rebinding).
   * Requests without `Origin` (every non-browser client) are not affected. Tokens travel in the
   * `Authorization` header, never in cookies, so `"*"` exposes nothing a script could not
   * already send.
   * @default none besides the origin of `baseUrl` and loopback pages
   */
  allowedOrigins?: readonly string[] | '*';
  /**
   * The `Host` values `/mcp` answers besides the host of `baseUrl`, which it always answers;
   * any other is refused with 403 (DNS rebinding). Behind a proxy that rewrites `Host`, list
   * what it sends or set `options.proxy` so `X-Forwarded-Host` is read.
   * @default none: only the host of `baseUrl`
   */
  allowedHosts?: readonly string[];
  /**
   * Show anonymous callers the member tools too, marked as needing sign-in (`_meta` and
   * `securitySchemes`, and a note in the description). Calling one without a token answers the
   * 401 challenge with the tool's scopes, which makes MCP hosts that start OAuth only when
   * challenged offer sign-in. Off by default, as the interface says an anonymous caller sees
   * public tools only: a model that sees tools it cannot call may try them first.
   * @default {@link MCP_DEFAULTS}.advertiseMemberTools
   */
  advertiseMemberTools?: boolean;
  /**
   * `serverInfo` of the `initialize` answer.
   * @default {@link MCP_DEFAULTS}.serverInfo
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
  /** seconds; `false`: no bound */
  readonly answerTimeout: number | false;
  readonly cors: boolean;
  /** besides the origin of `baseUrl` and loopback pages; `undefined`: none listed */
  readonly allowedOrigins: readonly string[] | '*' | undefined;
  /** besides the host of `baseUrl`; `undefined`: none listed */
  readonly allowedHosts: readonly string[] | undefined;
  readonly advertiseMemberTools: boolean;
  readonly serverInfo: Readonly<{ name: string; version: string; title?: string }>;
  readonly instructions: string;
}

/**
 * What the settings of {@link McpOptions} are when left out (the one place these defaults
 * are written; the TSDoc above and the README point here).
 */
export const MCP_DEFAULTS = Object.freeze({
  tools: Object.freeze([]) as readonly AnyMcpTool[],
  cors: true,
  advertiseMemberTools: false,
  serverInfo: Object.freeze({ name: 'platform-auth', title: 'Course platform', version: '1.0.0' }),
  instructions: 'Tools of an online course platform. Without a token: search a school\'s public course '
  + 'catalogue and read course outlines. With a member token (account:read): your own courses with progress and '
  + 'expiry, where you left off, your orders and event registrations. Operator tools need an operator token.',
});

/** The whole-number settings: their bounds and the default each takes when left out. */
export const MCP_RANGES = Object.freeze({
  maxPageSize: { min: 1, max: 1000, default: MAX_PAGE_SIZE },
  maxBodyBytes: { min: 1024, max: 4 * 1024 * 1024, default: 256 * 1024 },
  maxIdleServers: { min: 1, max: 1024, default: 16 },
  answerTimeout: { min: 1, max: 600, default: ANSWER_TIMEOUT_SECONDS, unit: 'seconds' },
} as const satisfies Record<string, IntegerRange>);

const KNOWN = new Set([
  'tools', 'defaultSite', 'maxPageSize', 'maxBodyBytes', 'maxIdleServers', 'answerTimeout', 'cors', 'allowedOrigins', 'allowedHosts',
  'advertiseMemberTools', 'serverInfo', 'instructions',
]);
const RESERVED = new Set<string>([...PUBLIC_TOOL_NAMES, ...MEMBER_TOOL_NAMES]);
/** A host tool's members (McpTool): a misspelt one would be dropped without a word. */
const TOOL_KEYS = Object.keys({
  name: true, title: true, description: true, audience: true, scopes: true, inputSchema: true, annotations: true, handler: true,
} satisfies Record<keyof AnyMcpTool, true>);
/** MCP's tool annotations: `title`, and hints that are booleans. */
const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const SERVER_INFO_KEYS = ['name', 'version', 'title'] as const;
const AUDIENCES: readonly McpToolAudience[] = ['public', 'member', 'operator'];
// the MCP tool-name rule (SEP-986)
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function checkNumber(name: keyof typeof MCP_RANGES, value: unknown): number {
  return checkInteger(`options.mcp.${name}`, value, MCP_RANGES[name]);
}

/** Seconds in the range, the default when left out, or `false` for no bound. */
function checkAnswerTimeout(value: unknown): number | false {
  const range = MCP_RANGES.answerTimeout;
  if (value === undefined) return range.default;
  if (value === false) return false;
  if (Number.isSafeInteger(value) && (value as number) >= range.min && (value as number) <= range.max) return value as number;
  const seconds = typeof value === 'number' ? value / 1000 : NaN;
  // 30000 is most likely milliseconds
  const hint = Number.isSafeInteger(seconds) && seconds >= range.min && seconds <= range.max ? `; it counts seconds, not milliseconds: write ${seconds}` : '';
  fail(`options.mcp.answerTimeout must be a whole number of seconds from ${range.min} to ${range.max}, or false for no bound; got ${show(value)}${hint}. `
    + `Leave it out for the default, ${range.default} (false is not recommended: a stuck tool then holds its connection until the client gives up)`);
}

function checkTool(tool: unknown, index: number, seen: Set<string>): AnyMcpTool {
  const at = `options.mcp.tools[${index}]`;
  if (tool === null || typeof tool !== 'object') mustBe(at, 'a tool object ({ name, description, audience, scopes, inputSchema, handler })', tool);
  const t = tool as Record<string, unknown>;
  if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) {
    mustBe(`${at}.name`, '1 to 128 letters, digits, "_", "-" or "."', t.name);
  }
  const where = `${at} (${t.name})`;
  checkKnownKeys(where, t, TOOL_KEYS, 'tool member');
  if (t.title !== undefined && (typeof t.title !== 'string' || t.title.trim() === '')) mustBe(`${where}.title`, 'a non-empty string', t.title);
  checkAnnotations(`${where}.annotations`, t.annotations);
  if (RESERVED.has(t.name)) fail(`${where}: the name is one of the library's own tools (${[...RESERVED].join(', ')}); pick another`);
  if (seen.has(t.name)) fail(`${where}: another tool has the same name; tool names must be unique`);
  seen.add(t.name);
  if (typeof t.description !== 'string' || t.description.trim() === '') fail(`${where}.description must be a non-empty string telling the model what the tool does`);
  if (!AUDIENCES.includes(t.audience as McpToolAudience)) mustBe(`${where}.audience`, '"public", "member" or "operator"', t.audience);
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
      if (!definition) fail(`${where}.scopes: ${scope} is not a scope of this server (see SCOPES)${didYouMean(scope, SCOPE_NAMES)}`);
      if (!definition.audiences.includes(audience)) {
        fail(`${where}.scopes: ${scope} cannot be held by ${audience} clients, so no caller could ever use the tool; use a ${audience} scope`);
      }
    }
  }
  // the SDK must be able to validate it and describe it as JSON Schema (lib/mcp/tools/schema.ts)
  const { jsonSchema } = prepareInputSchema(where, t.inputSchema as McpInputSchema);
  // conforming clients leave out a tool whose header declarations break the spec's rules: it
  // would be served to no one, and nothing would say why (MCP 2026-07-28, x-mcp-header)
  const headers = paramHeaderProblem(jsonSchema);
  if (headers) fail(`${where}.inputSchema: ${headers}; MCP clients leave such a tool out of tools/list`);
  if (typeof t.handler !== 'function') fail(`${where}.handler must be a function (args, caller, context) => result`);
  return tool as AnyMcpTool;
}

/** What the tool tells clients about itself (MCP `ToolAnnotations`), passed to `tools/list` as given. */
function checkAnnotations(path: string, value: unknown): void {
  if (value === undefined) return;
  const given = checkObject(path, value, 'an object of hints like { readOnlyHint: false, destructiveHint: true }')!;
  checkKnownKeys(path, given, ['title', ...ANNOTATION_HINTS], 'annotation');
  for (const hint of ANNOTATION_HINTS) checkBoolean(`${path}.${hint}`, given[hint]);
  if (given.title !== undefined && typeof given.title !== 'string') mustBe(`${path}.title`, 'a string', given.title);
}

function checkAllowedOrigins(value: unknown): readonly string[] | '*' | undefined {
  const path = 'options.mcp.allowedOrigins';
  if (value === undefined || value === '*') return value;
  if (!Array.isArray(value)) mustBe(path, 'an array of origins ("https://app.example.com") or "*"', value);
  return Object.freeze(value.map((origin: unknown, i: number) => {
    const url = typeof origin === 'string' ? URL.parse(origin) : null;
    if (!url || url.origin === 'null' || url.origin !== String(origin).toLowerCase().replace(/\/$/, '')) {
      mustBe(`${path}[${i}]`, 'an origin: scheme://host[:port], no path', origin);
    }
    return url.origin;
  }));
}

function checkAllowedHosts(value: unknown): readonly string[] | undefined {
  const path = 'options.mcp.allowedHosts';
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) mustBe(path, 'a non-empty array of host[:port] values', value);
  return Object.freeze(value.map((host: unknown, i: number) => {
    const url = typeof host === 'string' && !host.includes('/') ? URL.parse(`http://${host}`) : null;
    // ":80" is the same host (URL drops it), as a client's Host header would leave it out
    const given = String(host).toLowerCase();
    if (!url || (url.host !== given && `${url.host}:80` !== given)) mustBe(`${path}[${i}]`, 'a host name with an optional port ("learn.example.com", "localhost:3000")', host);
    return url.host;
  }));
}

/** Defaults and checks `options.mcp`; throws ConfigurationError naming the option and the fix. */
export function resolveMcpOptions(input: McpOptions | false | undefined): ResolvedMcpOptions {
  const given = (input === false ? undefined : checkObject<McpOptions>('options.mcp', input, 'an object of MCP settings, or false to turn /mcp off')) ?? {};
  checkKnownKeys('options.mcp', given, KNOWN);
  if (given.tools !== undefined && !Array.isArray(given.tools)) mustBe('options.mcp.tools', 'an array of tools', given.tools);
  const seen = new Set<string>();
  const tools = (given.tools ?? MCP_DEFAULTS.tools).map((tool, i) => checkTool(tool, i, seen));
  if (given.defaultSite !== undefined && (typeof given.defaultSite !== 'string' || given.defaultSite === '')) {
    mustBe('options.mcp.defaultSite', 'a site id', given.defaultSite);
  }
  const cors = checkBoolean('options.mcp.cors', given.cors, MCP_DEFAULTS.cors);
  const advertiseMemberTools = checkBoolean('options.mcp.advertiseMemberTools', given.advertiseMemberTools, MCP_DEFAULTS.advertiseMemberTools);
  const info = given.serverInfo;
  if (info !== undefined && (info === null || typeof info.name !== 'string' || !info.name || typeof info.version !== 'string' || !info.version)) {
    mustBe('options.mcp.serverInfo', '{ name, version } with non-empty strings', info);
  }
  if (info !== undefined) {
    checkKnownKeys('options.mcp.serverInfo', info, SERVER_INFO_KEYS);
    if (info.title !== undefined && typeof info.title !== 'string') mustBe('options.mcp.serverInfo.title', 'a string', info.title);
  }
  if (given.instructions !== undefined && typeof given.instructions !== 'string') {
    mustBe('options.mcp.instructions', 'a string', given.instructions);
  }
  return Object.freeze({
    enabled: input !== false,
    tools: Object.freeze(tools),
    defaultSite: given.defaultSite,
    maxPageSize: checkNumber('maxPageSize', given.maxPageSize),
    maxBodyBytes: checkNumber('maxBodyBytes', given.maxBodyBytes),
    maxIdleServers: checkNumber('maxIdleServers', given.maxIdleServers),
    answerTimeout: checkAnswerTimeout(given.answerTimeout),
    cors,
    allowedOrigins: checkAllowedOrigins(given.allowedOrigins),
    allowedHosts: checkAllowedHosts(given.allowedHosts),
    advertiseMemberTools,
    serverInfo: Object.freeze({ ...(info ?? MCP_DEFAULTS.serverInfo) }),
    instructions: given.instructions ?? MCP_DEFAULTS.instructions,
  });
}
