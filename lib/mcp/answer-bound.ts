/**
 * A bound on how long `/mcp` waits for the SDK's answer to start. In JSON mode (the 2025
 * revisions here, and 2026-07-28 when nothing streams) the SDK answers once every request of
 * the POST has its response, and nothing else ends that wait: a handler that never settles (a
 * host tool stuck on a backend that does not answer) or a request the SDK drops without a
 * response (one its own batch cancelled, lib/mcp/batch.ts) would hold the connection and a
 * pooled server until the client gave up.
 *
 * @module
 */
import { RETRY_AFTER_SECONDS } from '../storage/outage.ts';
import type { JsonRpcProblem } from './http.ts';

/**
 * How long to wait, in seconds, unless `options.mcp.answerTimeout` says otherwise (the one
 * place the default is written). Generous: every library tool reads one page of member data,
 * well under a second; a client's own request timeout is commonly 60 s (the SDK clients'
 * default), so it hears from the server before it gives up.
 */
export const ANSWER_TIMEOUT_SECONDS = 30;

/** {@link ANSWER_TIMEOUT_SECONDS} in milliseconds, as the endpoint counts. */
export const ANSWER_TIMEOUT_MS = ANSWER_TIMEOUT_SECONDS * 1000;

/**
 * What a client gets when the bound runs out: 503 with `Retry-After`, the answer the library
 * gives for every outage, since a handler that does not answer is most often one waiting on a
 * backend that is down; JSON-RPC `-32603` (internal error), as the exchange failed on the
 * server's side. `id` is null as the answer covers the whole POST.
 */
export const NO_ANSWER: JsonRpcProblem = Object.freeze({
  status: 503,
  code: -32603,
  message: 'Internal error: the server did not answer in time; try again later',
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
});

/**
 * `work`'s answer, or `undefined` once `ms` have passed without one (after `onTimeout`). The
 * caller then ends the exchange: closing its server aborts what still runs and returns the
 * server to its pool. `ended` (the client went away) ends the wait at once, without
 * `onTimeout`: there is no one left to answer, and the SDK's JSON answer would never come.
 */
export function answerWithin<T>(work: Promise<T>, ms: number, onTimeout: () => void, ended?: AbortSignal): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onEnded: (() => void) | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      onTimeout();
      resolve(undefined);
    }, ms);
    if (!ended) return;
    onEnded = () => resolve(undefined);
    if (ended.aborted) onEnded();
    else ended.addEventListener('abort', onEnded, { once: true });
  });
  return Promise.race([work, late]).finally(() => {
    clearTimeout(timer);
    if (onEnded) ended!.removeEventListener('abort', onEnded);
  });
}
