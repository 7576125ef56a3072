/**
 * JSON-RPC batches on `/mcp`, refused before they reach the SDK: those of a revision that has
 * none, and those that could never be answered. Only 2025-03-26 allows batches (a POST body may be "an array batching one or more
 * requests and/or notifications"); 2025-06-18 removed them ("Remove support for JSON-RPC
 * batching", PR #416) and 2025-11-25 keeps them out: the body "MUST be a single JSON-RPC
 * request, notification, or response". 2026-07-28 batches the SDK refuses itself.
 *
 * A batch that cancels one of its own requests never gets an answer: the SDK's JSON mode
 * answers once every request of the POST has its response, and a cancelled handler sends
 * none, so the POST would hang and hold its pooled server until the client gave up. A batch
 * that uses one request id twice (which MCP forbids: "the request ID MUST NOT have been
 * previously used") loses one answer: the SDK keeps the responses by id, so both handlers
 * run and one response is dropped without an error.
 *
 * @module
 */
import { MCP_REVISIONS } from '../constants.ts';
import { isRecord } from './http.ts';
import type { JsonRpcProblem } from './http.ts';

/** The revision a 2025 request without `MCP-Protocol-Version` is taken to be (2025-06-18, "Protocol Version Header"). */
const REVISION_WITHOUT_HEADER = '2025-03-26';

/** The served 2025 revisions that allow batches. */
const BATCHING_REVISIONS: ReadonlySet<string> = new Set([REVISION_WITHOUT_HEADER]);

function invalidRequest(message: string): JsonRpcProblem {
  return { status: 400, code: -32600, message: `Invalid Request: ${message}` };
}

/** The ids of the batch's requests, and the first one used twice (as sent: 1 and "1" are two ids, as in the SDK's Map). */
function requestIds(batch: readonly unknown[]): { ids: Set<unknown>; repeated?: string | number } {
  const ids = new Set<unknown>();
  let repeated: string | number | undefined;
  for (const message of batch) {
    if (!isRecord(message) || typeof message.method !== 'string' || (typeof message.id !== 'string' && typeof message.id !== 'number')) continue;
    if (ids.has(message.id)) repeated ??= message.id;
    ids.add(message.id);
  }
  return repeated === undefined ? { ids } : { ids, repeated };
}

/** The first request of the batch that a `notifications/cancelled` of the same batch names. */
function selfCancelled(batch: readonly unknown[], ids: Set<unknown>): string | number | undefined {
  for (const message of batch) {
    if (!isRecord(message) || message.method !== 'notifications/cancelled' || 'id' in message || !isRecord(message.params)) continue;
    // the SDK looks the handler up by the id as sent (a Map), so "1" does not cancel 1, here either
    const { requestId } = message.params;
    if (ids.has(requestId)) return requestId as string | number;
  }
  return undefined;
}

/**
 * The problem to answer for a batch that must not be served, or `undefined`. `revision` is the
 * `MCP-Protocol-Version` header ('' when absent); a revision this endpoint does not serve is
 * left to the version check, and 2026-07-28 to the SDK.
 */
export function refuseBatch(messages: unknown, revision: string): JsonRpcProblem | undefined {
  if (!Array.isArray(messages)) return undefined;
  const served = revision === '' ? REVISION_WITHOUT_HEADER : revision;
  if (MCP_REVISIONS.legacy.includes(served) && !BATCHING_REVISIONS.has(served)) {
    return invalidRequest(`protocol revision ${served} has no JSON-RPC batches (only 2025-03-26 had them); send one message per POST`);
  }
  const { ids, repeated } = requestIds(messages);
  if (repeated !== undefined) {
    return invalidRequest(`the batch uses the request id ${JSON.stringify(repeated)} more than once, which would leave one of its requests without an answer; give each request its own id`);
  }
  const cancelled = selfCancelled(messages, ids);
  if (cancelled !== undefined) {
    return invalidRequest(`the batch cancels its own request ${JSON.stringify(cancelled)} (notifications/cancelled), which would leave it without an answer; leave the request out instead`);
  }
  return undefined;
}
