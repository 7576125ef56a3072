/**
 * A host route protected by the guard with an operator scope (examples/host/admin-api.ts)
 * accepts an operator token and refuses a member one.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import Koa from 'koa';

import { ADMIN_COURSES_PATH } from '../../examples/host/admin-api.ts';
import { STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { memberToken, operatorToken } from './support.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

const get = (authorization?: string) => fetch(`${app.baseUrl}${ADMIN_COURSES_PATH}`, { headers: authorization ? { authorization } : {} });

describe('the host admin API behind requireBearer({ scopes: [courses:read], audiences: [operator] })', () => {
  it('accepts an operator token and serves the courses of its site', async () => {
    const res = await get(`Bearer ${await operatorToken(app, 'openid courses:read')}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.site).toBe('demo-school');
    expect(body.courses).toHaveLength(31);
    expect(body.courses).toContainEqual({ slug: 'staff-onboarding', title: 'Staff Onboarding', public: false });
    expect(body.courses.map((c: { slug: string }) => c.slug)).not.toContain('music-theory');
  });

  it('refuses an operator token without courses:read with 403 insufficient_scope', async () => {
    const res = await get(`Bearer ${await operatorToken(app, 'openid students:read')}`);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('scope="courses:read"');
  });

  it('refuses a member token with 403 insufficient_scope naming no scope: no member client can be granted courses:read', async () => {
    const res = await get(`Bearer ${await memberToken(app, STUDENT, 'openid account:read')}`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'insufficient_scope', error_description: expect.stringContaining('operator') });
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer error="insufficient_scope", /);
    expect(challenge).not.toContain('scope=');
    expect(challenge).toContain(`resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
  });

  it('refuses a request without a token with 401, its challenge without an error code (RFC 6750 §3.1)', async () => {
    const res = await get();
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_token');
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
  });
});

describe('a host route behind requireBearer({ audiences: [operator] }) alone (no scope)', () => {
  it('refuses a member token 403 insufficient_scope with no scope attribute: an empty scope="" is no scope (RFC 6749 §3.3), and a client stepping up to it would ask for none', async () => {
    const host = new Koa();
    host.use(app.auth.requireBearer({ audiences: ['operator'] }));
    host.use((ctx) => { ctx.body = { ok: true }; });
    const server = createServer(host.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const member = await fetch(url, { headers: { authorization: `Bearer ${await memberToken(app, STUDENT, 'openid account:read')}` } });
      expect(member.status).toBe(403);
      expect(member.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", error_description="this endpoint is for operator clients", resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`,
      );
      expect((await fetch(url, { headers: { authorization: `Bearer ${await operatorToken(app, 'openid')}` } })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
