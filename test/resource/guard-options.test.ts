/**
 * A bearer guard with a scope no token can carry (unknown, or outside the allowed audiences'
 * scopes), or no audience at all, refuses every caller at run time, so it is refused when the
 * guard is built, with a "did you mean" for a slip of the keyboard; the
 * caller's scopes serialise as an array; and `ctx.state.auth` is typed for host routes.
 */
import Koa from 'koa';
import type { Middleware } from 'koa';

import { ConfigurationError, describeBearerRoute, toScopes } from '../../lib/index.ts';
import type { BearerAuth } from '../../lib/index.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

type IsAny<T> = 0 extends 1 & T ? true : false;

let app: RunningApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

function refusal(build: () => unknown): string {
  try {
    build();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('auth.requireBearer()', () => {
  it('refuses an unknown scope with a did-you-mean hint', () => {
    expect(refusal(() => app.auth.requireBearer({ scopes: ['courses:raed'] }))).toBe(
      'auth.requireBearer(): the scope "courses:raed" is not in the scope catalogue, so no token could carry it and every caller would get 403; did you mean "courses:read"?',
    );
  });

  it('refuses a scope nothing is close to without a guess', () => {
    expect(refusal(() => app.auth.requireBearer({ scopes: ['everything'] }))).not.toMatch(/did you mean/);
  });

  it('refuses unknown option keys, bad audiences and a non-boolean optional', () => {
    expect(refusal(() => app.auth.requireBearer({ scope: ['courses:read'] } as never))).toMatch(/auth\.requireBearer\(\)\.scope is not a known option; use one of scopes, audiences, optional; did you mean "scopes"\?/);
    expect(refusal(() => app.auth.requireBearer({ audiences: ['admin'] } as never))).toMatch(/audiences must be "member" or "operator"; got "admin"/);
    expect(refusal(() => app.auth.requireBearer({ optional: 'yes' } as never))).toMatch(/optional must be true or false/);
  });

  it('accepts known scopes and audiences', () => {
    expect(typeof app.auth.requireBearer({ scopes: ['courses:read'], audiences: ['operator'], optional: true })).toBe('function');
    expect(typeof app.auth.requireBearer({ scopes: ['account:read'], audiences: ['member', 'operator'] })).toBe('function');
    expect(typeof app.auth.requireBearer({ scopes: ['openid', 'email'], audiences: ['member'] })).toBe('function');
    expect(typeof app.auth.requireBearer({ scopes: ['account:read'] })).toBe('function');
  });

  it.each([
    ['a member-only scope for operators', { scopes: ['account:read'], audiences: ['operator' as const] }, 'no token could carry the scopes account:read (operator tokens cannot carry account:read)'],
    ['an operator-only scope for members', { scopes: ['courses:read'], audiences: ['member' as const] }, 'no token could carry the scopes courses:read (member tokens cannot carry courses:read)'],
    ['scopes of both audiences together', { scopes: ['courses:read', 'account:read'] }, 'no token could carry the scopes courses:read account:read (member tokens cannot carry courses:read; operator tokens cannot carry account:read)'],
  ])('refuses %s: every caller would get 403 (spec §2.1: account:read is the member audience\'s only)', (_label, options, words) => {
    expect(refusal(() => app.auth.requireBearer(options))).toBe(`auth.requireBearer(): ${words}, so every caller would get 403; split the route by audience or drop a scope`);
  });

  it('refuses an empty audiences, which no token passes', () => {
    expect(refusal(() => app.auth.requireBearer({ audiences: [] }))).toMatch(/^auth\.requireBearer\(\): audiences is empty, so no token could pass and every caller would be refused; leave it out for both/);
  });
});

describe('describeBearerRoute()', () => {
  it('refuses an unknown scope with the same hint', () => {
    expect(refusal(() => describeBearerRoute({ path: '/admin/courses', method: 'GET', summary: 'List', scopes: ['courses:raed'] })))
      .toMatch(/^describeBearerRoute: GET \/admin\/courses: the scope "courses:raed" is not in the scope catalogue.*did you mean "courses:read"\?$/);
  });
});

describe('the caller', () => {
  it('serialises its scopes as an array', () => {
    const scopes = toScopes(['openid', 'courses:read']);
    expect(scopes.has('courses:read')).toBe(true);
    expect(JSON.parse(JSON.stringify({ scopes }))).toEqual({ scopes: ['openid', 'courses:read'] });
  });

  it('is typed as ctx.state.auth in a host route (compile-time: npm run typecheck)', () => {
    // no cast: the package augments Koa's DefaultState
    const handler: Middleware = (ctx) => {
      // fails to compile if ctx.state.auth were `any` (Koa's default state) rather than the caller
      const typed: IsAny<typeof ctx.state.auth> extends false ? true : never = true;
      const auth: BearerAuth | undefined = ctx.state.auth;
      expect(typed).toBe(true);
      ctx.body = { site: auth?.site, scopes: auth?.scopes };
    };
    const koa = new Koa();
    koa.use(handler);
    expect(koa.middleware).toHaveLength(1);
  });
});
