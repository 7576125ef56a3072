/**
 * Request ids: every response that passes through `auth.routes()` (the provider's
 * endpoints, the sign-in pages, UserInfo, `/account/graphql`, `/mcp`, the docs, and the
 * host's routes after them) carries `X-Request-Id`, and the events, the trace and the log
 * lines of that request carry the same value, so one id ties a client's report, the log and
 * the trace together.
 *
 * Which id:
 * 1. one the host already put on the response (its own request-id middleware, mounted
 *    before `auth.routes()`): kept;
 * 2. otherwise the request's `X-Request-Id`, when it is well-formed: 1 to 128 characters of
 *    `A–Z a–z 0–9 . _ : @ + = / -` (a UUID, a proxy's hex id, `Root=1-…`). Kept whether or not
 *    `options.proxy` is set: an id is a label for correlation that no decision reads, and the
 *    character set keeps it from forging log lines or headers; a client that sends its own
 *    (an MCP host, an integration) can then find its request in the operator's trace. A
 *    client can of course send the id of someone else's request: ids are not proof of anything;
 * 3. otherwise a new random UUID.
 *
 * The id lives in the response header itself: the provider, which runs as its own Koa
 * application on the same response, and code without the Koa context of the host (the
 * provider's event handlers) read it from there.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

/** The header, lower-case as Node keeps it. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The longest id kept from a request. */
export const MAX_REQUEST_ID_LENGTH = 128;

const WELL_FORMED = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

/** Whether `value` may be kept as a request id. */
export function isWellFormedRequestId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value);
}

interface RequestLike {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The part of Node's `ServerResponse` read and written here. */
export interface ResponseLike {
  readonly headersSent: boolean;
  getHeader(name: string): unknown;
  setHeader(name: string, value: string): unknown;
}

/**
 * Gives the response its request id (once: a second call keeps the first id) and returns it.
 * `req` and `res` are Node's, shared by the host's Koa context and the provider's.
 */
export function assignRequestId(req: RequestLike, res: ResponseLike): string {
  const existing = res.getHeader(REQUEST_ID_HEADER);
  if (typeof existing === 'string') return existing;
  const incoming = req.headers[REQUEST_ID_HEADER];
  const id = isWellFormedRequestId(incoming) ? incoming : randomUUID();
  if (!res.headersSent) res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/**
 * How a log line names its request: ` [request <id>]`, or nothing without an id. The id is
 * well-formed (assigned here, or checked when taken from the request), cut as a bound.
 */
export function requestTag(id: string | undefined): string {
  return id === undefined ? '' : ` [request ${id.slice(0, 128)}]`;
}

/** The request id of the response, `undefined` when none was assigned. */
export function requestIdOf(holder: { readonly res?: Pick<ResponseLike, 'getHeader'> } | undefined): string | undefined {
  const value = holder?.res?.getHeader(REQUEST_ID_HEADER);
  return typeof value === 'string' ? value : undefined;
}

/**
 * Koa's error handler removes every header of the response before it answers an error that
 * escaped, the request id with them, and then sets the error's own `headers`: so the id is
 * put there, and the 500 (or the 4xx of an `http-errors` error) still carries the id that
 * its log line and events name. An error that is not an extensible object is left alone.
 */
export function keepRequestIdOn(error: unknown, res: Pick<ResponseLike, 'getHeader'>): void {
  const id = res.getHeader(REQUEST_ID_HEADER);
  if (typeof id !== 'string' || error === null || typeof error !== 'object' || !Object.isExtensible(error)) return;
  const carrier = error as { headers?: unknown };
  try {
    const own = carrier.headers !== null && typeof carrier.headers === 'object' ? carrier.headers : {};
    carrier.headers = { ...own, [REQUEST_ID_HEADER]: id };
  } catch {
    // a `headers` that cannot be set (a getter of the error's class): Koa answers without the id
  }
}
