/**
 * `options.events`, `options.trace` and `options.metrics`: what they accept, their defaults,
 * and the one place they are checked.
 *
 * `events: false` turns the whole diagnostics layer off (no event is built: no listener is
 * called, no trace entry written, no metric recorded, no event logged); it is the baseline for
 * measuring what diagnostics cost (`npm run bench`). Request ids (`X-Request-Id`) stay on.
 *
 * @module
 */
import type { MeterProvider } from '@opentelemetry/api';

import { checkBoolean, checkInteger, checkKnownKeys, checkObject, fail, mustBe } from '../config/check.ts';
import type { IntegerRange } from '../config/check.ts';

/** The bounds and defaults of `options.trace` (written once; the validator reads them). */
export const TRACE_RANGES = Object.freeze({
  entries: { min: 1, max: 500, default: 50 },
  // a week: long enough for "it stopped working on Monday" to be looked at on Friday
  ttlSeconds: { min: 60, max: 90 * 86_400, default: 7 * 86_400, unit: 'seconds' },
} as const satisfies Record<string, IntegerRange>);

/**
 * The per-client flow trace: the last events of each client, in plain words, kept in the
 * adapter's storage so every instance shares it (`auth.memberClients.trace(site, clientId)`,
 * `auth.clientTrace(clientId)`).
 */
export interface TraceOptions {
  /**
   * Entries kept per client; older ones are dropped.
   * @default {@link TRACE_RANGES}.entries.default
   */
  entries?: number;
  /**
   * Seconds a client's trace is kept after its last entry.
   * @default {@link TRACE_RANGES}.ttlSeconds.default
   */
  ttlSeconds?: number;
}

/** OpenTelemetry metrics (README "Metrics" lists them). */
export interface MetricsOptions {
  /**
   * The OpenTelemetry `MeterProvider` to record with.
   * @default the global one (`metrics.getMeterProvider()` of `@opentelemetry/api` when `createPlatformAuth` runs): a no-op until the host installs an SDK
   */
  meterProvider?: MeterProvider;
}

export interface ResolvedTraceOptions {
  readonly entries: number;
  readonly ttlSeconds: number;
}

export interface ResolvedMetricsOptions {
  readonly meterProvider: MeterProvider | undefined;
}

export interface ResolvedDiagnosticsOptions {
  readonly events: boolean;
  /** `false`: off */
  readonly trace: ResolvedTraceOptions | false;
  /** `false`: off */
  readonly metrics: ResolvedMetricsOptions | false;
}

function resolveTrace(value: unknown): ResolvedTraceOptions | false {
  if (value === false) return false;
  const given = checkObject<TraceOptions>('options.trace', value, 'false or an object like { entries, ttlSeconds }') ?? {};
  checkKnownKeys('options.trace', given, Object.keys(TRACE_RANGES));
  return Object.freeze({
    entries: checkInteger('options.trace.entries', given.entries, TRACE_RANGES.entries),
    ttlSeconds: checkInteger('options.trace.ttlSeconds', given.ttlSeconds, TRACE_RANGES.ttlSeconds),
  });
}

function resolveMetrics(value: unknown): ResolvedMetricsOptions | false {
  if (value === false) return false;
  const given = checkObject<MetricsOptions>('options.metrics', value, 'false or an object like { meterProvider }') ?? {};
  checkKnownKeys('options.metrics', given, ['meterProvider']);
  const provider = given.meterProvider;
  if (provider !== undefined && typeof (provider as { getMeter?: unknown })?.getMeter !== 'function') {
    mustBe('options.metrics.meterProvider', 'an OpenTelemetry MeterProvider (with getMeter)', provider);
  }
  return Object.freeze({ meterProvider: provider });
}

/**
 * Checks and defaults the three options together (they depend on each other);
 * `eventsDefault` is `OPTION_DEFAULTS.events` (lib/config/options.ts).
 */
export function resolveDiagnosticsOptions(input: { events?: unknown; trace?: unknown; metrics?: unknown }, eventsDefault = true): ResolvedDiagnosticsOptions {
  const events = checkBoolean('options.events', input.events, eventsDefault, 'true or false');
  if (!events && ((input.trace !== undefined && input.trace !== false) || (input.metrics !== undefined && input.metrics !== false))) {
    fail('options.events is false, which turns the trace and the metrics off too; remove options.trace and options.metrics, or set events: true');
  }
  return Object.freeze({
    events,
    trace: events ? resolveTrace(input.trace) : false,
    metrics: events ? resolveMetrics(input.metrics) : false,
  });
}
