/**
 * The errors of `/mcp`. A tool's own failure is an MCP tool error (`isError: true`, HTTP 200);
 * only the caller's credentials ever turn into HTTP 401/403.
 *
 * @module
 */
import { AuthenticationRequiredError } from '../errors.ts';

/**
 * Thrown by a tool handler for an answer the caller should read: it becomes the tool error's
 * text. Anything else a handler throws is logged and answered as a masked tool error.
 */
export class McpToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpToolError';
  }
}

/**
 * 401 for a call without a token to a tool that needs one. Carries the tool's scopes so the
 * challenge can name them (MCP authorization: the client requests the `scope` of the 401
 * first, before the protected-resource metadata's `scopes_supported`).
 */
export class ToolAuthenticationRequiredError extends AuthenticationRequiredError {
  declare readonly scope: string;

  /** `tool`: the tool called, or every tool of a batch that needs a token */
  constructor(tool: string | readonly string[], scope: string) {
    const tools = typeof tool === 'string' ? [tool] : tool;
    const named = tools.length === 1 ? `the ${tools[0]} tool needs` : `the ${tools.slice(0, -1).join(', ')} and ${tools.at(-1)} tools need`;
    super(`${named} an access token with ${scope}: send Authorization: Bearer <token>`, { scope });
  }
}
