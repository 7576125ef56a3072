/**
 * The authorization-request rate per client address over real HTTP, on the demo host: the
 * default budget, the cost by size, Retry-After and the page, the resumption of a started
 * flow left uncounted, what it keeps out of storage, the address behind a proxy, off, a
 * storage fault (503, never a 500), and one budget shared by two instances on one Redis.
 */
import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { AdapterFactory, ClosableAdapterFactory } from '../../adapters/types.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';
import type { PlatformAuthEventMap } from '../../lib/index.ts';
import { AUTHORIZATION_RATE_MODEL, AUTHORIZATION_REQUEST_UNIT_BYTES } from '../../lib/policies/authorization-rate.ts';
import { Browser, signIn } from '../support/browser.ts';
import { buildAuthorizeUrl, MEMBER, STUDENT } from '../support/flows.ts';
import { pkcePair, randomState } from '../support/pkce.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startFaultRig } from '../support/storage-faults.ts';
import { startApp, withApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid profile account:read';

/** An authorization request of the demo member client, `padding` characters of `state` long at least. */
function authorizeUrl(baseUrl: string, padding = 0): string {
  const { challenge } = pkcePair();
  const state = padding > 0 ? 'x'.repeat(padding) : randomState();
  return buildAuthorizeUrl(baseUrl, MEMBER, { scope: SCOPE, challenge, state });
}

const authorize = (url: string, headers: Record<string, string> = {}) => fetch(url, { redirect: 'manual', headers });

/** Counts what each model's adapter is asked to store. */
function countingUpserts(inner: AdapterFactory, counts: Map<string, number>): AdapterFactory {
  return (model) => {
    const adapter = inner(model);
    return new Proxy(adapter, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (property !== 'upsert' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return (...args: unknown[]) => {
          counts.set(model, (counts.get(model) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  };
}

async function expectLimited(response: Response, maxRetryAfter: number) {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  // a page, not a redirect to an unchecked redirect_uri
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const page = await response.text();
  expect(page).toContain('Too many sign-in requests');
  expect(page).not.toMatch(/at .*\.ts:\d+/);
}

describe('the authorization-request rate per client address', () => {
  it('the default budget: a burst of perIp requests gets the pages, the excess 429', async () => {
    const { perIp, windowSeconds } = OPTION_DEFAULTS.authorizationRateLimit;
    const count = perIp.default + 50;
    await withApp({}, async (app) => {
      const started = Date.now();
      const answers: Response[] = [];
      for (let i = 0; i < count; i += 10) {
        answers.push(...await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => authorize(authorizeUrl(app.baseUrl)))));
      }
      // the bucket refills perIp per windowSeconds (two a second at the defaults) while the burst runs
      const refilled = Math.ceil(((Date.now() - started) / 1000) * (perIp.default / windowSeconds.default)) + 1;
      const served = answers.filter((r) => r.status === 303).length;
      expect(served).toBeGreaterThanOrEqual(perIp.default);
      expect(served).toBeLessThanOrEqual(perIp.default + refilled);
      const refused = answers.filter((r) => r.status !== 303);
      expect(refused.length).toBe(count - served);
      for (const response of refused) await expectLimited(response, 1);
    });
  });

  it('a large request costs by its size: one unit per started 2 KiB of its URL', async () => {
    await withApp({ authorizationRateLimit: { perIp: 5, windowSeconds: 60 } }, async (app) => {
      const large = authorizeUrl(app.baseUrl, 2 * AUTHORIZATION_REQUEST_UNIT_BYTES);
      const { pathname, search } = new URL(large);
      expect(Math.ceil((pathname.length + search.length) / AUTHORIZATION_REQUEST_UNIT_BYTES)).toBe(3);
      expect((await authorize(large)).status).toBe(303); // 3 units
      expect((await authorize(authorizeUrl(app.baseUrl))).status).toBe(303); // 4
      expect((await authorize(authorizeUrl(app.baseUrl))).status).toBe(303); // 5
      // one unit every 12 s: the next request waits that long
      await expectLimited(await authorize(authorizeUrl(app.baseUrl)), 12);
      // in the browser's language, as every page of the library
      const german = await authorize(authorizeUrl(app.baseUrl), { 'accept-language': 'de-DE,de;q=0.9' });
      expect(german.status).toBe(429);
      expect(german.headers.get('content-language')).toBe('de');
      expect(await german.text()).toContain('Zu viele Anmeldeanfragen');
      // a large request is refused while a small one would still wait less: it needs 3 units
      await expectLimited(await authorize(large), 36);
    });
  });

  it('counts /oauth/authorize/ (one trailing slash) as the authorization endpoint, which it is to oidc-provider', async () => {
    const counts = new Map<string, number>();
    await withApp({ adapter: countingUpserts(createMemoryAdapter(), counts), authorizationRateLimit: { perIp: 2, windowSeconds: 600 } }, async (app) => {
      const slashed = () => authorizeUrl(app.baseUrl).replace('/oauth/authorize?', '/oauth/authorize/?');
      expect((await authorize(slashed())).status).toBe(303);
      expect((await authorize(slashed())).status).toBe(303);
      const answers = await Promise.all(Array.from({ length: 10 }, () => authorize(slashed())));
      expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 429));
      await expectLimited(await authorize(authorizeUrl(app.baseUrl)), 600);
      expect(counts.get('Interaction')).toBe(2);
    });
  });

  it('counts HEAD as GET: oidc-provider stores an Interaction for it too', async () => {
    await withApp({ authorizationRateLimit: { perIp: 2, windowSeconds: 600 } }, async (app) => {
      const head = () => fetch(authorizeUrl(app.baseUrl), { method: 'HEAD', redirect: 'manual' });
      expect((await head()).status).toBe(303);
      expect((await head()).status).toBe(303);
      expect((await head()).status).toBe(429);
      await expectLimited(await authorize(authorizeUrl(app.baseUrl)), 600);
    });
  });

  it('counts GET and HEAD only: another method is refused 405 before it is counted', async () => {
    await withApp({ authorizationRateLimit: { perIp: 1, windowSeconds: 600 } }, async (app) => {
      const params = new URL(authorizeUrl(app.baseUrl)).searchParams;
      for (let i = 0; i < 3; i += 1) {
        const post = await fetch(`${app.baseUrl}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params.toString() });
        expect(post.status).toBe(405);
      }
      expect((await authorize(authorizeUrl(app.baseUrl))).status).toBe(303);
    });
  });

  it('the resumption of a started flow is not counted: a whole sign-in on a budget of one', async () => {
    await withApp({ authorizationRateLimit: { perIp: 1, windowSeconds: 600 } }, async (app) => {
      const { challenge } = pkcePair();
      const url = buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: SCOPE, challenge, state: randomState() });
      // authorize, sign-in page, consent page, then twice back to /oauth/authorize/:uid
      const redirect = await signIn(new Browser(app.baseUrl), url, STUDENT);
      expect(new URL(redirect).searchParams.get('code')).toBeTruthy();
      await expectLimited(await authorize(authorizeUrl(app.baseUrl)), 600);
    });
  });

  it('keeps what one address makes the server store to its budget', async () => {
    const counts = new Map<string, number>();
    await withApp({ adapter: countingUpserts(createMemoryAdapter(), counts), authorizationRateLimit: { perIp: 5, windowSeconds: 600 } }, async (app) => {
      const answers = await Promise.all(Array.from({ length: 40 }, () => authorize(authorizeUrl(app.baseUrl, 4000))));
      // each request is 3 units: one request in
      expect(answers.filter((r) => r.status === 303)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(39);
      expect(counts.get('Interaction')).toBe(1);
    });
  });

  it('is an authorization.failed event without a client (its client_id is unchecked)', async () => {
    await withApp({ authorizationRateLimit: { perIp: 1, windowSeconds: 600 } }, async (app) => {
      const failed: PlatformAuthEventMap['authorization.failed'][] = [];
      app.auth.events.on('authorization.failed', (event) => { failed.push(event); });
      expect((await authorize(authorizeUrl(app.baseUrl))).status).toBe(303);
      const refused = await authorize(authorizeUrl(app.baseUrl));
      await expectLimited(refused, 600);
      expect(failed).toEqual([expect.objectContaining({
        error: 'temporarily_unavailable', description: 'too many authorization requests from this address', requestId: refused.headers.get('x-request-id'),
      })]);
      expect(failed[0]!.clientId).toBeUndefined();
    });
  });

  it('with proxy, counts the address from X-Forwarded-For; without it, never reads that header and says so once', async () => {
    const limit = { perIp: 2, windowSeconds: 600 };
    await withApp({ authorizationRateLimit: limit, proxy: true }, async (app) => {
      const from = (ip: string) => authorize(authorizeUrl(app.baseUrl), { 'x-forwarded-for': ip });
      expect((await from('203.0.113.7')).status).toBe(303);
      expect((await from('203.0.113.7')).status).toBe(303);
      await expectLimited(await from('203.0.113.7'), 300);
      expect((await from('203.0.113.8')).status).toBe(303);
      // IPv6 counts by /64
      expect((await from('2001:db8:1:2::1')).status).toBe(303);
      expect((await from('2001:db8:1:2::2')).status).toBe(303);
      await expectLimited(await from('2001:db8:1:2:ffff::3'), 300);
    });
    await withApp({ authorizationRateLimit: limit }, async (app) => {
      const from = (ip: string) => authorize(authorizeUrl(app.baseUrl), { 'x-forwarded-for': ip });
      expect((await from('203.0.113.1')).status).toBe(303);
      expect((await from('203.0.113.2')).status).toBe(303);
      await expectLimited(await from('203.0.113.3'), 300);
      const hints = app.warnings.filter((w) => w.includes('X-Forwarded-For'));
      expect(hints).toHaveLength(1);
      expect(hints[0]).toContain('reached the authorization rate limit');
      expect(hints[0]).toContain('options.proxy');
    });
  });

  it('false turns it off: nothing counted, nothing stored for it', async () => {
    const counts = new Map<string, number>();
    await withApp({ adapter: countingUpserts(createMemoryAdapter(), counts), authorizationRateLimit: false }, async (app) => {
      const answers = await Promise.all(Array.from({ length: 30 }, () => authorize(authorizeUrl(app.baseUrl))));
      expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 30 }, () => 303));
      expect(counts.get(AUTHORIZATION_RATE_MODEL)).toBeUndefined();
      expect(counts.get('Interaction')).toBe(30);
    });
  });

  it('a storage fault while counting is a 503, never a 500, and the next request is served', async () => {
    const rig = await startFaultRig({ auth: { authorizationRateLimit: { perIp: 10, windowSeconds: 60 } } });
    try {
      rig.arm({ model: AUTHORIZATION_RATE_MODEL, method: 'spendBudget', when: 'before', action: 'refuse' });
      const failed = await authorize(authorizeUrl(rig.app.baseUrl));
      expect(failed.status).toBe(503);
      expect(failed.headers.get('retry-after')).toBeTruthy();
      // a browser's endpoint: the outage page whatever Accept says, never a redirect
      expect(failed.headers.get('content-type')).toMatch(/^text\/html/);
      expect(failed.headers.get('location')).toBeNull();
      const page = await failed.text();
      expect(page).toContain('Temporarily unavailable');
      expect(page).not.toMatch(/at .*\.ts:\d+/);
      expect(rig.logged.some(({ line }) => line.includes('redis: injected'))).toBe(true);
      expect((await authorize(authorizeUrl(rig.app.baseUrl))).status).toBe(303);
    } finally {
      await rig.stop();
    }
  });
});

describe('two instances on one Redis', () => {
  let redis: RedisHandle;
  const adapters: ClosableAdapterFactory[] = [];
  const apps: RunningApp[] = [];

  beforeAll(async () => { redis = await startRedis(); });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await Promise.all(adapters.map((a) => a.close()));
    await redis.stop();
  });

  it('share one budget per address, kept hashed and with a TTL', async () => {
    const keyPrefix = `platform-auth-test:${randomUUID()}:`;
    for (let i = 0; i < 2; i += 1) {
      const adapter = createRedisAdapter({ url: redis.url, keyPrefix });
      adapters.push(adapter);
      apps.push(await startApp({ auth: { adapter, authorizationRateLimit: { perIp: 6, windowSeconds: 600 } } }));
    }
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await authorize(authorizeUrl(apps[i % 2]!.baseUrl))).status);
    expect(statuses).toEqual([...Array.from({ length: 6 }, () => 303), ...Array.from({ length: 6 }, () => 429)]);
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys(`${keyPrefix}${AUTHORIZATION_RATE_MODEL}:*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]).not.toContain('127.0.0.1');
      const ttl = await client.ttl(keys[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(600);
    } finally {
      client.disconnect();
    }
  });
});
