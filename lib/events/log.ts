/**
 * The events worth a line in the host's log, written to `options.logger` with the request id:
 * refresh-token reuse and authorization-code replay (a token may have been stolen), and
 * client ID metadata documents that could not be used (a connector that cannot connect).
 * Server errors and storage outages have their own log lines (lib/provider/error-log.ts,
 * lib/storage/outage-log.ts) and are not repeated here.
 *
 * Each kind is written at most once a minute, then summed up, so that a client (or anyone
 * naming a metadata-document URL) cannot flood the log. Lines hold client ids, reasons and
 * request ids, never a token, a code, a secret or a password.
 *
 * @module
 */
import type { Logger } from '../contracts.ts';
import { requestTag } from '../http/request-id.ts';
import type { EventSink } from './diagnostics.ts';
import type { PlatformAuthEvent } from './types.ts';

/** A kind of line is written at most once in this many milliseconds. */
export const EVENT_LOG_QUIET_MS = 60_000;

/** JSON-quoted (no line break gets through) and cut: a metadata-document URL is anyone's choice. */
const clientOf = (event: PlatformAuthEvent) => JSON.stringify(event.clientId === undefined ? null : event.clientId.slice(0, 200));

/** The line of `event`; only built for the events that get one (every event passes here). */
function lineOf(event: PlatformAuthEvent): string | undefined {
  switch (event.name) {
    case 'refresh.reuse_detected':
      return `refresh-token reuse by client ${clientOf(event)} (${event.reason}): every token of that grant was revoked`;
    case 'code.replayed':
      return `authorization code of client ${clientOf(event)} redeemed twice: every token of that grant was revoked`;
    case 'metadata_document.failed':
      return `the metadata document of client ${clientOf(event)} could not be used (${event.reason}${event.status === undefined ? '' : ` ${event.status}`})`;
    default:
      return undefined;
  }
}

export class EventLog implements EventSink {
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #kinds = new Map<string, { last: number; suppressed: number }>();

  constructor(logger: Logger, now: () => number = Date.now) {
    this.#logger = logger;
    this.#now = now;
  }

  record(event: PlatformAuthEvent): void {
    const line = lineOf(event);
    if (line === undefined) return;
    const now = this.#now();
    const kind = this.#kinds.get(event.name) ?? { last: -Infinity, suppressed: 0 };
    this.#kinds.set(event.name, kind);
    if (now - kind.last < EVENT_LOG_QUIET_MS) {
      kind.suppressed += 1;
      return;
    }
    const more = kind.suppressed > 0 ? ` (and ${kind.suppressed} more like it since the last line)` : '';
    kind.last = now;
    kind.suppressed = 0;
    this.#logger.warn(`platform-auth: ${line}${requestTag(event.requestId)}${more}`);
  }
}
