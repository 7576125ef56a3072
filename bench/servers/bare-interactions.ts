/**
 * The baseline's sign-in and consent: the minimal interaction of oidc-provider's own example
 * (example/routes/koa.js): `interactionDetails` → a bare form → `interactionFinished`. No
 * CSP, no CSRF token, no eligibility check, no site choice: what a bare provider needs.
 *
 * @module
 */
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import Koa from 'koa';
import type Provider from 'oidc-provider';

import type { AccountStore } from '../../lib/index.ts';
import type { RequestListener } from '../lib/types.ts';

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>${body}</body></html>`;

export function createBareInteractions(provider: Provider, accounts: AccountStore): RequestListener {
  const router = new Router({ prefix: '/oauth/interaction' });
  const forms = bodyParser({ enableTypes: ['form'] }) as unknown as RouterMiddleware;

  router.get('/:uid', async function show(ctx) {
    const { uid, prompt } = await provider.interactionDetails(ctx.req, ctx.res);
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = prompt.name === 'login'
      ? page(`<form method="post" action="/oauth/interaction/${uid}/login"><input name="email"><input type="password" name="password"><button>Sign in</button></form>`)
      : page(`<form method="post" action="/oauth/interaction/${uid}/confirm"><button>Allow</button></form>`);
  });

  router.post('/:uid/login', forms, async function login(ctx) {
    await provider.interactionDetails(ctx.req, ctx.res);
    const body = ctx.request.body as Record<string, string>;
    const account = await accounts.authenticate(body.email ?? '', body.password ?? '');
    const result = account
      ? { login: { accountId: account.id } }
      : { error: 'access_denied', error_description: 'wrong credentials' };
    await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.respond = false;
  });

  router.post('/:uid/confirm', forms, async function confirm(ctx) {
    const { prompt: { details }, params, session, grantId } = await provider.interactionDetails(ctx.req, ctx.res);
    const grant = (grantId ? await provider.Grant.find(grantId) : undefined)
      ?? new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details as {
      missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]>;
    };
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    ctx.respond = false;
  });

  const app = new Koa();
  app.use(router.routes());
  return app.callback();
}
