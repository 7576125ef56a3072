/**
 * A metrics SDK that throws while timing a request (lib/events/index.ts) breaks no route of
 * the library: each answers as it would without metrics, and the failure is logged once per
 * instance, not once per request, as a failing event sink is (lib/events/diagnostics.ts).
 */
import type { Histogram, Meter, MeterProvider } from '@opentelemetry/api';

import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { testMetrics } from '../metrics/support.ts';

/** The SDK's provider, with every histogram's `record` throwing (counters work). */
function throwingHistograms(inner: MeterProvider): MeterProvider {
  return {
    getMeter(...args: Parameters<MeterProvider['getMeter']>): Meter {
      const meter = inner.getMeter(...args);
      return new Proxy(meter, {
        get(target, key, receiver) {
          if (key !== 'createHistogram') return Reflect.get(target, key, receiver);
          return (...created: Parameters<Meter['createHistogram']>): Histogram => {
            const histogram = target.createHistogram(...created);
            return Object.assign(Object.create(histogram) as Histogram, {
              record() {
                throw new RangeError('test: the metrics SDK failed');
              },
            });
          };
        },
      });
    },
  };
}

const metrics = testMetrics();
let app: RunningApp;

beforeAll(async () => {
  app = await startApp({ auth: { metrics: { meterProvider: throwingHistograms(metrics.meterProvider) } } });
});
afterAll(async () => {
  await app.stop();
  await metrics.shutdown();
});

const timingFailures = () => app.warnings.filter((line) => line.includes('duration'));

it('answers every timed route as without metrics, and logs the failure once', async () => {
  const prm = await fetch(`${app.baseUrl}/.well-known/oauth-protected-resource`);
  expect(prm.status).toBe(200);
  expect(await prm.json()).toMatchObject({ resource: expect.any(String) });

  const anonymous = await fetch(`${app.baseUrl}/api/oauth/userinfo`);
  expect(anonymous.status).toBe(401);

  const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid profile' }, STUDENT);
  const userinfo = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  expect(userinfo.status).toBe(200);
  expect(await userinfo.json()).toMatchObject({ sub: 'acc-student' });

  const openapi = await fetch(`${app.baseUrl}/openapi.json`);
  expect(openapi.status).toBe(200);

  const mcp = await fetch(`${app.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'timing-test', version: '1.0.0' } },
    }),
  });
  expect(mcp.status).toBe(200);

  expect(timingFailures()).toEqual([
    expect.stringMatching(/^platform-auth: recording a request's duration failed \(logged once\) \[request [0-9a-f-]{36}\]: RangeError: test: the metrics SDK failed$/),
  ]);
});

it('still logs nothing more after many more requests', async () => {
  for (let i = 0; i < 5; i += 1) expect((await fetch(`${app.baseUrl}/.well-known/oauth-protected-resource`)).status).toBe(200);
  expect(timingFailures()).toHaveLength(1);
});
