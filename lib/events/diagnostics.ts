/**
 * Where events go: the public listeners of `auth.events` (./hub.ts), and the library's own
 * sinks (the per-client trace, the metrics, the event log). Emission sites ask `wants(name)`
 * first, so an event nobody would see is never built: with `events: false`, no listener,
 * `trace: false` and `metrics: false`, emitting costs one property read.
 *
 * A request finds the diagnostics of its instance through Node's request object
 * (`bindRequest`), which the host's Koa context and the provider's (oidc-provider runs as its
 * own Koa application on the same request) share.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

import type { Logger } from '../contracts.ts';
import { assignRequestId, requestIdOf, requestTag } from '../http/request-id.ts';
import type { EventHub } from './hub.ts';
import type { EventInput, EventName, PlatformAuthEvent } from './types.ts';

/** One of the library's consumers of events. */
export interface EventSink {
  /** Sees every event; must not throw (a throw is logged and swallowed). */
  record(event: PlatformAuthEvent): void;
}

const BOUND = Symbol('platform-auth.diagnostics');

interface Bindable {
  [BOUND]?: Diagnostics;
}

/** What emission sites hold: a Koa context (host's or provider's), or anything with `req`/`res`. */
export interface RequestHolder {
  readonly req?: IncomingMessage;
  readonly res?: { getHeader(name: string): unknown };
}

export class Diagnostics {
  /** `options.events`: `false` turns every event off */
  readonly enabled: boolean;
  readonly hub: EventHub;
  readonly #sinks: readonly EventSink[];
  readonly #logger: Logger;
  #sinkFailureLogged = false;

  constructor(options: { enabled: boolean; hub: EventHub; sinks: readonly EventSink[]; logger: Logger }) {
    this.enabled = options.enabled;
    this.hub = options.hub;
    this.#sinks = options.enabled ? options.sinks : [];
    this.#logger = options.logger;
  }

  /** Whether an event named `name` would reach anyone: check before building it. */
  wants(name: EventName): boolean {
    return this.enabled && (this.#sinks.length > 0 || this.hub.wants(name));
  }

  /** Stamps `input` with the time and the request id of `holder` (if any) and hands it out. */
  emit(input: EventInput, holder?: RequestHolder): void {
    if (!this.wants(input.name)) return;
    const requestId = requestIdOf(holder);
    const event = frozen({ ...input, at: Date.now(), ...(requestId === undefined ? {} : { requestId }) }) as PlatformAuthEvent;
    for (const sink of this.#sinks) {
      try {
        sink.record(event);
      } catch (error) {
        this.#sinkFailed(error, requestId);
      }
    }
    this.hub.emit(event);
  }

  /**
   * Marks a request as this instance's: its request id is assigned (see
   * lib/http/request-id.ts) and emission sites find these diagnostics from it. A request
   * already marked keeps its first instance.
   */
  bindRequest(req: IncomingMessage, res: Parameters<typeof assignRequestId>[1]): boolean {
    const bindable = req as IncomingMessage & Bindable;
    if (bindable[BOUND] !== undefined) return false;
    bindable[BOUND] = this;
    assignRequestId(req, res);
    return true;
  }

  #sinkFailed(error: unknown, requestId: string | undefined): void {
    if (this.#sinkFailureLogged) return;
    this.#sinkFailureLogged = true;
    this.#logger.error(`platform-auth: recording an event failed (logged once)${requestTag(requestId)}: ${error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown'}`);
  }
}

/**
 * An event as every listener and sink sees it: frozen, its lists too (copied first: a list
 * may be the caller's own), so a listener cannot change what the trace or the next listener
 * reads. Events hold strings, numbers and lists of strings only.
 */
function frozen<E extends Record<string, unknown>>(event: E): Readonly<E> {
  for (const key in event) {
    const value = event[key];
    if (Array.isArray(value)) event[key] = Object.freeze([...value]) as E[typeof key];
  }
  return Object.freeze(event);
}

/** The diagnostics of the instance that handles `holder`'s request, if any. */
export function diagnosticsOf(holder: RequestHolder | undefined): Diagnostics | undefined {
  return (holder?.req as (IncomingMessage & Bindable) | undefined)?.[BOUND];
}

/**
 * Emits `input` for the request of `holder` (a Koa context, the host's or the provider's):
 * nothing when no instance handles the request or nobody would see the event. For emission
 * sites outside lib/events (the sign-in pages, Variant A registration, the document fetch).
 *
 * @example
 * ```ts
 * emitFor(ctx, { name: 'signin.throttled', clientId: client.clientId, retryAfter });
 * ```
 */
export function emitFor(holder: RequestHolder | undefined, input: EventInput): void {
  const diagnostics = diagnosticsOf(holder);
  if (diagnostics?.wants(input.name)) diagnostics.emit(input, holder);
}
