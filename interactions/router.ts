/**
 * The sign-in and consent pages: `interactionDetails` → render → `interactionResult`,
 * the pattern of oidc-provider's example interaction router.
 *
 *   GET  /oauth/interaction/:uid          sign-in or consent page, whichever the prompt is
 *   POST /oauth/interaction/:uid/login    email + password
 *   POST /oauth/interaction/:uid/confirm  Allow
 *   POST /oauth/interaction/:uid/abort    Deny (the client receives access_denied)
 *
 * @module
 */
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Next } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';

import type { ResolvedOptions } from '../lib/config/options.ts';
import type { Account } from '../lib/contracts.ts';
import { isLoopbackHost } from '../lib/constants.ts';
import { ENDPOINTS } from '../lib/endpoints.ts';
import type { GrantContextStore } from '../lib/grant-context.ts';
import type { SignInThrottle } from '../lib/http/sign-in-throttle.ts';
import { checkEligibility, clientAudience } from '../lib/policies/audience.ts';
import { findScope, parseScope } from '../lib/scopes/catalogue.ts';
import { CsrfTokens } from '../lib/pages/csrf.ts';
import { createNonce, setPageHeaders } from '../lib/pages/headers.ts';
import { noticePage, writeNoticePage } from '../lib/pages/notice.ts';
import { consentPage, loginPage } from './views.ts';
import type { ClientView } from './views.ts';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
type OidcClient = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

interface InteractionState {
  interaction: Interaction;
  client: OidcClient;
  nonce: string;
}

export interface InteractionRouterDeps {
  readonly provider: Provider;
  readonly options: ResolvedOptions;
  readonly grantContexts: GrantContextStore;
  readonly signInThrottle: SignInThrottle;
}

function redirectHost(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  if (!url) return redirectUri;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : url.protocol.slice(0, -1);
}

function clientView(client: OidcClient, redirectUri: string): ClientView {
  const view = { name: client.clientName ?? client.clientId, redirectHost: redirectHost(redirectUri) };
  const documentHost = (client as { clientIdMetadataDocument?: boolean }).clientIdMetadataDocument === true
    ? URL.parse(client.clientId)?.host
    : undefined;
  return documentHost ? { ...view, documentHost } : view;
}

function isLoopbackOnly(client: OidcClient): boolean {
  const uris = client.redirectUris ?? [];
  return uris.length > 0 && uris.every((u) => isLoopbackHost(URL.parse(u)?.hostname ?? ''));
}

export function createInteractionRouter({ provider, options, grantContexts, signInThrottle }: InteractionRouterDeps): Router {
  const base = ENDPOINTS.interaction.path.replace('/:uid', '');
  const router = new Router({ prefix: base });
  const csrf = new CsrfTokens(options.cookieKeys[0]!);
  // forms only, small: the pages post a handful of fields
  const forms = bodyParser({ enableTypes: ['form'], formLimit: '16kb' }) as unknown as RouterMiddleware;
  const actions = (uid: string) => ({
    login: `${base}/${uid}/login`,
    confirm: `${base}/${uid}/confirm`,
    abort: `${base}/${uid}/abort`,
  });

  function notice(ctx: RouterContext, status: number, title: string, message: string, nonce?: string) {
    writeNoticePage(ctx, status, { title, message }, nonce);
  }

  /** Loads the interaction bound to this browser; answers with a page when there is none. */
  async function loadInteraction(ctx: RouterContext, next: Next) {
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (err) {
      if (err instanceof errors.SessionNotFound || err instanceof errors.InvalidRequest) {
        notice(ctx, 400, 'This page has expired', 'Go back to the application and start signing in again.');
        return;
      }
      throw err;
    }
    if (interaction.uid !== ctx.params.uid) {
      notice(ctx, 400, 'This page has expired', 'Go back to the application and start signing in again.');
      return;
    }
    const client = await provider.Client.find(String(interaction.params.client_id));
    if (!client) {
      notice(ctx, 400, 'Unknown application', 'The application that sent you here is no longer registered.');
      return;
    }
    const nonce = createNonce();
    setPageHeaders(ctx, nonce, String(interaction.params.redirect_uri ?? ''));
    ctx.state.interaction = { interaction, client, nonce } satisfies InteractionState;
    await next();
  }

  async function checkCsrf(ctx: RouterContext, next: Next) {
    const { interaction } = ctx.state.interaction as InteractionState;
    const body = ctx.request.body as Record<string, unknown> | undefined;
    if (!csrf.verify(interaction.uid, body?.csrf)) {
      notice(ctx, 403, 'This form has expired', 'Reload the page and try again.');
      return;
    }
    await next();
  }

  async function finish(ctx: RouterContext, result: Record<string, unknown>) {
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  async function accountOf(interaction: Interaction): Promise<Account | undefined> {
    const id = interaction.session?.accountId;
    return id ? options.accounts.findById(id) : undefined;
  }

  function loginView(state: InteractionState, extra: { email?: string; error?: string } = {}) {
    const { interaction, client } = state;
    return loginPage({
      action: actions(interaction.uid).login,
      csrf: csrf.issue(interaction.uid),
      client: clientView(client, String(interaction.params.redirect_uri)),
      ...extra,
    }, state.nonce);
  }

  async function renderConsent(ctx: RouterContext, state: InteractionState, account: Account) {
    const { interaction, client } = state;
    const eligibility = checkEligibility(client, account, options.operatorRoles);
    const uid = interaction.uid;
    if (!eligibility.allowed) {
      ctx.status = 403;
      ctx.body = noticePage({
        title: 'You cannot use this application',
        message: eligibility.reason,
        abort: { action: actions(uid).abort, csrf: csrf.issue(uid), label: 'Return to the application' },
      }, state.nonce);
      return;
    }
    const sites = await Promise.all(eligibility.sites.map(async (id) => ({ id, name: (await options.sites.findById(id))?.name ?? id })));
    const scopes = parseScope(String(interaction.params.scope ?? '')).map((name) => ({
      name, description: findScope(name)?.description ?? name,
    }));
    ctx.body = consentPage({
      confirmAction: actions(uid).confirm,
      abortAction: actions(uid).abort,
      csrf: csrf.issue(uid),
      client: clientView(client, String(interaction.params.redirect_uri)),
      accountEmail: account.email,
      scopes,
      sites,
      loopbackOnly: isLoopbackOnly(client),
    }, state.nonce);
  }

  router.get('/:uid', loadInteraction, async function showInteraction(ctx) {
    const state = ctx.state.interaction as InteractionState;
    if (state.interaction.prompt.name === 'login') {
      ctx.body = loginView(state);
      return;
    }
    const account = await accountOf(state.interaction);
    if (!account) {
      await finish(ctx, { error: 'login_required', error_description: 'the signed-in account no longer exists' });
      return;
    }
    await renderConsent(ctx, state, account);
  });

  router.post('/:uid/login', forms, loadInteraction, checkCsrf, async function submitLogin(ctx) {
    const state = ctx.state.interaction as InteractionState;
    if (state.interaction.prompt.name !== 'login') {
      notice(ctx, 400, 'Already signed in', 'Go back to the application and start again.', state.nonce);
      return;
    }
    const body = ctx.request.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const incorrect = () => {
      ctx.status = 401;
      ctx.body = loginView(state, { email, error: 'The email or password is incorrect.' });
    };
    // an empty field is no guess: nothing to throttle, nothing to check
    if (!email || !password) return incorrect();
    // throttled before the host's password check, the same way whether or not the account exists
    const who = signInThrottle.context(ctx);
    const attempt = await signInThrottle.attempt(email, who);
    if (!attempt.allowed) return signInThrottle.writeThrottledPage(ctx, attempt.retryAfter, state.nonce);
    const account = await options.accounts.authenticate(email, password, who);
    if (!account) return incorrect();
    await attempt.succeeded();
    await finish(ctx, { login: { accountId: account.id } });
  });

  router.post('/:uid/confirm', forms, loadInteraction, checkCsrf, async function submitConsent(ctx) {
    const state = ctx.state.interaction as InteractionState;
    const { interaction, client } = state;
    if (interaction.prompt.name !== 'consent') {
      notice(ctx, 400, 'Nothing to confirm', 'Go back to the application and start again.', state.nonce);
      return;
    }
    const account = await accountOf(interaction);
    if (!account) {
      await finish(ctx, { error: 'login_required', error_description: 'the signed-in account no longer exists' });
      return;
    }
    const eligibility = checkEligibility(client, account, options.operatorRoles);
    if (!eligibility.allowed) {
      await finish(ctx, { error: 'access_denied', error_description: 'the account may not authorize this client' });
      return;
    }
    const body = ctx.request.body as Record<string, unknown>;
    const site = eligibility.sites.length === 1 ? eligibility.sites[0]! : String(body.org_id ?? '');
    if (!eligibility.sites.includes(site)) {
      ctx.status = 400;
      await renderConsent(ctx, state, account);
      return;
    }

    const { details } = interaction.prompt as { details: Record<string, unknown> };
    const grant = (interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined)
      ?? new provider.Grant({ accountId: account.id, clientId: client.clientId });
    const missingOIDCScope = details.missingOIDCScope as string[] | undefined;
    const missingOIDCClaims = details.missingOIDCClaims as string[] | undefined;
    const missingResourceScopes = details.missingResourceScopes as Record<string, string[]> | undefined;
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    if (clientAudience(client) === 'operator') {
      await grantContexts.save(grantId, { orgId: site }, options.ttl.grant);
    }
    await finish(ctx, { consent: { grantId } });
  });

  router.post('/:uid/abort', forms, loadInteraction, checkCsrf, async function denyConsent(ctx) {
    await finish(ctx, { error: 'access_denied', error_description: 'the user denied the request' });
  });

  return router;
}
