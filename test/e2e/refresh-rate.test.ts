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

  it('concurrent refreshes of one grant, each on a chain of its own: exactly perGrant served, the rest 429', async () => {
    await withApp({ adapter: await adapter(), refreshTokenRateLimit: { perGrant: 3, windowSeconds: 3600 } }, async (app) => {
      // one browser session: every authorization of the client reuses its grant, each code
      // exchange starts a chain of that grant
      const browser = new Browser(app.baseUrl);
      const config = await configFor(app);
      const tokens: string[] = [];
      for (let i = 0; i < 8; i += 1) {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const url = oidc.buildAuthorizationUrl(config, {
          redirect_uri: MEMBER.redirectUri, scope: SCOPE, resource: app.baseUrl,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
        });
        const redirect = await signIn(browser, url.href, STUDENT);
        tokens.push((await oidc.authorizationCodeGrant(config, new URL(redirect), { pkceCodeVerifier: verifier, expectedState: state }, { resource: app.baseUrl })).refresh_token!);
      }
      const answers = await Promise.all(tokens.map((token) => refresh(app, token)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    });
  });

  it('a retry within the grace of a refresh whose answer was lost is served from the reserve, the budget spent', async () => {
    await withApp({ adapter: await adapter(), refreshTokenRateLimit: { perGrant: 2, windowSeconds: 3600 } }, async (app) => {
      const first = await signInAt(app);
      const refreshToken = await refreshChain(first.config, first.refreshToken, 1);
      // served, and the answer lost on its way: the token is rotated, the budget spent
      expect((await refresh(app, refreshToken)).status).toBe(200);
      // the retry: refused for the budget, it would come back after the grace, as reuse
      const retried = await refresh(app, refreshToken);
      expect(retried.status).toBe(200);
      const { access_token: accessToken, refresh_token: next } = await retried.json() as { access_token: string; refresh_token: string };
      expect((await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200);
      // a token not rotated before draws on no reserve
      await expectRefused(await refresh(app, next), 15);
    });
  });

  it('the loser of two racing refreshes is told to come back within the grace, and is served then', async () => {
    // a grace of 4 s: a refusal says at most 2 s
    await withApp({ adapter: await adapter(), refreshTokenGrace: 4, refreshTokenRateLimit: { perGrant: 2, windowSeconds: 3600 } }, async (app) => {
      const first = await signInAt(app);
      // the budget's last unit left
      const refreshToken = await refreshChain(first.config, first.refreshToken, 1);
      const answers = await Promise.all([refresh(app, refreshToken), refresh(app, refreshToken)]);
      expect(answers.map((a) => a.status)).toContain(200);
      for (const answer of answers.filter((a) => a.status !== 200)) {
        // refused before the other rotated the token (read at once): back within the grace
        const retryAfter = await expectRefused(answer, 2);
        await sleep(retryAfter * 1000);
        const again = await refresh(app, refreshToken);
        expect(again.status).toBe(200);
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
        accountId: 'acc-student', description: expect.stringMatching(/^too many refreshes of this grant/),
      })]);
      expect(JSON.stringify(failed)).not.toContain(last);
    });
  });

  it('a storage failure while counting is a 503, and the token stays usable', async () => {
    const rig = await startFaultRig({ auth: { refreshTokenGrace: 0, refreshTokenRateLimit: { perGrant: 10, windowSeconds: 3600 } } });
    try {
      const { refreshToken } = await signInAt(rig.app);
      // on a single Redis the count is made by the token's read (one script)
      rig.arm({ model: 'RefreshToken', method: 'findSpending', when: 'before', action: 'refuse' });
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
