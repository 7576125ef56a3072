/**
 * lib/policies/cors.ts without HTTP: the open endpoints' answers and preflights, and which
 * origins may call the token, revocation and introspection endpoints as a given client.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import Koa from 'koa';
import type { Context } from 'koa';

import {
  OPEN_CORS, PREFLIGHT_MAX_AGE, allowClientOrigin, isLoopbackOrigin, openCors,
} from '../../lib/policies/cors.ts';
import type { CorsClient } from '../../lib/policies/cors.ts';

/** A real Koa context over node's request and response objects, as koa's own tests make them. */
function context(method: string, headers: Record<string, string> = {}): Context {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = '/somewhere';
  req.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const res = new ServerResponse(req);
  return new Koa().createContext(req, res) as Context;
}

const LOOPBACK_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'http://localhost', 'http://127.0.0.1:1'];

describe('isLoopbackOrigin', () => {
  it.each(LOOPBACK_ORIGINS)('%s is one', (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(true);
  });

  it.each([
    'https://localhost:5173', // loopback redirect URIs are http (RFC 8252 §7.3)
    'http://localhost.evil.example:5173',
    'http://127.0.0.2:8080',
    'http://10.0.0.1:8080',
    'https://app.example',
    'http://localhost:5173/', // an origin has no path
    'http://localhost:5173/app',
    'http://user@localhost:5173',
    'null',
    '',
  ])('%j is not', (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(false);
  });
});

describe('allowClientOrigin', () => {
  const nativeApp: CorsClient = { clientAuthMethod: 'none', redirectUris: ['http://127.0.0.1/callback'] };
  const webApp: CorsClient = { clientAuthMethod: 'none', redirectUris: ['https://app.example/callback'] };
  const confidentialLoopback: CorsClient = { clientAuthMethod: 'client_secret_post', redirectUris: ['http://127.0.0.1/callback'] };
  const confidentialWeb: CorsClient = { clientAuthMethod: 'client_secret_post', redirectUris: ['https://app.example/callback'] };

  it.each(LOOPBACK_ORIGINS)('a public client with a loopback redirect URI: allowed from %s, any loopback host and port', (origin) => {
    expect(allowClientOrigin(origin, nativeApp)).toBe(true);
  });

  it.each(['https://app.example', 'https://evil.example', 'http://10.0.0.1:8080', 'https://localhost:5173', 'null'])('a public client with a loopback redirect URI: refused from %s', (origin) => {
    expect(allowClientOrigin(origin, nativeApp)).toBe(false);
  });

  it('a public web client: from the origins of its redirect URIs only (oidc-provider\'s rule)', () => {
    expect(allowClientOrigin('https://app.example', webApp)).toBe(true);
    expect(allowClientOrigin('https://app.example:8443', webApp)).toBe(false);
    expect(allowClientOrigin('https://other.example', webApp)).toBe(false);
    expect(allowClientOrigin('http://localhost:5173', webApp)).toBe(false);
  });

  it('a public client with both kinds of redirect URI: its web origin and any loopback origin', () => {
    const both: CorsClient = { clientAuthMethod: 'none', redirectUris: ['https://app.example/cb', 'http://[::1]/cb'] };
    expect(allowClientOrigin('https://app.example', both)).toBe(true);
    expect(allowClientOrigin('http://127.0.0.1:4000', both)).toBe(true);
    expect(allowClientOrigin('https://other.example', both)).toBe(false);
  });

  it.each([
    ['with a loopback redirect URI', 'http://127.0.0.1', confidentialLoopback],
    ['with a loopback redirect URI', 'http://localhost:5173', confidentialLoopback],
    ['with a web redirect URI', 'https://app.example', confidentialWeb],
  ] as const)('a confidential client %s: never, not even from %s', (_kind, origin, client) => {
    expect(allowClientOrigin(origin, client)).toBe(false);
  });

  it('a client without redirect URIs or auth method: never', () => {
    expect(allowClientOrigin('http://localhost:5173', {})).toBe(false);
    expect(allowClientOrigin('http://localhost:5173', { clientAuthMethod: 'none' })).toBe(false);
  });

  it('the origin must match a web redirect URI\'s origin exactly, not just its host', () => {
    const http: CorsClient = { clientAuthMethod: 'none', redirectUris: ['https://app.example/cb'] };
    expect(allowClientOrigin('http://app.example', http)).toBe(false);
  });

  it('a custom-scheme redirect URI opens no origin (its origin is "null")', () => {
    const custom: CorsClient = { clientAuthMethod: 'none', redirectUris: ['com.example.app:/callback'] };
    expect(allowClientOrigin('null', custom)).toBe(false);
    expect(allowClientOrigin('http://localhost:5173', custom)).toBe(false);
  });
});

describe('OPEN_CORS', () => {
  it('UserInfo: GET and POST with Authorization and Content-Type; the challenge and Retry-After readable', () => {
    expect(OPEN_CORS.userinfo).toEqual({ methods: ['GET', 'POST'], allowHeaders: ['Authorization', 'Content-Type'], exposeHeaders: ['WWW-Authenticate', 'Retry-After'] });
  });

  it('registration: POST with a JSON body; Retry-After of a 429 readable', () => {
    expect(OPEN_CORS.registration).toEqual({ methods: ['POST'], allowHeaders: ['Content-Type'], exposeHeaders: ['Retry-After'] });
  });

  it('protected-resource metadata: GET with the MCP protocol-version header', () => {
    expect(OPEN_CORS.protectedResourceMetadata).toEqual({ methods: ['GET'], allowHeaders: ['MCP-Protocol-Version'], exposeHeaders: [] });
  });

  it('never allows credentials', () => {
    for (const rule of Object.values(OPEN_CORS)) expect(rule.allowHeaders).not.toContain('Cookie');
  });
});

describe('openCors', () => {
  it('answers a preflight with 204, the methods, the headers and the max age, without calling on', async () => {
    const ctx = context('OPTIONS', { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' });
    let called = false;
    await openCors(OPEN_CORS.userinfo)(ctx, async () => { called = true; });
    expect(called).toBe(false);
    expect(ctx.status).toBe(204);
    expect(ctx.response.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Authorization, Content-Type',
      'access-control-max-age': String(PREFLIGHT_MAX_AGE),
      allow: 'GET, POST, OPTIONS',
    });
    expect(ctx.response.headers).not.toHaveProperty('access-control-allow-credentials');
  });

  it('a rule without extra request headers sends no Allow-Headers', async () => {
    const ctx = context('OPTIONS', { 'Access-Control-Request-Method': 'GET' });
    await openCors({ methods: ['GET'], allowHeaders: [], exposeHeaders: [] })(ctx, async () => {});
    expect(ctx.status).toBe(204);
    expect(ctx.response.headers).not.toHaveProperty('access-control-allow-headers');
  });

  it('on an actual request sets Allow-Origin * and the exposed headers, then calls on', async () => {
    const ctx = context('GET', { Origin: 'https://app.example' });
    let calls = 0;
    await openCors(OPEN_CORS.userinfo)(ctx, async () => {
      calls += 1;
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    });
    expect(calls).toBe(1);
    expect(ctx.status).toBe(401);
    expect(ctx.response.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'WWW-Authenticate, Retry-After',
    });
  });

  it('exposes nothing when the rule exposes nothing', async () => {
    const ctx = context('POST');
    await openCors(OPEN_CORS.protectedResourceMetadata)(ctx, async () => {});
    expect(ctx.response.headers['access-control-allow-origin']).toBe('*');
    expect(ctx.response.headers).not.toHaveProperty('access-control-expose-headers');
  });
});
