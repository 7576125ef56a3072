/**
 * What the storage-outage guards log: one warning when requests start being refused, then
 * at most one line a minute while they go on, so an outage under load does not flood the
 * log. Reasons are the adapters' short `error_detail` (an error code), never a request's
 * content: no token, key or secret can get in.
 *
 * @module
 */
import type { Logger } from '../contracts.ts';

/** How long without a refusal before the next refusal counts as a new outage. */
export const OUTAGE_QUIET_MS = 60_000;

export interface OutageLog {
  /** One request answered 503; `reason` when the error that caused it is known. */
  refused(reason: string | undefined): void;
}

// Both guards of one instance get the same logger: one log for both, not two.
const logs = new WeakMap<Logger, OutageLog>();

export function outageLog(logger: Logger, now: () => number = Date.now): OutageLog {
  let log = logs.get(logger);
  if (!log) {
    log = createOutageLog(logger, now);
    logs.set(logger, log);
  }
  return log;
}

function createOutageLog(logger: Logger, now: () => number): OutageLog {
  let lastRefusal = -Infinity;
  let lastReport = -Infinity;
  let unreported = 0;
  return {
    refused(reason) {
      const at = now();
      const suffix = reason ? ` (${reason})` : '';
      if (at - lastRefusal >= OUTAGE_QUIET_MS) {
        logger.warn(`platform-auth: storage is unavailable${suffix}; requests that need it are answered 503 temporarily_unavailable until it is back`);
        lastReport = at;
        unreported = 0;
      } else if (at - lastReport >= OUTAGE_QUIET_MS) {
        unreported += 1;
        logger.warn(`platform-auth: storage is still unavailable${suffix}; ${unreported} requests answered 503 in the last ${Math.round((at - lastReport) / 1000)} s`);
        lastReport = at;
        unreported = 0;
      } else {
        unreported += 1;
      }
      lastRefusal = at;
    },
  };
}
