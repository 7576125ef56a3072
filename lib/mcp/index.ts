/**
 * The MCP endpoint, `/mcp`: the SDK's Streamable HTTP transport, stateless with JSON
 * responses. Public tools anonymously; member tools for member tokens with `account:read`;
 * the host's operator (and other) tools by audience and scope (`options.mcp.tools`).
 * Mounted by the composition root unless `options.mcp` is `false`.
 *
 * @module
 */
export { createEndpointTools, createMcpEndpoint } from './endpoint.ts';
export type { McpDeps } from './endpoint.ts';
export { resolveMcpOptions } from './options.ts';
export type { McpOptions, ResolvedMcpOptions } from './options.ts';
export { McpToolError, ToolAuthenticationRequiredError } from './errors.ts';
export { defineMcpTool } from './tools/types.ts';
export type {
  AnyMcpTool, McpCaller, McpInputSchema, McpTool, McpToolAudience, McpToolContext, McpToolResult,
} from './tools/types.ts';
export { MEMBER_TOOL_NAMES, MEMBER_TOOL_SCOPES } from './tools/member.ts';
export { PUBLIC_TOOL_NAMES } from './tools/public.ts';
export { UNEXPECTED_TOOL_ERROR } from './tools/result.ts';
