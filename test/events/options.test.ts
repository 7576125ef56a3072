/**
 * `options.events`, `options.trace` and `options.metrics`: defaults, ranges and messages that
 * say what to change.
 */
import { MeterProvider } from '@opentelemetry/sdk-metrics';

import { resolveDiagnosticsOptions, TRACE_RANGES } from '../../lib/events/options.ts';

it('turns everything on by default: events, a trace of 50 entries for a week, metrics on the global provider', () => {
  expect(resolveDiagnosticsOptions({})).toEqual({
    events: true,
    trace: { entries: TRACE_RANGES.entries.default, ttlSeconds: TRACE_RANGES.ttlSeconds.default },
    metrics: { meterProvider: undefined },
  });
  expect(TRACE_RANGES.entries.default).toBe(50);
});

it('takes settings and off switches', () => {
  const meterProvider = new MeterProvider();
  expect(resolveDiagnosticsOptions({ trace: { entries: 5, ttlSeconds: 3600 }, metrics: { meterProvider } }))
    .toEqual({ events: true, trace: { entries: 5, ttlSeconds: 3600 }, metrics: { meterProvider } });
  expect(resolveDiagnosticsOptions({ trace: false, metrics: false })).toEqual({ events: true, trace: false, metrics: false });
  expect(resolveDiagnosticsOptions({ events: false })).toEqual({ events: false, trace: false, metrics: false });
});

it.each([
  [{ events: 'yes' }, /options.events must be true or false; got "yes"/],
  [{ trace: { entries: 0 } }, /options.trace.entries must be a whole number from 1 to 500; got 0/],
  [{ trace: { ttlSeconds: 10 } }, /options.trace.ttlSeconds must be a whole number from 60 to 7776000 \(seconds\)/],
  [{ trace: { size: 5 } }, /options.trace.size is not a known option; use one of entries, ttlSeconds/],
  [{ trace: true }, /options.trace must be false or an object like \{ entries, ttlSeconds \}; got true/],
  [{ metrics: { meterProvider: {} } }, /options.metrics.meterProvider must be an OpenTelemetry MeterProvider/],
  [{ events: false, trace: { entries: 5 } }, /options.events is false, which turns the trace and the metrics off too/],
  [{ events: false, metrics: {} }, /remove options.trace and options.metrics, or set events: true/],
])('refuses %j', (input, message) => {
  expect(() => resolveDiagnosticsOptions(input)).toThrow(message);
});
