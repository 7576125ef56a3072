/**
 * Assembles the diagnostics of one instance from the options: `auth.events` (./hub.ts), the
 * per-client trace (lib/trace/), the metrics (lib/metrics/), the event log (./log.ts), the
 * events derived from oidc-provider's (./provider-events.ts), and the request wrapper that
 * gives every request its id and times the library's endpoints.
 *
 * @module
 */
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';

import type { AdapterFactory } from '../../adapters/types.ts';
import type { Logger } from '../contracts.ts';
import type { EndpointDefinition } from '../endpoints.ts';
import { notePeer } from '../http/peer-address.ts';
import { requestIdOf, requestTag } from '../http/request-id.ts';
import { hasReadablePath, refuseUnreadableTarget } from '../http/request-target.ts';
import { createEndpointLabeler } from '../metrics/endpoint-label.ts';
import { MetricsRecorder } from '../metrics/recorder.ts';
import type { TraceEntry } from '../trace/entry.ts';
import { TraceRecorder } from '../trace/recorder.ts';
import { ClientTraceStore } from '../trace/store.ts';
import type { TracedClient } from '../trace/store.ts';
import { Diagnostics } from './diagnostics.ts';
import type { EventSink } from './diagnostics.ts';
import { servedInGrace } from './grace.ts';
import { EventHub } from './hub.ts';
import type { PlatformAuthEvents } from './hub.ts';
import { EventLog } from './log.ts';
import type { ResolvedDiagnosticsOptions } from './options.ts';
import { deriveProviderEvents } from './provider-events.ts';
import { resolveUnknownTokensWith } from './refusals.ts';
import type { TokenOwner } from './refusals.ts';
import { RevokedTokens } from './revoked-tokens.ts';

export interface DiagnosticsDeps {
  readonly options: ResolvedDiagnosticsOptions;
  readonly adapter: AdapterFactory;
  readonly logger: Logger;
  /** the endpoints this deployment serves (lib/served-endpoints.ts), for the `endpoint` attribute */
  readonly served: readonly EndpointDefinition[];
}

export interface DiagnosticsSetup {
  readonly diagnostics: Diagnostics;
  /** `auth.events` */
  readonly events: PlatformAuthEvents;
  /** A client's trace, newest first; `[]` with `trace: false`. */
  readTrace(clientId: string): Promise<TraceEntry[]>;
  /** The clients with a trace, most recently traced first; `[]` with `trace: false`. */
  tracedClients(): Promise<TracedClient[]>;
  /**
   * `middleware` as the first thing a request meets: its request id is assigned and the
   * instance's diagnostics bound to it, and the library's own endpoints are timed. Nested
   * wrappers (the pieces inside `routes()`) do nothing more.
   */
  observed<M extends Middleware>(middleware: M): M;
  /** Each middleware of `pieces` {@link observed} (other properties of each, like `handles`, kept); frozen. */
  observeEach<T extends Record<string, Middleware | undefined>>(pieces: T): Readonly<T>;
  /** For lib/policies/refresh-grace.ts: reuse that oidc-provider refused without revoking the grant. */
  missedRefreshReuse(ctx: { req?: unknown; res?: unknown }, owner: TokenOwner, reason: 'other_client' | 'other_refusal'): void;
  /** Subscribes the events derived from oidc-provider's; once the provider exists. */
  attach(provider: Provider): void;
  /** Writes what the trace still holds. */
  close(): Promise<void>;
}

export function createDiagnostics({ options, adapter, logger, served }: DiagnosticsDeps): DiagnosticsSetup {
  const hub = new EventHub(logger);
  // on the API's no-op meter every point would be dropped: no sink, no error listeners, no timing
  const recorder = options.metrics ? new MetricsRecorder(options.metrics.meterProvider) : undefined;
  const metrics = recorder?.recording ? recorder : undefined;
  const trace = options.trace
    ? new TraceRecorder({ store: new ClientTraceStore({ adapter, ...options.trace }), entries: options.trace.entries, logger })
    : undefined;
  const sinks: EventSink[] = [...(trace ? [trace] : []), ...(metrics ? [metrics] : []), new EventLog(logger)];
  const diagnostics = new Diagnostics({ enabled: options.events, hub, sinks, logger });
  const revokedTokens = options.events ? new RevokedTokens(adapter) : undefined;
  const endpointOf = createEndpointLabeler(served);
  let timingFailureLogged = false;

  /**
   * One answered request into the metrics. Like an event sink's (./diagnostics.ts), a throw
   * of the metrics SDK is logged once per instance and swallowed: it never fails the request
   * it was timing, and never floods the log with one line per request.
   */
  function requestDone(endpoint: string, method: string, status: number, start: number, request: Parameters<Middleware>[0]): void {
    try {
      metrics!.requestDone(endpoint, method, status, (performance.now() - start) / 1000);
    } catch (error) {
      if (timingFailureLogged) return;
      timingFailureLogged = true;
      logger.error(`platform-auth: recording a request's duration failed (logged once)${requestTag(requestIdOf(request))}: ${error instanceof Error ? `${error.name}: ${error.message}` : 'a non-Error value was thrown'}`);
    }
  }

  function observe(ctx: Parameters<Middleware>[0], next: Parameters<Middleware>[1], middleware: Middleware): Promise<unknown> {
    if (!diagnostics.bindRequest(ctx.req, ctx.res)) return Promise.resolve(middleware(ctx, next));
    // once per request, where it enters the library, with its id already on the response; its
    // peer now, while the connection is up (the limits by client address read it later)
    notePeer(ctx.req);
    if (!hasReadablePath(ctx)) {
      refuseUnreadableTarget(ctx);
      return Promise.resolve();
    }
    const endpoint = metrics && endpointOf(ctx.path);
    if (!endpoint) return Promise.resolve(middleware(ctx, next));
    const start = performance.now();
    const done = (status: number) => requestDone(endpoint, ctx.method, status, start, ctx);
    return Promise.resolve(middleware(ctx, next)).then(
      (value) => { done(ctx.res.statusCode); return value; },
      (error: unknown) => { done(500); throw error; },
    );
  }

  function observed<M extends Middleware>(middleware: M): M {
    const wrapped = function observedRequest(ctx: Parameters<Middleware>[0], next: Parameters<Middleware>[1]) {
      return observe(ctx, next, middleware);
    };
    return Object.assign(wrapped, middleware) as unknown as M;
  }

  return {
    diagnostics,
    events: hub,
    async readTrace(clientId) {
      if (!trace || typeof clientId !== 'string' || clientId === '') return [];
      return trace.read(clientId);
    },
    async tracedClients() {
      return trace ? trace.tracedClients() : [];
    },
    observed,
    observeEach(pieces) {
      const out: Record<string, Middleware | undefined> = {};
      for (const [name, piece] of Object.entries(pieces)) out[name] = piece && observed(piece);
      return Object.freeze(out) as typeof pieces;
    },
    missedRefreshReuse(ctx, owner, reason) {
      if (!diagnostics.wants('refresh.reuse_detected')) return;
      diagnostics.emit({
        name: 'refresh.reuse_detected',
        reason,
        ...(owner.clientId === undefined ? {} : { clientId: owner.clientId }),
        ...(owner.accountId === undefined ? {} : { accountId: owner.accountId }),
        ...(owner.site === undefined ? {} : { site: owner.site }),
      }, ctx as never);
    },
    attach(provider) {
      if (!options.events) return;
      deriveProviderEvents(provider, { diagnostics, metrics, revokedTokens, servedInGrace });
      resolveUnknownTokensWith(diagnostics, async (token) => {
        const revoked = await revokedTokens?.find(token);
        if (revoked) return { reason: 'revoked', ...revoked };
        // expired, but still in storage (it is deleted when it expires, give or take a clock)
        const expired = await provider.AccessToken.find(token, { ignoreExpiration: true });
        if (expired?.isExpired) {
          const site = (expired.extra as { org_id?: unknown } | undefined)?.org_id;
          return { reason: 'expired', clientId: expired.clientId, accountId: expired.accountId, site: typeof site === 'string' ? site : undefined };
        }
        return undefined;
      });
    },
    async close() {
      await Promise.all([trace?.close(), revokedTokens?.flush()]);
    },
  };
}

export { Diagnostics, diagnosticsOf, emitFor } from './diagnostics.ts';
export type { PlatformAuthEvents } from './hub.ts';
export type { TraceEntry } from '../trace/entry.ts';
export type { TracedClient } from '../trace/store.ts';
