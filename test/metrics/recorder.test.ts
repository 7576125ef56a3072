/**
 * Events become metric points with bounded attributes and no client or account id; requests
 * are timed only when an SDK records anything.
 */
import { createNoopMeter, metrics } from '@opentelemetry/api';
import type { MeterProvider } from '@opentelemetry/api';

import type { PlatformAuthEvent } from '../../lib/events/types.ts';
import { METRICS } from '../../lib/metrics/instruments.ts';
import { MetricsRecorder } from '../../lib/metrics/recorder.ts';
import { testMetrics } from './support.ts';
import type { TestMetrics } from './support.ts';

let sdk: TestMetrics;
let recorder: MetricsRecorder;
beforeEach(() => {
  sdk = testMetrics();
  recorder = new MetricsRecorder(sdk.meterProvider);
});
afterEach(() => sdk.shutdown());

const base = { at: 1, clientId: 'client-1', accountId: 'acc-1', site: 'demo-school', requestId: 'r' };
const events: PlatformAuthEvent[] = [
  { ...base, name: 'code.redeemed' },
  { ...base, name: 'refresh.rotated' },
  { ...base, name: 'refresh.rotated' },
  { ...base, name: 'refresh.grace_used' },
  { ...base, name: 'refresh.reuse_detected', reason: 'after_grace' },
  { ...base, name: 'token.revoked', tokenType: 'access_token' },
  { ...base, name: 'authorization.failed', error: 'invalid_redirect_uri', description: 'x' },
  { ...base, name: 'token.failed', error: 'made_up_code', description: 'x' },
  { ...base, name: 'signin.failed', reason: 'credentials' },
  { ...base, name: 'signin.throttled', retryAfter: 4 },
  { ...base, name: 'access.refused', endpoint: 'mcp', status: 403, reason: 'missing_scope', error: 'insufficient_scope', description: 'x' },
  { ...base, name: 'metadata_document.failed', reason: 'dns', description: 'x' },
  { ...base, name: 'storage.unavailable' },
];

it('counts tokens, errors by endpoint and code, sign-in failures, refusals and outages', async () => {
  for (const event of events) recorder.record(event);
  const v = (name: string, attributes?: Record<string, unknown>) => sdk.value(name, attributes);
  expect(await v(METRICS.tokensIssued.name)).toBe(1);
  expect(await v(METRICS.tokensRefreshed.name, { outcome: 'rotated' })).toBe(2);
  expect(await v(METRICS.tokensRefreshed.name, { outcome: 'grace_used' })).toBe(1);
  expect(await v(METRICS.tokensRevoked.name, { token_type: 'grant', reason: 'refresh_reuse' })).toBe(1);
  expect(await v(METRICS.tokensRevoked.name, { token_type: 'access_token', reason: 'revocation' })).toBe(1);
  expect(await v(METRICS.errors.name, { endpoint: 'authorization', error: 'invalid_redirect_uri' })).toBe(1);
  expect(await v(METRICS.errors.name, { endpoint: 'token', error: 'other' })).toBe(1);
  expect(await v(METRICS.errors.name, { endpoint: 'token', error: 'invalid_grant' })).toBe(1);
  expect(await v(METRICS.errors.name, { endpoint: 'mcp', error: 'insufficient_scope' })).toBe(1);
  expect(await v(METRICS.signInFailures.name, { reason: 'credentials' })).toBe(1);
  expect(await v(METRICS.signInThrottled.name)).toBe(1);
  expect(await v(METRICS.accessRefused.name, { endpoint: 'mcp', reason: 'missing_scope' })).toBe(1);
  expect(await v(METRICS.metadataDocumentFailures.name, { reason: 'dns' })).toBe(1);
  expect(await v(METRICS.storageUnavailable.name)).toBe(1);
});

it('never puts a client id, an account id, a site or a request id in an attribute', async () => {
  for (const event of events) recorder.record(event);
  recorder.requestDone('token', 'POST', 200, 0.01);
  const points = await sdk.collect();
  expect(points.length).toBeGreaterThan(10);
  const values = JSON.stringify(points.map((p) => p.attributes));
  for (const personal of ['client-1', 'acc-1', 'demo-school', '"r"']) expect(values).not.toContain(personal);
  const allowed = new Set(Object.values(METRICS).flatMap((m) => [...m.attributes]));
  for (const point of points) for (const key of Object.keys(point.attributes)) expect(allowed).toContain(key);
});

it('times requests into the duration histogram, in seconds', async () => {
  expect(recorder.recording).toBe(true);
  recorder.requestDone('mcp', 'POST', 200, 0.004);
  recorder.requestDone('mcp', 'POST', 200, 0.006);
  const [point] = (await sdk.collect()).filter((p) => p.name === METRICS.requestDuration.name);
  expect(point).toEqual({
    name: 'platform_auth.request.duration',
    attributes: { endpoint: 'mcp', 'http.request.method': 'POST', 'http.response.status_code': 200 },
    value: 2,
    sum: expect.closeTo(0.01, 5),
  });
});

it('labels a method outside HTTP\'s registered ones _OTHER: a client cannot multiply the series', async () => {
  for (const method of ['GET', 'MKCOL', 'PROPFIND', 'M-SEARCH', 'FOOBAR']) recorder.requestDone('token', method, 404, 0.001);
  const points = (await sdk.collect()).filter((p) => p.name === METRICS.requestDuration.name);
  expect(points.map((p) => [p.attributes['http.request.method'], p.value]).sort()).toEqual([['GET', 1], ['_OTHER', 4]]);
});

it('does not time anything on the API\'s no-op meter (no SDK installed)', () => {
  const noop: MeterProvider = { getMeter: () => createNoopMeter() };
  expect(new MetricsRecorder(noop).recording).toBe(false);
  // the global provider, with no SDK registered in this process
  expect(new MetricsRecorder(metrics.getMeterProvider()).recording).toBe(false);
});
