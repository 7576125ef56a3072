/**
 * How a tool's answer and its failures leave the server: data as `structuredContent` plus
 * the same JSON as text (for clients that read text only); failures as MCP tool errors
 * (`isError: true`), never as HTTP errors. Only `McpToolError` and the member-data service's
 * input errors keep their message; an outage says to retry later; anything else is logged and
 * masked.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';

import type { Logger } from '../../contracts.ts';
import { TEMPORARILY_UNAVAILABLE_DESCRIPTION, TemporarilyUnavailableError } from '../../errors.ts';
import { requestTag } from '../../http/request-id.ts';
import { MemberDataInputError } from '../../member-data/errors.ts';
import { isStorageUnavailable } from '../../storage/outage.ts';
import { McpToolError } from '../errors.ts';
import type { McpToolResult } from './types.ts';

export const UNEXPECTED_TOOL_ERROR = 'The tool failed unexpectedly; try again later.';

export function toolResult(data: McpToolResult): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The tool error for what a handler threw. */
export function toolFailure(error: unknown, tool: string, logger: Logger, requestId?: string): CallToolResult {
  if (error instanceof McpToolError) return toolError(error.message);
  if (error instanceof MemberDataInputError) return toolError(`${error.argument}: ${error.message}`);
  if (error instanceof TemporarilyUnavailableError) return toolError(error.description);
  // an outage, not a bug: the adapters' StorageUnavailableError (what the README tells a
  // custom member-data source to throw), also when wrapped; worth a retry, not a log line
  if (isStorageUnavailable(error)) return toolError(TEMPORARILY_UNAVAILABLE_DESCRIPTION);
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown';
  logger.error(`platform-auth: the MCP tool ${tool} failed${requestTag(requestId)}: ${detail}`);
  return toolError(UNEXPECTED_TOOL_ERROR);
}
