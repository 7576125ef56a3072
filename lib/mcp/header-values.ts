/**
 * What the standard-header checks (./standard-headers.ts) and the `Mcp-Param-*` checks
 * (./param-headers.ts) share, as the SDK has them: the `-32020` refusal and the Base64
 * sentinel a header value may come in (MCP 2026-07-28, Streamable HTTP, "Server Validation").
 *
 * @module
 */
import type { JsonRpcProblem } from './http.ts';

/** `HeaderMismatch`, the code of every standard-header and `Mcp-Param-*` rejection. */
export const HEADER_MISMATCH = -32020;

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as sent: plain, or UTF-8 in the Base64 sentinel; `undefined` when that does not decode. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

/** The SDK's 400 `-32020`, naming the header and what the body says. */
export function headerMismatch(header: string, body: string): JsonRpcProblem {
  return { status: 400, code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } };
}
