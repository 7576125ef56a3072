/**
 * The refresh rate per grant (`refreshTokenRateLimit`) over real HTTP, with openid-client as
 * the client, on the memory store and on a real Redis: the default burst, then 429
 * `temporarily_unavailable` with `Retry-After`; the refused refresh leaves its token usable
 * (no rotation, no reuse, the grant alive); each grant's budget is its own; one budget shared
 * by two instances; off; a storage fault while counting (503, the token still usable); the
 * `token.failed` event; what a loop keeps stored.
 */
import { randomUUID } from 'node:crypto';

import * as oidc from 'openid-client';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import { createRedisAdapter } from '../../adapters/redis.ts';
import type { AdapterFactory, ClosableAdapterFactory } from '../../adapters/types.ts';
import { createSecrets } from '../../lib/keys/secrets.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';
import type { PlatformAuthEvent } from '../../lib/index.ts';
import { Browser, signIn } from '../support/browser.ts';
import { MEMBER, STUDENT, postForm } from '../support/flows.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startFaultRig } from '../support/storage-faults.ts';
import { startApp, withApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const SCOPE = 'openid account:read';

let redis: RedisHandle | undefined;
const closables: ClosableAdapterFactory[] = [];

async function redisAdapter(keyPrefix = `refresh-rate-${randomUUID()}:`): Promise<ClosableAdapterFactory> {
  redis ??= await startRedis();
  const adapter = createRedisAdapter({ url: redis.url, keyPrefix, logger: { info() {}, warn() {} } });
  closables.push(adapter);
  return adapter;
}

afterAll(async () => {
  await Promise.all(closables.map((a) => a.close()));
  await redis?.stop();
});

/** openid-client, configured from `app`'s discovery, as the demo's member client. */
function configFor(app: RunningApp) {
  return oidc.discovery(new URL(app.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

/** A sign-in in a browser of its own (so a grant of its own) with openid-client and the real pages. */
async function signInAt(app: RunningApp) {
  const config = await configFor(app);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: MEMBER.redirectUri, scope: SCOPE, resource: app.baseUrl,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
  });
  const redirect = await signIn(new Browser(app.baseUrl), url.href, STUDENT);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(redirect), { pkceCodeVerifier: verifier, expectedState: state }, { resource: app.baseUrl });
  return { config, refreshToken: tokens.refresh_token! };
}

/** A page of the member client's (its redirect URI is on loopback: any loopback origin may call the token endpoint as it). */
const SPA = 'http://127.0.0.1:5173';

/** A refresh over plain HTTP, for the status and headers of a refusal; `origin`: sent from a page of that origin. */
function refresh(app: RunningApp, refreshToken: string, origin?: string) {
  return postForm(`${app.baseUrl}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: MEMBER.clientId }, origin ? { origin } : {});
}

/** The answer is readable to the page of `origin`, `Retry-After` included. */
function expectReadableRetryAfter(response: Response, origin: string) {
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('access-control-expose-headers')?.split(/,\s*/)).toContain('Retry-After');
}

/** Refreshes `times` times along the chain from `refreshToken`; the last refresh token. */
async function refreshChain(config: oidc.Configuration, refreshToken: string, times: number): Promise<string> {
  let token = refreshToken;
  for (let i = 0; i < times; i += 1) token = (await oidc.refreshTokenGrant(config, token)).refresh_token!;
  return token;
}

async function expectRefused(response: Response, maxRetryAfter: number): Promise<number> {
  expect(response.status).toBe(429);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await response.json() as Record<string, unknown>;
  expect(body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/^too many refreshes of this grant; try again in \d+ seconds$/) });
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  return retryAfter;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['memory', 'redis'] as const)('the refresh rate per grant on %s', (store) => {
  const adapter = (): Promise<AdapterFactory> => (store === 'memory' ? Promise.resolve(createMemoryAdapter()) : redisAdapter());

  it('the default budget: perGrant refreshes in a row, then 429 with Retry-After; openid-client sees temporarily_unavailable', async () => {
    await withApp({ adapter: await adapter() }, async (app) => {
      const { perGrant, windowSeconds } = OPTION_DEFAULTS.refreshTokenRateLimit;
      const { config, refreshToken } = await signInAt(app);
      const last = await refreshChain(config, refreshToken, perGrant.default);
      await expectRefused(await refresh(app, last), Math.ceil(windowSeconds.default / perGrant.default));
      // from a browser client's page: when to retry is readable to it
      const fromPage = await refresh(app, last, SPA);
      expectReadableRetryAfter(fromPage, SPA);
      await expectRefused(fromPage, Math.ceil(windowSeconds.default / perGrant.default));
      await expect(oidc.refreshTokenGrant(config, last)).rejects.toMatchObject({ error: 'temporarily_unavailable', status: 429 });
    });
  });

  it('a refused refresh leaves its token as it was: usable once the budget is back, the grant alive', async () => {
    // 3 at once, then one a second; without the grace, a token rotated before the refusal
    // would be reuse when presented again, and revoke the grant
    await withApp({ adapter: await adapter(), refreshTokenGrace: 0, refreshTokenRateLimit: { perGrant: 3, windowSeconds: 3 } }, async (app) => {
      const { config, refreshToken } = await signInAt(app);
      const last = await refreshChain(config, refreshToken, 3);
      const retryAfter = await expectRefused(await refresh(app, last), 1);
      // still refused before the time said, and each refusal rotated nothing
      await expectRefused(await refresh(app, last), 1);
      await sleep(retryAfter * 1000 + 50);
      // the same token: not consumed, not reuse (which would have revoked the grant)
      const next = await oidc.refreshTokenGrant(config, last);
      expect(next.refresh_token).toEqual(expect.any(String));
      expect(next.refresh_token).not.toBe(last);
      const userinfo = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${next.access_token}` } });
      expect(userinfo.status).toBe(200);
    });
  });

  it('concurrent refreshes of one grant: exactly perGrant served, the rest 429, the grant alive', async () => {
    await withApp({ adapter: await adapter(), refreshTokenRateLimit: { perGrant: 5, windowSeconds: 3600 } }, async (app) => {
      const { refreshToken } = await signInAt(app);
      // one token presented twenty times at once: the grace serves its retries, the budget bounds them
      const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(app, refreshToken)));
      expect(answers.map((a) => a.status).sort()).toEqual([...Array(5).fill(200), ...Array(15).fill(429)]);
      const served = await Promise.all(answers.filter((a) => a.status === 200).map((a) => a.json() as Promise<{ access_token: string }>));
      for (const { access_token: token } of served) {
        expect((await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      }
    });
  });

  it('each grant has a budget of its own: another sign-in of the same member and client is not slowed', async () => {
    await withApp({ adapter: await adapter(), refreshTokenRateLimit: { perGrant: 2, windowSeconds: 3600 } }, async (app) => {
      const first = await signInAt(app);
      const drained = await refreshChain(first.config, first.refreshToken, 2);
      await expectRefused(await refresh(app, drained), 1800);
      // another browser: another session, so another grant
      const second = await signInAt(app);
      expect((await refresh(app, second.refreshToken)).status).toBe(200);
    });
  });

  it('refreshTokenRateLimit: false: refreshes beyond the default budget are served', async () => {
    await withApp({ adapter: await adapter(), refreshTokenRateLimit: false }, async (app) => {
      const { config, refreshToken } = await signInAt(app);
      const last = await refreshChain(config, refreshToken, OPTION_DEFAULTS.refreshTokenRateLimit.perGrant.default);
      expect((await refresh(app, last)).status).toBe(200);
    });
  });
});

describe('the refresh rate per grant', () => {
  it('is one budget for every instance on one Redis', async () => {
    const { jwks, cookieKeys } = await createSecrets();
    const keyPrefix = `refresh-rate-shared-${randomUUID()}:`;
    const auth = async () => ({ adapter: await redisAdapter(keyPrefix), jwks: jwks as never, cookieKeys, refreshTokenRateLimit: { perGrant: 3, windowSeconds: 3600 } });
    const a = await startApp({ auth: await auth() });
    const b = await startApp({ baseUrl: a.baseUrl, auth: await auth() });
    try {
      const { refreshToken } = await signInAt(a);
      let token = refreshToken;
      for (const app of [a, b, a]) {
        const answer = await refresh(app, token);
        expect(answer.status).toBe(200);
        token = (await answer.json() as { refresh_token: string }).refresh_token;
      }
      await expectRefused(await refresh(b, token), 1200);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a refusal is a token.failed event with the client and the account, and no token', async () => {
    await withApp({ refreshTokenRateLimit: { perGrant: 1, windowSeconds: 1800 } }, async (app) => {
      const events: PlatformAuthEvent[] = [];
      app.auth.events.on('*', (event) => { events.push(event); });
      const { config, refreshToken } = await signInAt(app);
      const last = await refreshChain(config, refreshToken, 1);
      await expectRefused(await refresh(app, last), 1800);
      const failed = events.filter((e) => e.name === 'token.failed');
      expect(failed).toEqual([expect.objectContaining({
        name: 'token.failed', error: 'temporarily_unavailable', grantType: 'refresh_token', clientId: MEMBER.clientId,
        accountId: expect.any(String), description: expect.stringMatching(/^too many refreshes of this grant/),
      })]);
      expect(JSON.stringify(failed)).not.toContain(last);
    });
  });

  it('a storage failure while counting is a 503, and the token stays usable', async () => {
    const rig = await startFaultRig({ auth: { refreshTokenGrace: 0, refreshTokenRateLimit: { perGrant: 10, windowSeconds: 3600 } } });
    try {
      const { refreshToken } = await signInAt(rig.app);
      rig.arm({ model: 'RefreshRate', method: 'spendBudget', when: 'before', action: 'refuse' });
      const failed = await refresh(rig.app, refreshToken, SPA);
      expect(failed.status).toBe(503);
      expectReadableRetryAfter(failed, SPA);
      expect(await failed.json()).toMatchObject({ error: 'temporarily_unavailable' });
      await rig.recover();
      // never rotated, so not reuse: with the grace off, a rotated one would revoke the grant here
      const retried = await refresh(rig.app, refreshToken);
      expect(retried.status).toBe(200);
      const { refresh_token: next } = await retried.json() as { refresh_token: string };
      expect((await refresh(rig.app, next)).status).toBe(200);
    } finally {
      await rig.stop();
    }
  });

  it('bounds what a refresh loop keeps stored: the refused refreshes store no token', async () => {
    const stored = new Map<string, number>();
    const inner = createMemoryAdapter();
    const counting: AdapterFactory = (model) => {
      const adapter = inner(model);
      return new Proxy(adapter, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target);
          if (typeof value !== 'function') return value;
          if (property !== 'upsert') return value.bind(target);
          return (...args: unknown[]) => {
            stored.set(model, (stored.get(model) ?? 0) + 1);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    };
    await withApp({ adapter: Object.assign(counting, inner), refreshTokenRateLimit: { perGrant: 5, windowSeconds: 3600 } }, async (app) => {
      const { config, refreshToken } = await signInAt(app);
      const last = await refreshChain(config, refreshToken, 5);
      const before = { refresh: stored.get('RefreshToken') ?? 0, access: stored.get('AccessToken') ?? 0 };
      const answers = await Promise.all(Array.from({ length: 50 }, () => refresh(app, last)));
      expect(answers.map((a) => a.status)).toEqual(Array(50).fill(429));
      expect({ refresh: stored.get('RefreshToken') ?? 0, access: stored.get('AccessToken') ?? 0 }).toEqual(before);
    });
  });
});
