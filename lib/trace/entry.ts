/**
 * One entry of a client's trace: when, which event, its plain-words explanation, and the
 * request id to find the request in the log. Small on purpose: a trace holds up to
 * `options.trace.entries` of them per client, in storage.
 *
 * The account of an event is left out: a trace is read by the site's operators or the
 * platform's staff to fix a connection, and a person's account id is not needed for that.
 *
 * @module
 */
import type { EventName, PlatformAuthEvent } from '../events/types.ts';
import { explain } from './explain.ts';
import type { TraceOutcome } from './explain.ts';

export interface TraceEntry {
  /** ISO 8601, UTC */
  readonly at: string;
  /** the event, e.g. `authorization.failed` */
  readonly event: EventName;
  readonly outcome: TraceOutcome;
  /** what happened, in plain words */
  readonly summary: string;
  /** what to do, for failures */
  readonly action?: string;
  /** the machine reason or OAuth error code, e.g. `invalid_redirect_uri`, `revoked` */
  readonly reason?: string;
  /** the request's `X-Request-Id` */
  readonly requestId?: string;
  /** the site concerned, when known */
  readonly site?: string;
}

/** The machine reason of an event, where it has one. */
function reasonOf(event: PlatformAuthEvent): string | undefined {
  switch (event.name) {
    case 'authorization.failed':
    case 'token.failed':
    case 'registration.refused':
      return event.error;
    case 'access.refused':
    case 'metadata_document.failed':
    case 'refresh.reuse_detected':
    case 'signin.failed':
    case 'consent.denied':
      return event.reason;
    default:
      return undefined;
  }
}

export function toTraceEntry(event: PlatformAuthEvent): TraceEntry {
  const { outcome, summary, action } = explain(event);
  const reason = reasonOf(event);
  return {
    at: new Date(event.at).toISOString(),
    event: event.name,
    outcome,
    summary,
    ...(action === undefined ? {} : { action }),
    ...(reason === undefined ? {} : { reason }),
    ...(event.requestId === undefined ? {} : { requestId: event.requestId }),
    ...(event.site === undefined ? {} : { site: event.site }),
  };
}
