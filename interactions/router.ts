/**
 * The sign-in and consent pages: `interactionDetails` → render → the result, the pattern
 * of oidc-provider's example interaction router (the result is saved on the interaction read
 * at the start of the request, not read again: ./interaction-result.ts).
 *
 *   GET  /oauth/interaction/:uid          sign-in (the host's session, the host's page or the
 *                                         library's) or consent, whichever the prompt is
 *   POST /oauth/interaction/:uid/login    email + password
 *   POST /oauth/interaction/:uid/confirm  Allow
 *   POST /oauth/interaction/:uid/abort    Cancel (sign-in) or Deny (consent): the client
 *                                         receives access_denied, with state and iss
 *
 * The events of what happens here are emitted here, where it is decided: `signin.failed`,
 * `signin.throttled` and `consent.denied` (`signin.succeeded` and `consent.granted` come from
 * oidc-provider when the browser resumes; lib/events/provider-events.ts). None carries the
 * email or the password.
 *
 * @module
 */
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Next } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';

import { isOverFetchBudget } from '../lib/cimd/guard.ts';
import type { PageRequests } from '../lib/cimd/page-requests.ts';
import type { ResolvedOptions } from '../lib/config/options.ts';
import { ACCOUNT_GONE_DESCRIPTION } from '../lib/constants.ts';
import type { Account, Site } from '../lib/contracts.ts';
import { ENDPOINTS } from '../lib/endpoints.ts';
import { allowedMethods } from '../lib/http/allowed-methods.ts';
import type { AllowedMethods } from '../lib/http/allowed-methods.ts';
import { diagnosticsOf } from '../lib/events/diagnostics.ts';
import type { ConsentDeniedEvent, SignInFailedEvent } from '../lib/events/types.ts';
import type { GrantContextStore } from '../lib/grant-context.ts';
import type { SignInThrottle } from '../lib/http/sign-in-throttle.ts';
import { CsrfTokens } from '../lib/pages/csrf.ts';
import type { PageRenderer, PageResponse } from '../lib/pages/renderer.ts';
import type { ClientView, SiteView } from '../lib/pages/templates.ts';
import { waitWords } from '../lib/pages/wait-words.ts';
import { checkEligibility, clientAudience, memberClientSite } from '../lib/policies/audience.ts';
import { createHostPin } from '../lib/policies/host-pinning.ts';
import { markOwnPageLogin } from '../lib/policies/host-session.ts';
import { mayRedirectError } from '../lib/policies/redirect-trust.ts';
import { parseScope } from '../lib/scopes/catalogue.ts';
import { ROUTER_MATCHING } from '../lib/served-endpoints.ts';
import { clientView, isLoopbackOnly } from './client-view.ts';
import { consentGrant } from './consent-grant.ts';
import type { MissingGrants } from './consent-grant.ts';
import type { OidcClient, TrustSources } from './client-view.ts';
import { interactionUrl } from './host-sign-in.ts';
import type { SignInFlow } from './host-sign-in.ts';
import { saveInteractionResult } from './interaction-result.ts';
import { loginResult } from './login-result.ts';
import type { Interaction } from './login-result.ts';
import { createNextStep } from './next-step.ts';

interface InteractionState {
  interaction: Interaction;
  client: OidcClient;
  /** the member client's site, when it has one: it brands every page of the interaction */
  site: Site | undefined;
  /**
   * This response's page (language, brand, CSP nonce), made when first read: a form post that
   * ends in a redirect, as every successful one does, renders none.
   */
  readonly page: PageResponse;
}

export interface InteractionRouterDeps {
  readonly provider: Provider;
  readonly options: ResolvedOptions;
  readonly grantContexts: GrantContextStore;
  readonly signInThrottle: SignInThrottle;
  readonly pages: PageRenderer;
  readonly signIn: SignInFlow;
  readonly trust: TrustSources;
  /** this instance's client lookups for pages, charged to their callers (lib/cimd/page-requests.ts) */
  readonly pageRequests: PageRequests;
}

type NoticeName = 'expired' | 'unknownClient' | 'clientUnavailable' | 'formExpired' | 'alreadySignedIn' | 'nothingToConfirm' | 'cancelled';

const siteView = (site: Site): SiteView => ({ id: site.id, name: site.name });

/** The client and site of an interaction's events (the account only where the event names one). */
function subject(state: InteractionState): { clientId: string; site?: string } {
  const site = state.site?.id ?? memberClientSite(state.client);
  return site ? { clientId: state.client.clientId, site } : { clientId: state.client.clientId };
}

// Each emission asks `wants` first, so that with events off nothing is built (lib/events/diagnostics.ts).

function signInFailed(ctx: RouterContext, state: InteractionState, reason: SignInFailedEvent['reason']): void {
  const diagnostics = diagnosticsOf(ctx);
  if (diagnostics?.wants('signin.failed')) diagnostics.emit({ name: 'signin.failed', reason, ...subject(state) }, ctx);
}

function signInThrottled(ctx: RouterContext, state: InteractionState, retryAfter: number): void {
  const diagnostics = diagnosticsOf(ctx);
  if (diagnostics?.wants('signin.throttled')) diagnostics.emit({ name: 'signin.throttled', retryAfter, ...subject(state) }, ctx);
}

function consentDenied(ctx: RouterContext, state: InteractionState, reason: ConsentDeniedEvent['reason'], accountId: string | undefined): void {
  const diagnostics = diagnosticsOf(ctx);
  if (!diagnostics?.wants('consent.denied')) return;
  diagnostics.emit({ name: 'consent.denied', reason, ...subject(state), ...(accountId ? { accountId } : {}) }, ctx);
}

/**
 * `result`, its sign-in marked as made on the library's page (which does not end with the
 * host's session), with whom the host's session named then (`hostAccount`).
 */
function ownPageLogin<R extends { login: object }>(result: R, hostAccount: string | undefined): R {
  markOwnPageLogin(result.login, hostAccount);
  return result;
}

/** The 4xx status an error carries (`status`, as http-errors set it), 400 when it has none. */
function clientErrorStatus(error: unknown): number {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
}

/** The ID token's `amr` for a sign-in on the library's page: a password (RFC 8176 `pwd`). */
const PASSWORD_SIGN_IN: readonly string[] = Object.freeze(['pwd']);

const PAGES_BASE = ENDPOINTS.interaction.path.replace('/:uid', '');
/** the page of an interaction (`GET /:uid`) and the forms it posts (`POST /:uid/<action>`) */
const PAGE_METHODS = allowedMethods({ methods: ['GET'] });
const FORM_METHODS = allowedMethods({ methods: ['POST'] });
const FORM_ACTIONS = new Set(['login', 'confirm', 'abort']);

/**
 * The methods a path of the pages answers (lib/http/allowed-methods.ts): the routes of
 * {@link createInteractionRouter}, `undefined` for a path that is none of them.
 */
export function interactionMethods(path: string): AllowedMethods | undefined {
  if (!path.startsWith(`${PAGES_BASE}/`)) return undefined;
  const rest = path.slice(PAGES_BASE.length + 1);
  const slash = rest.indexOf('/');
  if (slash === -1) return rest ? PAGE_METHODS : undefined;
  return slash > 0 && FORM_ACTIONS.has(rest.slice(slash + 1)) ? FORM_METHODS : undefined;
}

export function createInteractionRouter(deps: InteractionRouterDeps): Router {
  const { provider, options, grantContexts, signInThrottle, pages, signIn, trust, pageRequests } = deps;
  const redirectTrust = { configuredClients: trust.staticClients, isReviewed: (clientId: string) => trust.isReviewed(clientId) };
  const base = PAGES_BASE;
  const router = new Router({ ...ROUTER_MATCHING, prefix: base });
  // oidc-provider's helpers these pages call (interactionDetails, Session.get) build their own
  // context from the request, whose cookies are Secure only if it reads as https: pinned to
  // baseUrl as the provider's own requests are (lib/provider/dispatch.ts), or a cookie they
  // write (a `.sig` signed again with a new cookie key) lost Secure behind a TLS-ending proxy
  const pin = createHostPin(options);
  // put back when the page has answered, failed or not; no async frame (each is promises
  // that oidc-provider's AsyncLocalStorage hooks pay for, on every page request)
  router.use((ctx, next) => {
    const unpin = pin(ctx.req, ctx);
    let running: Promise<unknown>;
    try {
      running = next();
    } catch (error) {
      unpin();
      throw error;
    }
    return running.then(unpin, (error: unknown) => {
      unpin();
      throw error;
    });
  });
  const nextStep = createNextStep(provider, options.cookieKeys, options.baseUrl.startsWith('https:'));
  // every cookie key: a form shown before a rotation is taken after it, as its cookies are
  const csrf = new CsrfTokens(options.cookieKeys);
  // forms only, small: the pages post a handful of fields
  const parseForm = bodyParser({ enableTypes: ['form'], formLimit: '16kb' }) as unknown as RouterMiddleware;
  /**
   * A body the parser cannot read (over the limit, an unknown `Content-Encoding`, a broken
   * gzip stream) is the form's fault, not the server's: the form-expired notice with the
   * parser's status (413, 415; 400 when it gives none, as zlib's errors do) on the pages'
   * headers, not Koa's plain-text answer, or a 500 without them.
   */
  const forms: RouterMiddleware = (ctx, next) => parseForm(ctx, () => Promise.resolve()).then(
    () => next(),
    (error: unknown) => notice(pages.for(ctx), clientErrorStatus(error), 'formExpired'),
  );
  const actions = (uid: string) => ({
    login: `${base}/${uid}/login`,
    confirm: `${base}/${uid}/confirm`,
    abort: `${base}/${uid}/abort`,
  });

  function notice(page: PageResponse, status: number, name: NoticeName) {
    const { text } = page.translator;
    page.notice(status, { title: text(`notice.${name}.title`), message: text(`notice.${name}.message`) });
  }

  /**
   * A page of a step that ended: the step its flow moved on to (Back from the consent page to
   * the sign-in page, ./next-step.ts), else the expired notice.
   */
  async function ended(ctx: RouterContext, uiLocales?: unknown) {
    const next = await nextStep.find(ctx, ctx.params.uid!);
    if (!next) return notice(pages.for(ctx, { uiLocales }), 400, 'expired');
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(interactionUrl(options.baseUrl, next));
    return undefined;
  }

  /** Loads the interaction bound to this browser; answers with a page when there is none. */
  async function loadInteraction(ctx: RouterContext, next: Next) {
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (err) {
      if (err instanceof errors.SessionNotFound || err instanceof errors.InvalidRequest) return ended(ctx);
      throw err;
    }
    const uiLocales = interaction.params.ui_locales;
    if (interaction.uid !== ctx.params.uid) return ended(ctx, uiLocales);
    let client;
    try {
      // a document fetched again is charged to this caller, as at the authorization endpoint
      const clientId = String(interaction.params.client_id);
      client = await pageRequests.lookingUpFor(ctx, clientId, () => provider.Client.find(clientId));
    } catch (err) {
      // a Client ID Metadata Document that could not be fetched again (its host down, its
      // cached copy expired, or another instance serving the page) or is refused now: the
      // provider's invalid_client, for the person a page, as for any other client it cannot use
      if (err instanceof errors.InvalidClient || err instanceof errors.InvalidClientMetadata) return notice(pages.for(ctx, { uiLocales }), 400, 'clientUnavailable');
      // over the fetch budget: the guard set Retry-After
      if (isOverFetchBudget(err)) return notice(pages.for(ctx, { uiLocales }), 429, 'clientUnavailable');
      throw err;
    }
    if (!client) return notice(pages.for(ctx, { uiLocales }), 400, 'unknownClient');
    const memberSite = memberClientSite(client);
    const site = memberSite ? await options.sites.findById(memberSite) : undefined;
    const redirectUri = String(interaction.params.redirect_uri ?? '');
    let page: PageResponse | undefined;
    ctx.state.interaction = {
      interaction,
      client,
      site,
      get page() {
        return (page ??= pages.for(ctx, { uiLocales, site, redirectUri }));
      },
    } satisfies InteractionState;
    await next();
  }

  /** Not an async function: it only hands on or answers, and runs on every form post. */
  function checkCsrf(ctx: RouterContext, next: Next): Promise<void> {
    const { interaction } = ctx.state.interaction as InteractionState;
    const body = ctx.request.body as Record<string, unknown> | undefined;
    if (csrf.verify(interaction.uid, body?.csrf)) return next();
    notice((ctx.state.interaction as InteractionState).page, 403, 'formExpired');
    return Promise.resolve();
  }

  /**
   * Hands the result to the provider. A consent keeps the sign-in submitted earlier in the same
   * request (`lastSubmission`): without it, `prompt=login` is unresolved again at the resume,
   * so the user signs in twice, and a native client (asked for consent after every sign-in)
   * loops between the two pages forever.
   */
  async function finish(ctx: RouterContext, result: Record<string, unknown>) {
    const mergeWithLastSubmission = 'consent' in result;
    // on the interaction loadInteraction read in this request, not read again (./interaction-result.ts)
    const { interaction } = ctx.state.interaction as InteractionState;
    const returnTo = await saveInteractionResult(interaction, result, { mergeWithLastSubmission });
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  /**
   * The sign-in this consent rests on ended with the host's session (the person signed out
   * there, the host's session expired, or someone else signed in): nothing is granted, and the
   * browser goes back to the authorization with no result, where the provider asks who is
   * signing in now (the login prompt's host-session check, lib/policies/host-session.ts). The
   * earlier sign-in is not carried over (no merge), so it cannot answer that prompt.
   */
  function signInAgain(ctx: RouterContext) {
    return finish(ctx, {});
  }

  // These two hand back their callee's promise rather than await it in an async function of
  // their own: an async function returning a promise costs two more promises (a thenable job),
  // which oidc-provider's AsyncLocalStorage hooks pay for; their callers await the result.
  function accountOf(interaction: Interaction): Promise<Account | undefined> {
    const id = interaction.session?.accountId;
    return id ? options.accounts.findById(id) : Promise.resolve(undefined);
  }

  function viewOf(state: InteractionState, page: PageResponse, site: Site | undefined): Promise<ClientView> {
    const redirectUri = String(state.interaction.params.redirect_uri ?? '');
    return clientView(state.client, redirectUri, site && siteView(site), trust, page.translator);
  }

  async function showLogin(state: InteractionState, status: number, extra: { email?: string; error?: string } = {}) {
    const { interaction, page } = state;
    const hint = typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint : '';
    page.login(status, {
      action: actions(interaction.uid).login,
      cancelAction: actions(interaction.uid).abort,
      csrf: csrf.issue(interaction.uid),
      client: await viewOf(state, page, state.site),
      email: extra.email ?? hint,
      again: interaction.prompt.reasons.includes('login_prompt') && Boolean(interaction.session?.accountId),
      ...(extra.error ? { error: extra.error } : {}),
    });
  }

  async function showConsent(ctx: RouterContext, state: InteractionState, account: Account, status = 200) {
    const { interaction, client } = state;
    const uid = interaction.uid;
    const eligibility = checkEligibility(client, account, options.operatorRoles);
    if (!eligibility.allowed) {
      // reported when refused, not when the person leaves the page (most just close it)
      consentDenied(ctx, state, 'ineligible', account.id);
      const { text } = state.page.translator;
      return state.page.notice(403, {
        title: text('refusal.title'),
        message: text(clientAudience(client) === 'member' ? 'refusal.member' : 'refusal.operator'),
        abort: { action: actions(uid).abort, csrf: csrf.issue(uid), label: text('refusal.back') },
      });
    }
    // a member client's one site is the interaction's, read for this request already
    // (loadInteraction): not asked of the host's store again
    const sites = eligibility.sites.length === 1 && state.site !== undefined && state.site.id === eligibility.sites[0]
      ? [state.site]
      : (await Promise.all(eligibility.sites.map((id) => options.sites.findById(id))))
        .map((found, i) => found ?? { id: eligibility.sites[i]!, name: eligibility.sites[i]! });
    // the site is known for a member client, and for an operator of exactly one site
    const site = state.site ?? (sites.length === 1 ? sites[0] : undefined);
    // one page per response: a page for another site than the interaction's brings its own nonce
    const page = site === state.site ? state.page : pages.for(ctx, {
      uiLocales: interaction.params.ui_locales, site, redirectUri: String(interaction.params.redirect_uri ?? ''),
    });
    page.consent(status, {
      confirmAction: actions(uid).confirm,
      abortAction: actions(uid).abort,
      csrf: csrf.issue(uid),
      client: await viewOf(state, page, site),
      ...(site ? { site: siteView(site) } : {}),
      sites: sites.length > 1 ? sites.map(siteView) : [],
      account: { email: account.email, name: account.name },
      scopes: parseScope(String(interaction.params.scope ?? '')).map((name) => ({ name, description: page.translator.scope(name) })),
      loopbackOnly: isLoopbackOnly(client),
    });
  }

  router.get('/:uid', loadInteraction, async function showInteraction(ctx) {
    const state = ctx.state.interaction as InteractionState;
    const { interaction, client } = state;
    if (interaction.prompt.name === 'login') {
      if (await signIn.useHostSession(ctx, interaction, client)) return;
      if (signIn.sendToHostPage(ctx, interaction, client)) return;
      return showLogin(state, 200);
    }
    if (await signIn.signInEnded(ctx, interaction, client)) return signInAgain(ctx);
    const account = await accountOf(interaction);
    if (!account) return finish(ctx, { error: 'login_required', error_description: ACCOUNT_GONE_DESCRIPTION });
    await showConsent(ctx, state, account);
  });

  router.post('/:uid/login', forms, loadInteraction, checkCsrf, async function submitLogin(ctx) {
    const state = ctx.state.interaction as InteractionState;
    // with the host's own sign-in page, passwords are the host's business (its MFA, its SSO):
    // the library's form is never shown, and posting to it is no way around the host's page
    if (options.signIn.loginUrl) return notice(state.page, 404, 'expired');
    if (state.interaction.prompt.name !== 'login') return notice(state.page, 400, 'alreadySignedIn');
    const body = ctx.request.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const incorrect = () => showLogin(state, 401, { email, error: state.page.translator.text('login.incorrect') });
    // an empty field is no guess: nothing to throttle, nothing to check
    if (!email || !password) {
      signInFailed(ctx, state, 'incomplete');
      return incorrect();
    }
    // throttled before the host's password check, the same way whether or not the account exists
    const who = signInThrottle.context(ctx);
    const attempt = await signInThrottle.attempt(email, who);
    if (!attempt.allowed) {
      signInThrottled(ctx, state, attempt.retryAfter);
      const { text } = state.page.translator;
      state.page.notice(429, { title: text('notice.throttled.title'), message: text('notice.throttled.message', { wait: waitWords(state.page.translator, attempt.retryAfter) }) });
      ctx.set('Retry-After', String(attempt.retryAfter));
      return;
    }
    const account = await options.accounts.authenticate(email, password, who);
    if (!account) {
      signInFailed(ctx, state, 'credentials');
      return incorrect();
    }
    // the throttle's counters are cleared alongside the result's write, not before it: on
    // Redis both go out in one write (each write to a socket costs more than the commands it
    // carries). A failure of either is the request's failure, as before.
    await Promise.all([
      attempt.succeeded(),
      (async () => {
        // whom the host names now, asked beside the sign-in's own work: the consent page
        // compares it with the host's answer then (interactions/host-sign-in.ts, signInEnded)
        const [result, hostAccount] = await Promise.all([
          // its time fixed here: a consent's resume applies the same sign-in again, and without
          // a time oidc-provider would stamp it anew, so the own-page note (made at the first
          // resume) would no longer match when the two resumes fall in different seconds
          loginResult(provider, ctx, state.interaction, { accountId: account.id, authTime: Math.floor(Date.now() / 1000), amr: PASSWORD_SIGN_IN }),
          // a host session store that fails here leaves the sign-in standing: recorded as naming
          // nobody, it fails closed at the consent check (which asks the host again)
          signIn.hostAccount(ctx, state.interaction, state.client).catch(() => undefined),
        ]);
        await finish(ctx, ownPageLogin(result, hostAccount));
        signIn.noteSignedIn(ctx, state.interaction);
      })(),
    ]);
  });

  router.post('/:uid/confirm', forms, loadInteraction, checkCsrf, async function submitConsent(ctx) {
    const state = ctx.state.interaction as InteractionState;
    const { interaction, client } = state;
    if (interaction.prompt.name !== 'consent') return notice(state.page, 400, 'nothingToConfirm');
    // checked again here, not only when the page was shown: the page may have stayed open
    if (await signIn.signInEnded(ctx, interaction, client)) return signInAgain(ctx);
    const account = await accountOf(interaction);
    if (!account) return finish(ctx, { error: 'login_required', error_description: ACCOUNT_GONE_DESCRIPTION });
    const eligibility = checkEligibility(client, account, options.operatorRoles);
    if (!eligibility.allowed) {
      // the account lost its role between the page and the answer
      consentDenied(ctx, state, 'ineligible', account.id);
      return finish(ctx, { error: 'access_denied', error_description: 'the account may not authorize this client' });
    }
    const body = ctx.request.body as Record<string, unknown>;
    const site = eligibility.sites.length === 1 ? eligibility.sites[0]! : String(body.org_id ?? '');
    if (!eligibility.sites.includes(site)) return showConsent(ctx, state, account, 400);

    const { details } = interaction.prompt as { details: MissingGrants };
    const operator = clientAudience(client) === 'operator';
    const held = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
    // an operator's grant acts at the site chosen for it: consent for another site is a grant of its own
    const sameSite = !held || !operator || (await grantContexts.find(held.jti))?.orgId === site;
    const grant = consentGrant(provider, {
      held, sameSite, interactionUid: interaction.uid, accountId: account.id, clientId: client.clientId,
      requested: parseScope(String(interaction.params.scope ?? '')), details,
    });
    const grantId = await grant.save();
    if (operator) await grantContexts.save(grantId, { orgId: site }, options.ttl.grant);
    await finish(ctx, { consent: { grantId } });
  });

  // Cancel on the sign-in page, Deny on the consent page, "Return to the application" on a refusal
  router.post('/:uid/abort', forms, loadInteraction, checkCsrf, async function abortInteraction(ctx) {
    const state = ctx.state.interaction as InteractionState;
    const { interaction, client } = state;
    const signingIn = interaction.prompt.name === 'login';
    const account = signingIn ? undefined : await accountOf(interaction);
    // leaving the refusal page: the refusal was reported when it was shown
    const refused = account !== undefined && !checkEligibility(client, account, options.operatorRoles).allowed;
    if (!refused) consentDenied(ctx, state, 'user', account?.id);
    // No redirect before trust (lib/policies/redirect-trust.ts): the sign-in page and the
    // refusal page name no destination, so Cancel and "Return to the application" there send
    // nobody to a self-registered client's redirect URI (the consent page names it, and its
    // Deny goes back). The interaction expires unused.
    if ((signingIn || refused) && !(await mayRedirectError(client, interaction.params.redirect_uri, redirectTrust))) {
      return notice(state.page, 200, 'cancelled');
    }
    const what = signingIn ? 'the user cancelled the sign-in' : 'the user denied the request';
    await finish(ctx, { error: 'access_denied', error_description: what });
  });

  return router;
}
