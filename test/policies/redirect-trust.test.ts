/**
 * lib/policies/redirect-trust.ts without a server: which clients are trusted with error
 * redirects before the user has acted, and how the provider middleware turns an error
 * redirect of the authorization endpoint into the error page (driven with a real Koa context
 * and an event emitter standing in for the provider).
 */
import { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

import Koa from 'koa';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';

import { renderProviderError } from '../../lib/pages/error-page.ts';
import { afterProviderAnswer } from '../../lib/provider/after-answer.ts';
import { isTrustedClient, mayRedirectError, withholdErrorRedirects } from '../../lib/policies/redirect-trust.ts';
import type { RedirectTrust, RedirectTrustClient, RenderErrorPage } from '../../lib/policies/redirect-trust.ts';

const DOC = 'https://tools.example/client.json';
const reviewedCalls: string[] = [];
const trust: RedirectTrust = {
  configuredClients: new Set(['vendor-app', 'partner-app']),
  async isReviewed(clientId) {
    reviewedCalls.push(clientId);
    return clientId === DOC;
  },
};

const registered: RedirectTrustClient = { clientId: 'Zx81-registered', audience: 'operator' };
const member: RedirectTrustClient = { clientId: 'mc_abc', audience: 'member', org_id: 'demo-school' };
const reviewed: RedirectTrustClient = { clientId: DOC, audience: 'operator', clientIdMetadataDocument: true };
const unreviewed: RedirectTrustClient = { clientId: 'https://evil.example/client.json', audience: 'operator', clientIdMetadataDocument: true };

beforeEach(() => { reviewedCalls.length = 0; });

describe('isTrustedClient', () => {
  it.each([
    ['a configured client (a vendor platform)', { clientId: 'vendor-app', audience: 'operator' }, true],
    ['a member client (only a site operator creates them)', member, true],
    ['a reviewed metadata-document client', reviewed, true],
    ['a registered client (RFC 7591)', registered, false],
    ['an unreviewed metadata-document client', unreviewed, false],
    ['a client of no known kind', { clientId: 'x' }, false],
  ] as const)('%s', async (_label, client, expected) => {
    expect(await isTrustedClient(client, trust)).toBe(expected);
  });

  it('asks about review for metadata-document clients only', async () => {
    await isTrustedClient(registered, trust);
    await isTrustedClient(member, trust);
    expect(reviewedCalls).toEqual([]);
    await isTrustedClient(unreviewed, trust);
    expect(reviewedCalls).toEqual([unreviewed.clientId]);
  });

  it('a document with a https client_id that is also configured is trusted without the review lookup', async () => {
    expect(await isTrustedClient({ clientId: 'partner-app', clientIdMetadataDocument: false }, trust)).toBe(true);
    expect(reviewedCalls).toEqual([]);
  });

  it('a failing review lookup counts as not reviewed', async () => {
    const failing: RedirectTrust = { ...trust, isReviewed: async () => { throw new Error('db down'); } };
    expect(await isTrustedClient(reviewed, failing)).toBe(false);
  });

  it('only a literal true counts as reviewed', async () => {
    const truthy: RedirectTrust = { ...trust, isReviewed: async () => 'yes' as unknown as boolean };
    expect(await isTrustedClient(reviewed, truthy)).toBe(false);
  });
});

describe('mayRedirectError', () => {
  it.each([
    'http://127.0.0.1:5000/callback',
    'http://localhost/cb',
    'http://[::1]:8080/cb',
  ])('an untrusted client may still get errors at the loopback URI %s', async (uri) => {
    expect(await mayRedirectError(registered, uri, trust)).toBe(true);
  });

  it.each([
    'https://evil.example/cb',
    'https://127.0.0.1/cb',
    'http://127.0.0.1.evil.example/cb',
    'http://evil.example/cb',
  ])('an untrusted client gets no redirect to %s', async (uri) => {
    expect(await mayRedirectError(registered, uri, trust)).toBe(false);
    expect(await mayRedirectError(unreviewed, uri, trust)).toBe(false);
  });

  it('a trusted client keeps its redirect anywhere', async () => {
    expect(await mayRedirectError(member, 'https://buddy.example/cb', trust)).toBe(true);
    expect(await mayRedirectError(reviewed, 'https://tools.example/cb', trust)).toBe(true);
  });
});

describe('withholdErrorRedirects', () => {
  const koa = new Koa();

  function setup(renderError: RenderErrorPage = renderProviderError) {
    const provider = new EventEmitter();
    const steps = afterProviderAnswer([withholdErrorRedirects(provider as unknown as Provider, trust, renderError)]);
    const middleware = (ctx: Context, next: () => Promise<void>) => next().then(() => steps(ctx));
    return { provider, middleware };
  }

  function contextFor(route: string, client: RedirectTrustClient | undefined, redirectUri = 'https://evil.example/cb'): Context {
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    req.url = '/oauth/authorize';
    const ctx = koa.createContext(req, new ServerResponse(req));
    (ctx as unknown as { oidc: object }).oidc = { route, client, params: { redirect_uri: redirectUri, state: 'st' } };
    return ctx;
  }

  /** Runs the middleware around a stand-in for the provider's answer: the error emitted, then the redirect written. */
  async function answer(provider: EventEmitter, middleware: ReturnType<typeof setup>['middleware'], ctx: Context, err: Error, event = 'authorization.error') {
    await middleware(ctx, async () => {
      provider.emit(event, ctx, err);
      ctx.status = 303;
      ctx.redirect('https://evil.example/cb?error=x&state=st');
    });
  }

  it('replaces the error redirect by the error page, for an untrusted client', async () => {
    const { provider, middleware } = setup();
    const ctx = contextFor('authorization', registered);
    await answer(provider, middleware, ctx, new errors.InvalidScope('the scope teleport:write is not offered by this server', 'teleport:write'));
    expect(ctx.status).toBe(400);
    expect(ctx.response.get('Location')).toBeFalsy();
    expect(ctx.type).toBe('text/html');
    expect(ctx.body).toContain('invalid_scope: the scope teleport:write is not offered by this server');
    expect(ctx.body).not.toContain('evil.example');
    expect(ctx.response.get('Content-Security-Policy')).toContain("form-action 'self'");
  });

  it('writes the page with the renderer it is given (the provider\'s renderError: language and brand), never its own', async () => {
    const rendered: unknown[] = [];
    const { provider, middleware } = setup(async (ctx, out) => {
      rendered.push(out);
      ctx.body = `the configured error page (${ctx.status})`;
    });
    const ctx = contextFor('authorization', registered);
    await answer(provider, middleware, ctx, new errors.InvalidScope('the scope teleport:write is not offered by this server', 'teleport:write'));
    expect(rendered).toEqual([{ error: 'invalid_scope', error_description: 'the scope teleport:write is not offered by this server' }]);
    expect(ctx.body).toBe('the configured error page (400)');
    expect(ctx.response.get('Location')).toBeFalsy();
  });

  it('answers 400, not the 303 a prompt=none error carries', async () => {
    const { provider, middleware } = setup();
    const ctx = contextFor('authorization', unreviewed);
    const err = Object.assign(new errors.LoginRequired(), { status: 303, statusCode: 303 });
    await answer(provider, middleware, ctx, err);
    expect(ctx.status).toBe(400);
    expect(ctx.body).toContain('login_required');
  });

  it('shows a server_error without its detail', async () => {
    const { provider, middleware } = setup();
    const ctx = contextFor('authorization', registered);
    const err = Object.assign(new Error('redis exploded: password=hunter2'), { allow_redirect: true, expose: false, statusCode: 500 });
    await answer(provider, middleware, ctx, err, 'server_error');
    expect(ctx.status).toBe(500);
    expect(ctx.body).toContain('server_error');
    expect(ctx.body).not.toContain('hunter2');
  });

  it.each([
    ['a trusted client', 'authorization', member, 'https://buddy.example/cb'],
    ['a loopback redirect URI', 'authorization', registered, 'http://127.0.0.1:4000/cb'],
    ['the resume route (after the user acted)', 'resume', registered, 'https://evil.example/cb'],
  ] as const)('leaves the redirect alone for %s', async (_label, route, client, uri) => {
    const { provider, middleware } = setup();
    const ctx = contextFor(route, client, uri);
    await answer(provider, middleware, ctx, new errors.AccessDenied());
    expect(ctx.status).toBe(303);
    expect(ctx.response.get('Location')).toBe('https://evil.example/cb?error=x&state=st');
  });

  it('leaves an answer without an error alone (a success redirect with a code)', async () => {
    const { middleware } = setup();
    const ctx = contextFor('authorization', registered);
    await middleware(ctx, async () => { ctx.redirect('https://evil.example/cb?code=c'); });
    expect(ctx.response.get('Location')).toBe('https://evil.example/cb?code=c');
  });

  it('leaves the provider\'s own page alone: an error it never redirects', async () => {
    const { provider, middleware } = setup();
    const ctx = contextFor('authorization', registered);
    await middleware(ctx, async () => {
      const err = new errors.InvalidRedirectUri();
      provider.emit('authorization.error', ctx, err);
      ctx.status = 400;
      ctx.body = 'the provider page';
    });
    expect(ctx.body).toBe('the provider page');
    expect(reviewedCalls).toEqual([]);
  });

  it('remembers errors per request: another request\'s error changes nothing', async () => {
    const { provider, middleware } = setup();
    const other = contextFor('authorization', registered);
    provider.emit('authorization.error', other, new errors.InvalidScope('x', 'x'));
    const ctx = contextFor('authorization', registered);
    await middleware(ctx, async () => { ctx.redirect('https://evil.example/cb?code=c'); });
    expect(ctx.response.get('Location')).toBe('https://evil.example/cb?code=c');
  });
});
