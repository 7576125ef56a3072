/**
 * What the transport would refuse a POST for, asked before `/mcp` refuses a call for its token:
 * a request the transport rejects must not be sent through sign-in or a step-up first (the
 * client would run a whole authorization only to be told its request can never be served).
 *
 * - 2026-07-28 (MCP Streamable HTTP, "Server Validation", SEP-2243), as the SDK's
 *   `createMcpHandler` applies it after classifying the request: the envelope's revision is
 *   one served (else 400 `-32022` with the supported list, so the client can fall back);
 *   `MCP-Protocol-Version` and `Mcp-Method` present, and for the methods that name something
 *   (`tools/call`, `prompts/get`, `resources/read`, `tasks/*`) an `Mcp-Name` that is present,
 *   decodes (its `=?base64?…?=` form) and names what the body names. Else 400 `-32020`.
 * - The 2025 revisions, as the SDK's Streamable HTTP transport applies them: `Accept` names
 *   both `application/json` and `text/event-stream` (else 406), every message is JSON-RPC
 *   (else 400 `-32700`), and an `MCP-Protocol-Version` names a revision served (else 400:
 *   "the server MUST respond with 400 Bad Request", Streamable HTTP, "Protocol Version Header").
 *
 * The SDK keeps these checks to itself (`validateStandardRequestHeaders` is not exported, the
 * transport's run inside `handleRequest`), so the same rules are here, asked on that path
 * only; every request that gets past the token is still judged by the SDK itself. Drop this
 * module once the SDK exports its checks.
 *
 * @module
 */
import { classifyInboundRequest, isInitializeRequest, parseJSONRPCMessage, UnsupportedProtocolVersionError } from '@modelcontextprotocol/server';

import { MCP_REVISIONS } from '../constants.ts';
import { decodeHeaderValue, headerMismatch as mismatch } from './header-values.ts';
import { paramHeaderRejection } from './param-headers.ts';
import type { ParamHeader } from './param-headers.ts';
import type { JsonRpcProblem } from './http.ts';
import { isRecord } from './http.ts';

/** The body field `Mcp-Name` mirrors, by method. */
const NAME_SOURCE: Readonly<Record<string, string>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

export interface StandardHeaders {
  readonly protocolVersion: string | undefined;
  readonly method: string | undefined;
  readonly name: string | undefined;
  /** `Accept`, read for the 2025 revisions only */
  readonly accept?: string | undefined;
  /** reads a header by name (`Mcp-Param-<Name>`, 2026-07-28 only): `undefined` when absent */
  readonly get?: (name: string) => string | undefined;
}

/** The `Mcp-Param-*` declarations of a tool by its name: `undefined` for a tool not served. */
export type ParamHeadersOf = (tool: string) => readonly ParamHeader[] | undefined;

/** The id the SDK echoes in a refusal: a single request's (not a notification's, not a batch's). */
function echoableId(body: unknown): string | number | null {
  if (!isRecord(body) || typeof body.method !== 'string') return null;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
}

/** The most messages the SDK's 2025 transport takes in one batch (its `MAX_BATCH_SIZE`, not exported). */
const MAX_BATCH_SIZE = 100;

/**
 * The 2025 transport's refusals, in its order (`WebStandardStreamableHTTPServerTransport.handlePostRequest`):
 * `Accept`, the batch's size, every message JSON-RPC, one `initialize` alone, and the
 * `MCP-Protocol-Version` of any other request. `requested`: the header (the SDK's
 * classification names no version for a batch, the transport reads the header for it too).
 */
function legacyRejection(headers: StandardHeaders, body: unknown, requested: string | undefined): JsonRpcProblem | undefined {
  const accept = headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return { status: 406, code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
  }
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH_SIZE) return { status: 400, code: -32600, message: `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages` };
  let parsed: unknown[];
  try {
    parsed = messages.map((message) => parseJSONRPCMessage(message));
  } catch {
    return { status: 400, code: -32700, message: 'Parse error: Invalid JSON-RPC message' };
  }
  // the SDK's own test of an initialization (its schema: params and all)
  if (parsed.some((message) => isInitializeRequest(message))) {
    return messages.length > 1 ? { status: 400, code: -32600, message: 'Invalid Request: Only one initialization request is allowed' } : undefined;
  }
  if (requested !== undefined && !MCP_REVISIONS.legacy.includes(requested)) {
    return { status: 400, code: -32000, message: `Bad Request: Unsupported protocol version: ${requested} (supported versions: ${MCP_REVISIONS.legacy.join(', ')})` };
  }
  return undefined;
}

/**
 * Why the transport would refuse this POST before serving it (the SDK's classification, then
 * the rules above for its revision), or `undefined` when it would not. `paramHeadersOf` names
 * the `Mcp-Param-*` headers of a `tools/call` (./param-headers.ts), checked after the standard
 * headers, as `createMcpHandler` does once it knows the tool.
 */
export function transportRejection(headers: StandardHeaders, body: unknown, paramHeadersOf?: ParamHeadersOf): JsonRpcProblem | undefined {
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.method,
    mcpNameHeader: headers.name,
    body,
  });
  if (outcome.kind === 'reject') {
    return { status: outcome.httpStatus, code: outcome.code, message: outcome.message, ...(outcome.data === undefined ? {} : { data: outcome.data }), id: echoableId(body) };
  }
  if (outcome.kind === 'legacy') return legacyRejection(headers, body, outcome.requestedVersion ?? headers.protocolVersion);
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
  const revision = outcome.classification.revision;
  if (revision !== MCP_REVISIONS.current) {
    const error = new UnsupportedProtocolVersionError({ supported: [MCP_REVISIONS.current], requested: revision ?? 'unknown' });
    return { status: 400, code: error.code, message: error.message, data: error.data, id: echoableId(body) };
  }
  const refusal = headerMismatch(headers, outcome.message, outcome.classification.revision) ?? paramMismatch(headers, outcome.message, paramHeadersOf);
  return refusal && { ...refusal, id: echoableId(body) };
}

/** The `Mcp-Param-*` rule of a 2026-07-28 `tools/call` of a tool that declares such headers. */
function paramMismatch(headers: StandardHeaders, message: { method: string; params?: unknown }, paramHeadersOf: ParamHeadersOf | undefined): JsonRpcProblem | undefined {
  if (message.method !== 'tools/call' || !paramHeadersOf || !isRecord(message.params) || typeof message.params.name !== 'string') return undefined;
  const declarations = paramHeadersOf(message.params.name);
  if (!declarations?.length) return undefined;
  return paramHeaderRejection(declarations, message.params.arguments, (name) => headers.get?.(name));
}

/** The presence and `Mcp-Name` rules of a 2026-07-28 request whose revision is served. */
function headerMismatch(headers: StandardHeaders, message: { method: string; params?: unknown }, claimed: string | undefined): JsonRpcProblem | undefined {
  const { method } = message;
  if (headers.protocolVersion === undefined) {
    return mismatch('(missing)', claimed === undefined
      ? 'the body carries a modern per-request envelope but the required MCP-Protocol-Version header is absent'
      : `the body envelope names protocol version ${claimed} but the required MCP-Protocol-Version header is absent`);
  }
  if (headers.method === undefined) return mismatch('(missing)', `the body names method ${method} but the required Mcp-Method header is absent`);
  return nameMismatch(headers.name, message, true);
}

/** `Mcp-Name` against what the body names; `required`: its absence is refused when the body names something. */
function nameMismatch(name: string | undefined, message: { method: string; params?: unknown }, required: boolean): JsonRpcProblem | undefined {
  const { method, params } = message;
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method]! : undefined;
  if (field === undefined) return undefined;
  const raw = params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>)[field] : undefined;
  const bodyValue = typeof raw === 'string' ? raw : undefined;
  if (name === undefined) {
    return bodyValue === undefined || !required ? undefined : mismatch('(missing)', `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`);
  }
  const sent = withoutOws(name);
  const decoded = decodeHeaderValue(sent);
  if (decoded === undefined) return mismatch(sent, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (bodyValue !== undefined && decoded !== bodyValue) {
    return mismatch(sent, `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${decoded}"`);
  }
  return undefined;
}

const withoutOws = (value: string) => value.replace(/^[\t ]+|[\t ]+$/g, '');

/**
 * A POST the SDK serves as 2025-era (no `MCP-Protocol-Version`, or a 2025 one) that still sends
 * `Mcp-Method` or `Mcp-Name`: the SDK reads neither there, but a gateway in front may route or
 * apply its policy by them, so they must agree with the body as on 2026-07-28 (400 `-32020`),
 * or the gateway would judge one call and another would run. In a 2025-03-26 batch, with every
 * message that names a method. `undefined` for every other request (the SDK judges those).
 */
export function legacyHeaderRejection(headers: StandardHeaders, body: unknown): JsonRpcProblem | undefined {
  // a request naming the current revision in its header is never 2025-era: spare the classification
  if ((headers.method === undefined && headers.name === undefined) || headers.protocolVersion === MCP_REVISIONS.current) return undefined;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST', protocolVersionHeader: headers.protocolVersion, mcpMethodHeader: headers.method, mcpNameHeader: headers.name, body,
  });
  if (outcome.kind !== 'legacy') return undefined;
  const sentMethod = headers.method === undefined ? undefined : withoutOws(headers.method);
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isRecord(message) || typeof message.method !== 'string') continue;
    const { method } = message;
    const refusal = sentMethod !== undefined && sentMethod !== method
      ? mismatch(sentMethod, `the body names method ${method} but the Mcp-Method header names ${sentMethod}`)
      : nameMismatch(headers.name, { method, params: message.params }, false);
    if (refusal) return { ...refusal, id: echoableId(body) };
  }
  return undefined;
}
