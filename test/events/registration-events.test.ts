/**
 * Registration events that oidc-provider never sees: Variant A (restricted, answered by
 * lib/registration/restricted.ts) accepted and refused for each reason, and Variant B's
 * answers given before oidc-provider (lib/registration/open.ts): the body-size 413 and the
 * per-address 429. Each is one event, from the request that was answered, with the error
 * and the description the client got; the vendor's trace says it was registered; the error
 * metric counts the refusals.
 */
import { METRICS } from '../../lib/metrics/instruments.ts';
import { REGISTRATION_LIMITS } from '../../lib/policies/registration-limits.ts';
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { testMetrics } from '../metrics/support.ts';
import type { TestMetrics } from '../metrics/support.ts';

const VENDOR = 'acme-lms';

let restricted: RunningApp;
let open: RunningApp;
let metrics: TestMetrics;
const events: PlatformAuthEvent[] = [];

beforeAll(async () => {
  metrics = testMetrics();
  restricted = await startApp({ auth: { metrics: { meterProvider: metrics.meterProvider } } });
  open = await startApp({ auth: { registration: { variant: 'open', rateLimit: { perIp: 2, windowSeconds: 3600 } } } });
  for (const app of [restricted, open]) app.auth.events.on('*', (event) => { events.push(event); });
});
afterAll(async () => {
  await Promise.all([restricted?.stop(), open?.stop()]);
  await metrics.shutdown();
});

function register(app: RunningApp, body: string, contentType = 'application/json', headers: Record<string, string> = {}) {
  return fetch(`${app.baseUrl}/api/oauth/register`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
}

/** The registration events of one request, and its answer. */
async function answered(send: () => Promise<Response>) {
  const from = events.length;
  const res = await send();
  const body = await res.json() as { error?: string; error_description?: string; client_id?: string };
  const emitted = events.slice(from).filter((e) => e.name.startsWith('registration.'));
  return { res, body, emitted };
}

describe('Variant A (restricted)', () => {
  it('a known vendor is registration.accepted with its client id, and traced', async () => {
    const { res, body, emitted } = await answered(() => register(restricted, JSON.stringify({ client_name: 'Acme LMS' })));
    expect(res.status).toBe(201);
    expect(body.client_id).toBe(VENDOR);
    expect(emitted).toEqual([{ name: 'registration.accepted', clientId: VENDOR, at: expect.any(Number), requestId: res.headers.get('x-request-id') }]);
    const trace = await restricted.auth.clientTrace(VENDOR);
    expect(trace[0]).toMatchObject({ event: 'registration.accepted', outcome: 'ok', summary: 'The app was registered.', requestId: res.headers.get('x-request-id') });
  });

  it.each([
    ['an unknown client_name', JSON.stringify({ client_name: 'Unknown Platform' }), 'application/json'],
    ['no client_name', JSON.stringify({ redirect_uris: ['https://a.example/cb'] }), 'application/json'],
    ['a JSON array', '[]', 'application/json'],
    ['malformed JSON', '{"client_name": "Acme', 'application/json'],
    ['a form body', 'client_name=Acme+LMS', 'application/x-www-form-urlencoded'],
  ])('%s is registration.refused with the description the client got', async (_, payload, type) => {
    const { res, body, emitted } = await answered(() => register(restricted, payload, type));
    expect(res.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
    expect(emitted).toEqual([{
      name: 'registration.refused', error: 'invalid_client_metadata', description: body.error_description,
      at: expect.any(Number), requestId: res.headers.get('x-request-id'),
    }]);
  });

  it('a body over the limit is registration.refused (invalid_request)', async () => {
    const { res, body, emitted } = await answered(() => register(restricted, JSON.stringify({ client_name: 'Acme LMS', pad: 'x'.repeat(20_000) })));
    expect(res.status).toBe(413);
    expect(emitted).toEqual([expect.objectContaining({ name: 'registration.refused', error: 'invalid_request', description: body.error_description })]);
  });

  it('counts the refusals in the error metric', async () => {
    expect(await metrics.value(METRICS.errors.name, { endpoint: 'registration', error: 'invalid_client_metadata' })).toBe(5);
    expect(await metrics.value(METRICS.errors.name, { endpoint: 'registration', error: 'invalid_request' })).toBe(1);
  });
});

describe('Variant B (open), answered before oidc-provider', () => {
  it('a Content-Length over the limit is registration.refused (invalid_request, 413)', async () => {
    const big = JSON.stringify({ client_name: 'Big', pad: 'x'.repeat(REGISTRATION_LIMITS.bodyBytes) });
    const { res, body, emitted } = await answered(() => register(open, big));
    expect(res.status).toBe(413);
    expect(emitted).toEqual([{
      name: 'registration.refused', error: 'invalid_request', description: body.error_description, at: expect.any(Number), requestId: res.headers.get('x-request-id'),
    }]);
  });

  it('an address over its rate is registration.refused (temporarily_unavailable, 429), once per answer', async () => {
    const metadata = JSON.stringify({ client_name: 'Rate test', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    for (let i = 0; i < 2; i += 1) expect((await answered(() => register(open, metadata))).res.status).toBe(201);
    const { res, body, emitted } = await answered(() => register(open, metadata));
    expect(res.status).toBe(429);
    expect(body.error).toBe('temporarily_unavailable');
    expect(emitted).toEqual([{
      name: 'registration.refused', error: 'temporarily_unavailable', description: body.error_description,
      at: expect.any(Number), requestId: res.headers.get('x-request-id'),
    }]);
    expect(body.error_description).toMatch(/^too many registrations from this address; retry in \d+ seconds$/);
  });
});
