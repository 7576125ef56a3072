/**
 * Variant B registration limits over real HTTP, on the demo host: the per-address rate
 * (defaults; the client address behind a proxy; off), the metadata caps and the https rule,
 * the body cap with and without Content-Length, and one rate budget shared by two instances
 * on one Redis.
 */
import { request } from 'node:http';

import { createRedisAdapter } from '../../adapters/redis.ts';
import type { ClosableAdapterFactory } from '../../adapters/types.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';
import { REGISTRATION_LIMITS } from '../../lib/policies/registration-limits.ts';
import { sharedDeployment } from '../support/instances.ts';
import { startRedis } from '../support/redis-server.ts';
import type { RedisHandle } from '../support/redis-server.ts';
import { startApp, withApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const CLIENT = { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', client_name: 'Desk Agent' };
const DEFAULT_PER_IP = OPTION_DEFAULTS.registration.rateLimit.perIp.default;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function register(app: RunningApp, body: unknown = CLIENT, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${app.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as Record<string, unknown>, headers: res.headers };
}

/** `count` registrations, `parallel` at a time, spread over `apps` in turn. */
async function registerMany(apps: RunningApp[], count: number, parallel = 10): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => register(apps[(i + j) % apps.length]!));
    answers.push(...await Promise.all(batch));
  }
  return answers;
}

function expectThrottled(answer: Answer, maxRetryAfter: number) {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/too many registrations/) });
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  // browser clients read the refusal too (registration is open to every origin)
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  // and when to retry: Retry-After is not a CORS-safelisted response header
  expect(answer.headers.get('access-control-expose-headers')).toMatch(/(?:^|,\s*)Retry-After(?:,|$)/i);
}

describe('the registration rate per client address', () => {
  it('200 registrations from one address in a minute: the default budget gets 201, the excess 429 with Retry-After', async () => {
    await withApp({ registration: { variant: 'open' } }, async (app) => {
      const started = Date.now();
      const answers = await registerMany([app], 200);
      expect(Date.now() - started).toBeLessThan(60_000);
      const created = answers.filter((a) => a.status === 201);
      expect(created).toHaveLength(DEFAULT_PER_IP);
      expect(new Set(created.map((a) => a.body.client_id)).size).toBe(DEFAULT_PER_IP);
      const refused = answers.filter((a) => a.status !== 201);
      expect(refused).toHaveLength(200 - DEFAULT_PER_IP);
      // a full bucket refills one registration every windowSeconds / perIp = 120 s
      for (const answer of refused) expectThrottled(answer, 120);
    });
  });

  it('with proxy, counts the address from X-Forwarded-For; without it, never reads that header', async () => {
    const limit = { perIp: 2, windowSeconds: 600 };
    await withApp({ registration: { variant: 'open', rateLimit: limit }, proxy: true }, async (app) => {
      const from = (ip: string) => register(app, CLIENT, { 'x-forwarded-for': ip });
      expect((await from('203.0.113.7')).status).toBe(201);
      expect((await from('198.51.100.1, 203.0.113.7')).status).toBe(201);
      expectThrottled(await from('203.0.113.7'), 300);
      // another client behind the same proxy has its own budget
      expect((await from('203.0.113.8')).status).toBe(201);
    });
    await withApp({ registration: { variant: 'open', rateLimit: limit } }, async (app) => {
      expect((await register(app, CLIENT, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(201);
      expect((await register(app, CLIENT, { 'x-forwarded-for': '203.0.113.2' })).status).toBe(201);
      expectThrottled(await register(app, CLIENT, { 'x-forwarded-for': '203.0.113.3' }), 300);
    });
  });

  it('rateLimit: false turns it off', async () => {
    await withApp({ registration: { variant: 'open', rateLimit: false } }, async (app) => {
      const answers = await registerMany([app], DEFAULT_PER_IP + 10);
      expect(answers.map((a) => a.status)).toEqual(Array(DEFAULT_PER_IP + 10).fill(201));
    });
  });
});

describe('the metadata caps', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await startApp({ auth: { registration: { variant: 'open', rateLimit: false } } }); });
  afterAll(() => app.stop());

  const longUri = `https://app.example/${'p'.repeat(REGISTRATION_LIMITS.uriLength)}`;
  it.each([
    ['a 101-character client_name', { ...CLIENT, client_name: 'n'.repeat(101) }, /client_name must be at most 100 characters/],
    ['11 redirect_uris', { ...CLIENT, redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb/${i}`) }, /at most 10 redirect_uris/],
    ['a redirect URI over 2000 characters', { ...CLIENT, redirect_uris: [longUri] }, /each of redirect_uris must be at most 2000 characters/],
    ['a client_uri over 2000 characters', { ...CLIENT, client_uri: longUri }, /client_uri must be at most 2000 characters/],
    ['metadata over 8 KiB', { ...CLIENT, contacts: Array.from({ length: 400 }, (_, i) => `person-${i}@example.com`) }, /client metadata must be at most 8192 bytes/],
    ['an http logo_uri', { ...CLIENT, logo_uri: 'http://app.example/logo.png' }, /^logo_uri must be an https URL$/],
    ['an http tos_uri', { ...CLIENT, tos_uri: 'http://app.example/terms' }, /^tos_uri must be an https URL$/],
    ['an http policy_uri', { ...CLIENT, policy_uri: 'http://app.example/privacy' }, /^policy_uri must be an https URL$/],
    ['an http client_uri', { ...CLIENT, client_uri: 'http://app.example/' }, /^client_uri must be an https URL$/],
  ])('refuses %s with invalid_client_metadata', async (_label, body, description) => {
    const answer = await register(app, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_client_metadata');
    expect(answer.body.error_description).toMatch(description);
  });

  // (an unknown field is dropped by the provider before any check reads it: not stored, no error)
  it.each(['contacts', 'client_name', 'redirect_uris', 'jwks'])('refuses %s nested 7000 deep (under the body cap) with invalid_client_metadata, not a 500', async (field) => {
    const before = app.warnings.length;
    const body = `${JSON.stringify(CLIENT).slice(0, -1)},"${field}":${'['.repeat(7000)}${']'.repeat(7000)}}`;
    const res = await fetch(`${app.baseUrl}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_client_metadata', error_description: 'the client metadata must not nest deeper than 8 levels' });
    expect(app.warnings.slice(before)).toEqual([]);
  });

  it('takes a JWKS with x5c chains (the deepest metadata RFC 7591 has) and stores it', async () => {
    const jwks = { keys: [{ kty: 'RSA', kid: 'k1', use: 'sig', n: 'sXch', e: 'AQAB', x5c: ['MIIC'] }] };
    const answer = await register(app, { ...CLIENT, jwks });
    expect(answer.status).toBe(201);
    expect(answer.body.jwks).toEqual(jwks);
  });

  it('accepts https URIs and values at the caps, and stores them', async () => {
    const body = {
      ...CLIENT,
      client_name: 'n'.repeat(100),
      redirect_uris: Array.from({ length: 10 }, (_, i) => `https://app.example/cb/${i}`),
      logo_uri: 'https://app.example/logo.png', tos_uri: 'https://app.example/terms',
      policy_uri: 'https://app.example/privacy', client_uri: 'https://app.example/',
    };
    const answer = await register(app, body);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ logo_uri: body.logo_uri, tos_uri: body.tos_uri, policy_uri: body.policy_uri, client_uri: body.client_uri });
    expect((await app.auth.provider.Client.find(String(answer.body.client_id)))?.clientName).toBe(body.client_name);
  });

  it('refuses a body over 16 KiB by its Content-Length with 413, before reading it', async () => {
    const padding = 'x'.repeat(REGISTRATION_LIMITS.bodyBytes);
    const answer = await register(app, { ...CLIENT, software_statement_note: padding });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'invalid_request', error_description: 'the request body must be at most 16384 bytes' });
  });

  /** POSTs `body` to the registration endpoint in two chunks, without Content-Length. */
  function registerChunked(target: RunningApp, body: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = request(`${target.baseUrl}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => { text += chunk.toString(); });
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 5000));
      req.end(body.slice(5000));
    });
  }

  it('a chunked body (no Content-Length) is read, and what would be stored is still capped', async () => {
    const body = JSON.stringify({ ...CLIENT, contacts: Array.from({ length: 1000 }, (_, i) => `person-${i}@example.com`) });
    expect(Buffer.byteLength(body)).toBeGreaterThan(REGISTRATION_LIMITS.bodyBytes);
    const answer = await registerChunked(app, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_client_metadata');
    expect(answer.body.error_description).toMatch(/client metadata must be at most 8192 bytes/);
  });

  it('a chunked body over the provider\'s own 56 KiB is answered as /auth.md says', async () => {
    const body = JSON.stringify({ ...CLIENT, padding: 'x'.repeat(60 * 1024) });
    const answer = await registerChunked(app, body);
    expect(answer).toEqual({ status: 400, body: { error: 'invalid_client_metadata', error_description: 'failed to parse the request body' } });
    const authMd = await (await fetch(`${app.baseUrl}/auth.md`)).text();
    expect(authMd).toContain('one sent without it (chunked) is read up to the provider\'s own 56 KiB, beyond which it is `invalid_client_metadata` ("failed to parse the request body")');
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

  it('share one budget per address: 200 registrations spread over both, the default budget in all', async () => {
    const deployment = await sharedDeployment();
    for (let i = 0; i < 2; i += 1) {
      const adapter = createRedisAdapter({ url: redis.url, keyPrefix: deployment.keyPrefix });
      adapters.push(adapter);
      const app = await startApp({ auth: { adapter, registration: { variant: 'open' } } });
      apps.push(app);
    }
    const answers = await registerMany(apps, 200);
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(DEFAULT_PER_IP);
    // both instances served some of them, from the one budget
    const servedBy = (i: number) => answers.filter((a, n) => n % 2 === i && a.status === 201).length;
    expect(servedBy(0)).toBeGreaterThan(0);
    expect(servedBy(1)).toBeGreaterThan(0);
    for (const answer of answers.filter((a) => a.status !== 201)) expectThrottled(answer, 120);
  });
});
