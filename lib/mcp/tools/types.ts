/**
 * The tool contract of `/mcp`: what the library's own tools and a host's tools
 * (`options.mcp.tools`) are made of. Who may call a tool is data (`audience`, `scopes`), so
 * `tools/list` filtering, the 401/403 step-up answers and the check inside the call all read
 * the same two fields.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineMcpTool, McpToolError } from 'platform-auth';
 *
 * const listCourses = defineMcpTool({
 *   name: 'list_site_courses',
 *   description: 'The courses of the school you administer, published or not.',
 *   audience: 'operator',
 *   scopes: ['courses:read'],
 *   inputSchema: z.object({ includeUnlisted: z.boolean().default(true) }),
 *   async handler({ includeUnlisted }, caller, { signal }) {
 *     if (!caller.site) throw new McpToolError('the token names no school');
 *     // the signal aborts when the answer is no longer wanted: stop the query then
 *     return { courses: await db.courses(caller.site, { includeUnlisted, signal }) };
 *   },
 * });
 * ```
 *
 * @module
 */
import type { StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';

import type { BearerAuth } from '../../resource/bearer.ts';

/**
 * Who may call a tool: `public` anyone, a request without a token included; `member` a
 * member token (a person's own data at one site); `operator` an operator token (a site
 * administrator's client).
 */
export type McpToolAudience = 'public' | 'member' | 'operator';

/** The caller a handler is given: the verified token, or `undefined` for an anonymous public call. */
export type McpCaller<A extends McpToolAudience = McpToolAudience> = A extends 'public' ? BearerAuth | undefined : BearerAuth;

/**
 * What a handler is given besides its arguments and caller: the call's own context. An
 * object, so that more can be added later without changing the handler's signature.
 */
export interface McpToolContext {
  /**
   * Aborted once the answer to this call is no longer wanted: the client went away before
   * it (closed the connection, or aborted its HTTP request), or `/mcp` answered 503 without
   * it once `options.mcp.answerTimeout` ran out. A `notifications/cancelled` does not reach
   * it: this server keeps no sessions, so it comes in a POST of its own, to another server
   * than the call's (a client that cancels by that message alone, as the 2025 SDK client does,
   * leaves the call to run until the bound). Pass it on to what the handler waits for
   * (`fetch`, a database driver) so that work stops too; whatever the handler returns
   * afterwards is discarded. The MCP SDK's per-request signal (`ctx.mcpReq.signal`).
   */
  readonly signal: AbortSignal;
}

/**
 * What a handler returns: a JSON object. It is answered as the tool's `structuredContent`
 * and, serialised, as its text content.
 */
export type McpToolResult = Record<string, unknown>;

/**
 * A tool's input schema: any Standard Schema that also describes itself as JSON Schema
 * (`~standard.jsonSchema`), such as a zod ≥ 4.2 `z.object({...})`, or, for brevity, a raw
 * shape of zod 4 schemas (`{ slug: z.string() }`), which the library wraps in `z.object`.
 * It must describe an object. zod 3 schemas are refused at start-up (the MCP SDK cannot turn
 * them into JSON Schema).
 */
export type McpInputSchema = StandardSchemaWithJSON | z.ZodRawShape;

/** The arguments a handler receives for `S`, after validation (defaults applied). */
export type McpToolArgs<S extends McpInputSchema> = S extends StandardSchemaWithJSON
  ? StandardSchemaWithJSON.InferOutput<S>
  : S extends z.ZodRawShape ? z.output<z.ZodObject<S>> : never;

export interface McpTool<S extends McpInputSchema = McpInputSchema, A extends McpToolAudience = McpToolAudience> {
  /** unique; letters, digits, `_`, `-` and `.`, at most 128 characters */
  readonly name: string;
  /** a short human-facing name */
  readonly title?: string;
  /** what the tool does, for the model choosing it */
  readonly description: string;
  readonly audience: A;
  /**
   * Every one of these scopes is required. Empty for `public` tools; at least one for
   * `member` (`account:read`) and `operator` tools (e.g. `courses:read`): it is what the
   * 403 `insufficient_scope` step-up asks the client to obtain.
   */
  readonly scopes: readonly string[];
  /** validated by the SDK before the handler runs; a failure is a tool error naming the field */
  readonly inputSchema: S;
  /**
   * What the tool does, for clients deciding whether to ask before calling it. Left out, none
   * are sent and MCP's defaults apply (it may write, and reach beyond the school): the library
   * cannot know a host tool is read-only, so say so (`{ readOnlyHint: true, openWorldHint: false }`).
   */
  readonly annotations?: ToolAnnotations;
  /**
   * Runs the tool for `caller`. Throw `McpToolError` for an answer the caller should see
   * (`isError` with its message); anything else is logged and answered as a masked tool error.
   * `context.signal` aborts when the answer is no longer wanted ({@link McpToolContext});
   * a handler that does not need it may leave the parameter out.
   */
  handler(args: McpToolArgs<S>, caller: McpCaller<A>, context: McpToolContext): McpToolResult | Promise<McpToolResult>;
}

/** Identity, for type inference of `args` and `caller` from `inputSchema` and `audience`. */
export function defineMcpTool<S extends McpInputSchema, A extends McpToolAudience>(tool: McpTool<S, A>): McpTool<S, A> {
  return tool;
}

/**
 * Any tool, whatever its schema and audience (what `options.mcp.tools` holds). Its handler's
 * arguments were typed by `defineMcpTool` and are validated against its schema before it runs,
 * so here they are opaque (`never`: every handler is assignable).
 */
export interface AnyMcpTool extends Omit<McpTool, 'audience' | 'handler'> {
  readonly audience: McpToolAudience;
  handler(args: never, caller: never, context: McpToolContext): McpToolResult | Promise<McpToolResult>;
}

/** The library's own tools: they read the school's data and nothing else. */
export const READ_ONLY_TOOL: ToolAnnotations = Object.freeze({ readOnlyHint: true, openWorldHint: false });
