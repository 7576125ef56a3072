/**
 * The HTTP edge of `/mcp`: the request body (read here, once, because the step-up check
 * must see which tools are called before the SDK answers), JSON-RPC error answers shaped as
 * the SDK's own, and the hand-over between Koa and the SDK's web-standard transport.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

import type { Context } from 'koa';

import { BodyIncompleteError, BodyTooLargeError, readLimitedBody } from '../http/read-body.ts';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/request-id.ts';

export interface JsonRpcProblem {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  /** the JSON-RPC error's `data`, when it has one */
  readonly data?: unknown;
  readonly headers?: Record<string, string>;
  /** the id of the request refused, where the SDK would echo it (default `null`) */
  readonly id?: string | number | null;
}

/** Answers as the SDK transport does: a JSON-RPC error with `id: null`. */
export function writeJsonRpcProblem(ctx: Context, problem: JsonRpcProblem): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers ?? {})) ctx.set(name, value);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(problemBody(problem));
}

/** The same answer as a web `Response`, where the SDK's answer is awaited. */
export function problemResponse(problem: JsonRpcProblem): Response {
  return Response.json(problemBody(problem), { status: problem.status, ...(problem.headers ? { headers: problem.headers } : {}) });
}

/** The JSON-RPC error of `problem`, answering no request in particular (`id: null`) unless it names one. */
function problemBody(problem: JsonRpcProblem) {
  const error = { code: problem.code, message: problem.message, ...(problem.data === undefined ? {} : { data: problem.data }) };
  return { jsonrpc: '2.0', error, id: problem.id ?? null };
}

/** A JSON object (not an array): a JSON-RPC message or its `params`. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The methods `/mcp` answers (`Allow` of its 405). */
export const MCP_ALLOW = 'POST, OPTIONS';

export const METHOD_NOT_ALLOWED: JsonRpcProblem = Object.freeze({
  status: 405,
  code: -32000,
  message: 'Method not allowed: this server is stateless; send JSON-RPC messages with POST (no sessions, no server-initiated stream).',
  headers: { Allow: MCP_ALLOW },
});

/** {@link METHOD_NOT_ALLOWED} with `mcp.cors: false`, where `OPTIONS` is refused too. */
export const METHOD_NOT_ALLOWED_WITHOUT_CORS: JsonRpcProblem = Object.freeze({ ...METHOD_NOT_ALLOWED, headers: { Allow: 'POST' } });

export const UNSUPPORTED_MEDIA_TYPE: JsonRpcProblem = Object.freeze({
  status: 415, code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json',
});

export const UNSUPPORTED_CHARSET: JsonRpcProblem = Object.freeze({
  status: 415, code: -32000, message: 'Unsupported Media Type: the charset of Content-Type must be utf-8 (or left out)',
});

const PARSE_ERROR: JsonRpcProblem = Object.freeze({ status: 400, code: -32700, message: 'Parse error: Invalid JSON' });

// the client stopped sending mid-body: its own doing, so a 400 and not an error of ours (the
// answer rarely arrives; what matters is that nothing is thrown to the host's error handler);
// the rest of the body is unknown, so the connection cannot be reused
const INCOMPLETE_BODY: JsonRpcProblem = Object.freeze({
  status: 400, code: -32700, message: 'Parse error: the request body was not received completely', headers: { Connection: 'close' },
});

function tooLarge(limit: number): JsonRpcProblem {
  // close the connection rather than drain an arbitrarily long body
  return { status: 413, code: -32000, message: `Payload Too Large: Request body must not exceed ${limit} bytes`, headers: { Connection: 'close' } };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | JsonRpcProblem> {
  try {
    return await readLimitedBody(req, limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return tooLarge(limit);
    if (err instanceof BodyIncompleteError) return INCOMPLETE_BODY;
    throw err;
  }
}

/**
 * The parsed JSON body, or the problem to answer. A body something in front already read
 * never gets here: `routes()` and the piece mounted on its own refuse it first
 * (lib/http/mounted-alone.ts), rather than take a host parser's object past the size and
 * media-type rules of this endpoint.
 */
export async function readJsonBody(ctx: Context, limit: number): Promise<{ readonly value: unknown } | JsonRpcProblem> {
  const body = await readBody(ctx.req, limit);
  if (!Buffer.isBuffer(body)) return body;
  try {
    return { value: JSON.parse(body.toString('utf8')) };
  } catch {
    return PARSE_ERROR;
  }
}

/** The names of the tools a JSON-RPC message or batch calls. */
export function calledTools(body: unknown): string[] {
  const names: string[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (message === null || typeof message !== 'object') continue;
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (method !== 'tools/call' || params === null || typeof params !== 'object') continue;
    const { name } = params as { name?: unknown };
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

// what the SDK reads (and hands to handlers as requestInfo); never the Authorization header
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id', 'last-event-id'] as const;

/**
 * A web `Request` with the headers the SDK reads (and the `Mcp-Param-*` headers of
 * 2026-07-28); the body travels parsed. It carries no abort signal: undici ties a signal
 * given to a Request to it with a WeakRef and a FinalizationRegistry entry, ~30 µs of every
 * call; a client that goes away closes the exchange's server instead (lib/mcp/endpoint.ts).
 */
export function toWebRequest(ctx: Context, origin: string): Request {
  // a plain record: the Request copies its init's headers into a Headers of its own, so a
  // Headers built here would be filled (and each value validated) twice
  const headers: Record<string, string> = {};
  const given = ctx.req.headers;
  for (const name of TRANSPORT_HEADERS) {
    const value = given[name];
    if (typeof value === 'string') headers[name] = value;
  }
  for (const name in given) {
    const value = given[name];
    if (name.startsWith('mcp-param-') && typeof value === 'string') headers[name] = value;
  }
  // the id this request was given (lib/http/request-id.ts), for the tools' log lines
  const requestId = requestIdOf(ctx);
  if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId;
  // path and query, not `ctx.url`: a request line may hold an absolute URL (RFC 9112 §3.2.2)
  return new Request(`${origin}${ctx.path}${ctx.search}`, { method: ctx.method, headers });
}

/**
 * Copies the transport's answer onto the Koa response. The body goes across as the bytes
 * the SDK encoded: read as text it would be decoded here and encoded again by Node when
 * written (both passes over a ~9 KB tool answer showed in profiles of /mcp).
 */
export async function writeWebResponse(ctx: Context, response: Response): Promise<void> {
  ctx.status = response.status;
  response.headers.forEach((value, name) => {
    // the framing is Node's to decide
    if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') ctx.set(name, value);
  });
  const bytes = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
  if (bytes === undefined || bytes.length === 0) {
    ctx.body = null;
    ctx.status = response.status;
  } else {
    // content-type is the SDK's (copied above); Koa keeps a type already set
    ctx.body = bytes;
  }
}
