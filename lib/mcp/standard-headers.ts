/**
 * The standard-header check of a 2026-07-28 request (MCP Streamable HTTP, "Server
 * Validation", SEP-2243), as the SDK's `createMcpHandler` applies it after classifying the
 * request: `MCP-Protocol-Version` and `Mcp-Method` present, and for the methods that name
 * something (`tools/call`, `prompts/get`, `resources/read`, `tasks/*`) an `Mcp-Name` that is
 * present, decodes (its `=?base64?…?=` form) and names what the body names. Else 400 `-32020`.
 *
 * The SDK keeps that check to itself (`validateStandardRequestHeaders` is not exported), and
 * `/mcp` needs its verdict before it refuses a call for its token: a request the transport
 * would reject must not be sent through sign-in or a step-up first. So the same rules are
 * here, asked on that path only; every request that gets past the token is still judged by
 * the SDK itself. Drop this module once the SDK exports its check.
 *
 * @module
 */
import { classifyInboundRequest } from '@modelcontextprotocol/server';

import type { JsonRpcProblem } from './http.ts';

/** `HeaderMismatch`, the code of every standard-header rejection. */
const HEADER_MISMATCH = -32020;

/** The body field `Mcp-Name` mirrors, by method. */
const NAME_SOURCE: Readonly<Record<string, string>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An `Mcp-Name` value as sent: plain, or UTF-8 in the Base64 sentinel; `undefined` when that does not decode. */
function decodedName(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

function mismatch(header: string, body: string): JsonRpcProblem {
  return { status: 400, code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } };
}

export interface StandardHeaders {
  readonly protocolVersion: string | undefined;
  readonly method: string | undefined;
  readonly name: string | undefined;
}

/**
 * Why the transport would refuse this POST for its headers (the SDK's classification, then
 * the presence and `Mcp-Name` rules above), or `undefined` when it would not. Legacy
 * (2025) requests have no standard headers to check.
 */
export function standardHeaderRejection(headers: StandardHeaders, body: unknown): JsonRpcProblem | undefined {
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.method,
    mcpNameHeader: headers.name,
    body,
  });
  if (outcome.kind === 'reject') {
    return { status: outcome.httpStatus, code: outcome.code, message: outcome.message, ...(outcome.data === undefined ? {} : { data: outcome.data }) };
  }
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
  const { method, params } = outcome.message;
  if (headers.protocolVersion === undefined) {
    const claimed = outcome.classification.revision;
    return mismatch('(missing)', claimed === undefined
      ? 'the body carries a modern per-request envelope but the required MCP-Protocol-Version header is absent'
      : `the body envelope names protocol version ${claimed} but the required MCP-Protocol-Version header is absent`);
  }
  if (headers.method === undefined) return mismatch('(missing)', `the body names method ${method} but the required Mcp-Method header is absent`);
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method]! : undefined;
  if (field === undefined) return undefined;
  const raw = params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>)[field] : undefined;
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  if (headers.name === undefined) {
    return bodyValue === undefined ? undefined : mismatch('(missing)', `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`);
  }
  const sent = headers.name.replace(/^[\t ]+|[\t ]+$/g, '');
  const decoded = decodedName(sent);
  if (decoded === undefined) return mismatch(sent, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (bodyValue !== undefined && decoded !== bodyValue) {
    return mismatch(sent, `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${decoded}"`);
  }
  return undefined;
}
