/**
 * An unexpected failure inside oidc-provider (answered 500 server_error with no detail) is
 * written to the library's logger with the route and the proxy's request id, never with the
 * request's code, verifier or any secret (nor a resume's uid, the interaction cookies' value):
 * a host can see why a connector failed.
 */
import { connect } from 'node:net';

import { jest } from '@jest/globals';

import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterFactory } from '../../adapters/types.ts';
import { createAccountStore } from '../../examples/host/seed.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl, obtainCode, postForm } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let broken = false;

beforeAll(async () => {
  const accounts = createAccountStore();
  app = await startApp({
    auth: {
      accounts: {
        authenticate: (email, password, context) => accounts.authenticate(email, password, context),
        async findById(id) {
          if (broken) throw new Error('the account directory is misconfigured');
          return accounts.findById(id);
        },
      },
    },
  });
});
afterAll(() => app.stop());

it('logs a provider server_error once, with route and request id, and no secret of the request', async () => {
  const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
  broken = true;
  const before = app.warnings.length;
  const res = await postForm(`${app.baseUrl}/api/oauth/token`, {
    grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: MEMBER.redirectUri, client_id: MEMBER.clientId,
  }, { 'x-request-id': 'req-42' });
  broken = false;
  expect(res.status).toBe(500);
  expect((await res.json()).error).toBe('server_error');
  const lines = app.warnings.slice(before).filter((w) => w.includes('server_error'));
  expect(lines).toEqual([
    'platform-auth: oidc-provider answered server_error to POST /api/oauth/token (token) [request req-42]: Error: the account directory is misconfigured',
  ]);
  expect(lines[0]).not.toContain(code);
  expect(lines[0]).not.toContain(verifier);
});

it('logs a failed resume by its route, never its uid (the value of the interaction cookies)', async () => {
  const browser = new Browser(app.baseUrl);
  const authorize = await browser.request(buildAuthorizeUrl(app.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }));
  const signIn = await browser.navigate(authorize.headers.get('location')!);
  if (!isPage(signIn)) throw new Error('expected the sign-in page');
  const cookies = authorize.headers.getSetCookie().filter((c) => c.startsWith('_interaction')).map((c) => c.split(';')[0]!.split('=')[1]!);
  expect(cookies.length).toBeGreaterThan(0);
  // the sign-in's POST, not followed: it answers the redirect to the resume
  const form = findForm(signIn.html, '/login');
  const login = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, email: STUDENT.email, password: STUDENT.password }).toString(),
  });
  const resume = new URL(login.headers.get('location')!, app.baseUrl).href;
  expect(new URL(resume).pathname).toMatch(/^\/oauth\/authorize\/[\w-]+$/);
  const uid = resume.split('/').pop()!;
  broken = true;
  const before = app.warnings.length;
  const res = await browser.request(resume);
  broken = false;
  expect(res.status).toBe(500);
  const lines = app.warnings.slice(before).filter((w) => w.includes('server_error'));
  expect(lines).toEqual([expect.stringMatching(/^platform-auth: oidc-provider answered server_error to GET \/oauth\/authorize\/:uid \(resume\) \[request [^\]]+\]: Error: the account directory is misconfigured$/)]);
  for (const secret of [uid, ...cookies]) expect(lines[0]).not.toContain(secret);
});

/**
 * oidc-provider saves the session after its error handler has run, so a session store that
 * fails fails twice: inside the handler (a server_error) and after it, where the error escapes
 * to the provider's Koa application. Koa printed that one with console.error, past the logger.
 */
describe('an error escaping oidc-provider\'s error handler', () => {
  let escaping: RunningApp;
  /** the messages the next Session writes fail with, one per write; none: the writes succeed */
  let failures: string[] = [];

  beforeAll(async () => {
    const memory = createMemoryAdapter();
    const adapter = ((model: string) => {
      const inner = memory(model);
      if (model !== 'Session') return inner;
      return new Proxy(inner, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property);
          if (typeof value !== 'function') return value;
          if (property !== 'upsert') return value.bind(target);
          return (...args: unknown[]) => {
            const message = failures.shift();
            if (message === undefined) return (value as (...a: unknown[]) => unknown).apply(target, args);
            const error = new Error(message);
            error.name = 'ReplyError';
            return Promise.reject(error);
          };
        },
      });
    }) as AdapterFactory;
    escaping = await startApp({ auth: { adapter } });
  });
  afterAll(() => escaping.stop());

  /** A silent authorization of a signed-in browser whose session writes fail with `messages`. */
  async function failingAuthorization(messages: string[]) {
    const browser = new Browser(escaping.baseUrl);
    await obtainCode(escaping.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT, browser);
    const printed = jest.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const before = escaping.warnings.length;
      failures = [...messages];
      const url = buildAuthorizeUrl(escaping.baseUrl, MEMBER, { scope: 'openid account:read', challenge: pkcePair().challenge, state: 's', extra: { prompt: 'none' } });
      const res = await browser.request(url, { headers: { 'x-request-id': 'req-escape' } });
      await res.arrayBuffer();
      // Koa emits the escaped error before it answers; give a late one time to show
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: res.status, lines: escaping.warnings.slice(before), printed: printed.mock.calls };
    } finally {
      failures = [];
      printed.mockRestore();
    }
  }

  it('is logged once, with the request id, and nothing goes to console.error', async () => {
    const noperm = 'NOPERM this user has no permissions to access one of the keys used as arguments';
    const { status, lines, printed } = await failingAuthorization([noperm, noperm]);
    expect(status).toBe(500);
    expect(failures).toEqual([]);
    expect(lines).toEqual([`platform-auth: oidc-provider answered server_error to GET /oauth/authorize (authorization) [request req-escape]: ReplyError: ${noperm}`]);
    expect(printed).toEqual([]);
  });

  it('is logged when it is not the failure the request already logged', async () => {
    const { lines, printed } = await failingAuthorization(['NOPERM first write', 'LOADING second write']);
    expect(lines).toEqual([
      'platform-auth: oidc-provider answered server_error to GET /oauth/authorize (authorization) [request req-escape]: ReplyError: NOPERM first write',
      'platform-auth: oidc-provider answered server_error to GET /oauth/authorize (authorization) [request req-escape]: ReplyError: LOADING second write',
    ]);
    expect(printed).toEqual([]);
  });

  it('leaves client errors (expose, 404) unlogged, as Koa did', () => {
    const before = escaping.warnings.length;
    const provider = escaping.auth.provider as unknown as import('koa');
    provider.emit('error', Object.assign(new Error('bad request'), { status: 400, expose: true }), { method: 'GET', path: '/x' });
    provider.emit('error', Object.assign(new Error('not found'), { status: 404 }), { method: 'GET', path: '/x' });
    expect(escaping.warnings.slice(before)).toEqual([]);
    expect(provider.listeners('error')).not.toContain(provider.onerror);
  });

  it('logs a connection error whose request still has its socket (a store\'s ECONNRESET is a failure)', () => {
    const before = escaping.warnings.length;
    const provider = escaping.auth.provider as unknown as import('koa');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    provider.emit('error', reset, { method: 'GET', path: '/oauth/authorize', req: { socket: { destroyed: false } } });
    expect(escaping.warnings.slice(before)).toEqual(['platform-auth: oidc-provider answered server_error to GET /oauth/authorize: Error: read ECONNRESET']);
  });
});

describe('a client that resets its connection while its request runs', () => {
  let slow: RunningApp;
  beforeAll(async () => {
    const memory = createMemoryAdapter();
    // every read and write takes 150 ms: the reset lands while the provider works on the request
    const adapter = ((model: string) => {
      const inner = memory(model);
      return new Proxy(inner, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property);
          if (typeof value !== 'function') return value;
          if (property !== 'find' && property !== 'upsert') return value.bind(target);
          return async (...args: unknown[]) => {
            await new Promise((resolve) => setTimeout(resolve, 150));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    }) as AdapterFactory;
    slow = await startApp({ auth: { adapter } });
  });
  afterAll(() => slow.stop());

  it('is no server error: nothing is written to the logger', async () => {
    // the host app's own Koa prints the reset too (its default handler, not the library's)
    const printed = jest.spyOn(console, 'error').mockImplementation(() => {});
    const koaErrors: unknown[] = [];
    const provider = slow.auth.provider as unknown as import('koa');
    const seen = (error: unknown) => koaErrors.push(error);
    provider.on('error', seen);
    try {
      const before = slow.warnings.length;
      const url = new URL(buildAuthorizeUrl(slow.baseUrl, MEMBER, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }));
      for (let i = 0; i < 3; i += 1) {
        await new Promise<void>((resolve) => {
          const socket = connect(slow.port, '127.0.0.1', () => {
            socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
            setTimeout(() => { socket.resetAndDestroy(); resolve(); }, 50);
          });
          socket.on('error', () => resolve());
        });
      }
      // the provider finishes each request after its client is gone
      for (let i = 0; i < 20 && koaErrors.length < 3; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      // Koa did report each reset: what is checked below is that none became a server error
      expect(koaErrors.map((e) => (e as { code?: string }).code)).toEqual(['ECONNRESET', 'ECONNRESET', 'ECONNRESET']);
      expect(slow.warnings.slice(before)).toEqual([]);
    } finally {
      provider.off('error', seen);
      printed.mockRestore();
    }
  });
});
