/**
 * lib/policies/client-auth.ts without HTTP: HTTP Basic client authentication at the
 * client-authenticated endpoints is refused with 401 invalid_client (RFC 6749 §5.2).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import Koa from 'koa';
import type { Context } from 'koa';

import { ENDPOINTS } from '../../lib/endpoints.ts';
import { CLIENT_AUTHENTICATED_PATHS, refuseBasicClientAuth, usesBasicClientAuth } from '../../lib/policies/client-auth.ts';

/** A real Koa context over node's request and response objects, as koa's own tests make them. */
function context(path: string, headers: Record<string, string> = {}): Context {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = path;
  req.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const res = new ServerResponse(req);
  return new Koa().createContext(req, res) as Context;
}

const BASIC = `Basic ${Buffer.from('app:secret').toString('base64')}`;

describe('CLIENT_AUTHENTICATED_PATHS', () => {
  it('are the token, revocation and introspection endpoints', () => {
    expect([...CLIENT_AUTHENTICATED_PATHS].sort())
      .toEqual([ENDPOINTS.token.path, ENDPOINTS.revocation.path, ENDPOINTS.introspection.path].sort());
  });
});

describe('usesBasicClientAuth', () => {
  it.each([ENDPOINTS.token.path, ENDPOINTS.revocation.path, ENDPOINTS.introspection.path])('is true for HTTP Basic at %s', (path) => {
    expect(usesBasicClientAuth(context(path, { Authorization: BASIC }))).toBe(true);
  });

  it.each(['basic', 'BASIC', 'bAsIc'])('matches the scheme %s case-insensitively', (scheme) => {
    expect(usesBasicClientAuth(context(ENDPOINTS.token.path, { Authorization: `${scheme} abc` }))).toBe(true);
  });

  it('ignores the query string', () => {
    expect(usesBasicClientAuth(context(`${ENDPOINTS.token.path}?x=1`, { Authorization: BASIC }))).toBe(true);
  });

  it.each([
    ['no Authorization header', {}],
    ['a Bearer token', { Authorization: 'Bearer abc' }],
    ['a DPoP token', { Authorization: 'DPoP abc' }],
    ['a scheme that starts like Basic', { Authorization: 'Basically abc' }],
    ['Basic without credentials', { Authorization: 'Basic' }],
    ['Basic not at the start', { Authorization: 'Bearer x, Basic abc' }],
  ])('is false at the token endpoint with %s', (_label, headers) => {
    expect(usesBasicClientAuth(context(ENDPOINTS.token.path, headers))).toBe(false);
  });

  it.each([
    ENDPOINTS.userinfo.path, ENDPOINTS.registration.path, ENDPOINTS.authorization.path, ENDPOINTS.accountApi.path,
    `${ENDPOINTS.token.path}/`, ENDPOINTS.token.path.toUpperCase(), '/',
  ])('is false for HTTP Basic at %s', (path) => {
    expect(usesBasicClientAuth(context(path, { Authorization: BASIC }))).toBe(false);
  });
});

describe('refuseBasicClientAuth', () => {
  it('answers 401 invalid_client with a Basic challenge, never cached', () => {
    const ctx = context(ENDPOINTS.token.path, { Authorization: BASIC });
    refuseBasicClientAuth(ctx);
    expect(ctx.status).toBe(401);
    expect(ctx.response.get('WWW-Authenticate')).toBe('Basic realm="client authentication", error="invalid_client"');
    expect(ctx.response.get('Cache-Control')).toBe('no-store');
    expect(ctx.body).toEqual({
      error: 'invalid_client',
      error_description: expect.stringMatching(/client_secret_basic is not supported.*client_secret_post/),
    });
    expect(ctx.response.type).toBe('application/json');
  });

  it('writes the same answer through a minimal ctx', () => {
    const headers: Record<string, string> = {};
    const ctx = {
      path: ENDPOINTS.revocation.path,
      get: () => BASIC,
      set(name: string, value: string) { headers[name.toLowerCase()] = value; },
      status: 200,
      body: undefined as unknown,
    };
    refuseBasicClientAuth(ctx as unknown as Context);
    expect(ctx.status).toBe(401);
    expect(headers).toEqual({
      'www-authenticate': 'Basic realm="client authentication", error="invalid_client"',
      'cache-control': 'no-store',
    });
    expect(ctx.body).toMatchObject({ error: 'invalid_client' });
    expect(Object.keys(ctx.body as object).sort()).toEqual(['error', 'error_description']);
  });
});
