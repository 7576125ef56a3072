/**
 * `auth.events`: subscribe to the library's events by name, or to all of them with `'*'`.
 *
 * Listeners run synchronously inside the request the event happened in (do slow work
 * asynchronously), those of the event's name before those of `'*'`, each in the order they
 * were added. A listener that throws, or whose promise
 * rejects, is logged (rate-limited) and never breaks the request or the other listeners.
 * Each event is frozen: what one listener sees, all see.
 *
 * @example
 * ```ts
 * const stop = auth.events.on('refresh.reuse_detected', (event) => alerts.page(event.clientId));
 * stop(); // unsubscribes
 * ```
 *
 * @module
 */
import type { Logger } from '../contracts.ts';
import { requestTag } from '../http/request-id.ts';
import { EVENT_NAMES } from './types.ts';
import type { EventListener, EventName, PlatformAuthEvent, PlatformAuthEventMap } from './types.ts';

export interface PlatformAuthEvents {
  /** Calls `listener` with each event named `name`; returns a function that unsubscribes. */
  on<N extends EventName>(name: N, listener: EventListener<N>): () => void;
  /** Calls `listener` with every event. */
  on(name: '*', listener: (event: PlatformAuthEvent) => void | Promise<void>): () => void;
  /** Removes a listener added with `on`. */
  off<N extends EventName>(name: N | '*', listener: EventListener<N>): void;
}

type AnyListener = (event: PlatformAuthEvent) => void | Promise<void>;

/** How long listener failures of one event name are summed up before the next log line. */
export const LISTENER_ERROR_QUIET_MS = 60_000;

const KNOWN = new Set<string>([...EVENT_NAMES, '*']);

export class EventHub implements PlatformAuthEvents {
  readonly #listeners = new Map<string, AnyListener[]>();
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #lastLogged = new Map<string, number>();
  /** how many listeners in all; `emit` is a no-op at 0 */
  #count = 0;

  constructor(logger: Logger, now: () => number = Date.now) {
    this.#logger = logger;
    this.#now = now;
  }

  on<N extends EventName>(name: N, listener: EventListener<N>): () => void;
  on(name: '*', listener: AnyListener): () => void;
  on(name: EventName | '*', listener: AnyListener | EventListener<never>): () => void {
    if (!KNOWN.has(name)) throw new TypeError(`auth.events.on(): ${JSON.stringify(name)} is not an event; use one of ${[...KNOWN].join(', ')}`);
    if (typeof listener !== 'function') throw new TypeError('auth.events.on(name, listener): listener must be a function');
    // copy on write: an emit in progress keeps the list it started with
    this.#listeners.set(name, [...(this.#listeners.get(name) ?? []), listener as AnyListener]);
    this.#count += 1;
    return () => this.off(name as EventName, listener as EventListener<EventName>);
  }

  off<N extends EventName>(name: N | '*', listener: EventListener<N>): void {
    const list = this.#listeners.get(name);
    const at = list?.indexOf(listener as AnyListener) ?? -1;
    if (at < 0) return;
    const rest = list!.filter((_, i) => i !== at);
    if (rest.length) this.#listeners.set(name, rest);
    else this.#listeners.delete(name);
    this.#count -= 1;
  }

  /** Whether any listener would see an event named `name`. */
  wants(name: EventName): boolean {
    return this.#count > 0 && (this.#listeners.has(name) || this.#listeners.has('*'));
  }

  emit<N extends EventName>(event: PlatformAuthEventMap[N]): void {
    if (this.#count === 0) return;
    this.#call(this.#listeners.get(event.name), event);
    this.#call(this.#listeners.get('*'), event);
  }

  #call(listeners: readonly AnyListener[] | undefined, event: PlatformAuthEvent): void {
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        const result = listener(event);
        if (result && typeof (result as Promise<void>).catch === 'function') {
          (result as Promise<void>).catch((error: unknown) => this.#failed(event, error));
        }
      } catch (error) {
        this.#failed(event, error);
      }
    }
  }

  #failed({ name, requestId }: PlatformAuthEvent, error: unknown): void {
    const at = this.#now();
    if (at - (this.#lastLogged.get(name) ?? -Infinity) < LISTENER_ERROR_QUIET_MS) return;
    this.#lastLogged.set(name, at);
    const what = error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown';
    this.#logger.error(`platform-auth: a listener of the ${name} event failed${requestTag(requestId)} (the request went on; further failures of this event's listeners are not logged for a minute): ${what}`);
  }
}
