/**
 * Sign-in by the host (`options.signIn`), beside the library's own page:
 *
 * - `session`: the host's session is asked for the account signed in to this browser; a person
 *   signed in there goes straight to consent (unless the client wants a fresh sign-in, or the
 *   session is older than its `max_age`, or it names another account in `id_token_hint`).
 * - `loginUrl`: the person is sent to the host's sign-in page with `return_to`; the host signs
 *   them in and calls `auth.interactions.finishSignIn(ctx, accountId)` (or `cancelSignIn`).
 *
 * `finishSignIn` is bound to the browser twice over: the sign-in it finishes is the one named
 * by a cookie this module set, HMAC-signed with the cookie keys, when it sent the browser to the
 * host's page; and the provider resumes it only in the browser that holds its resume cookie.
 * A page of another site can neither read nor plant either, so it cannot finish someone
 * else's sign-in, nor get its own account's sign-in finished in the victim's browser.
 *
 * @module
 */
import { decodeJwt } from 'jose';
import type { Context } from 'koa';
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';

import { isOverFetchBudget } from '../lib/cimd/guard.ts';
import type { PageRequests } from '../lib/cimd/page-requests.ts';
import type { ResolvedOptions } from '../lib/config/options.ts';
import type { HostSignIn, SignInRequest } from '../lib/contracts.ts';
import { interactionPath } from '../lib/endpoints.ts';
import { InvalidRequestError } from '../lib/errors.ts';
import { diagnosticsOf } from '../lib/events/diagnostics.ts';
import type { ExpectedSignIn, InteractionsApi } from '../lib/pages/sign-in.ts';
import type { PageRenderer } from '../lib/pages/renderer.ts';
import { memberClientSite } from '../lib/policies/audience.ts';
import { mayRedirectError } from '../lib/policies/redirect-trust.ts';
import { checkAuthenticationContext, checkedAuthTime, endedWithHost, hostAccountOf, ownPageSignInHost } from '../lib/policies/host-session.ts';
import type { OwnPageSignIns, SignedInSession } from '../lib/policies/host-session.ts';
import type { OidcClient, TrustSources } from './client-view.ts';
import { saveInteractionResult } from './interaction-result.ts';
import { UidCookie } from './uid-cookie.ts';
import { loginResult } from './login-result.ts';
import type { Interaction } from './login-result.ts';

export interface SignInFlow {
  readonly api: InteractionsApi;
  /** Finishes the sign-in from the host's session when it may be used; `true` when it answered. */
  useHostSession(ctx: Context, interaction: Interaction, client: OidcClient): Promise<boolean>;
  /** Sends the browser to the host's sign-in page when there is one; `true` when it answered. */
  sendToHostPage(ctx: Context, interaction: Interaction, client: OidcClient): boolean;
  /**
   * Whether the sign-in the interaction rests on has ended with the host's session since the
   * authorization request (lib/policies/host-session.ts): a consent page left open while the
   * host's session expired, or changed hands, must not give the earlier person's consent.
   * Always `false` without `signIn.session`.
   */
  signInEnded(ctx: Context, interaction: Interaction, client: OidcClient): Promise<boolean>;
  /** The account the host's session names now (`signIn.session`); `undefined` for nobody, or without it. */
  hostAccount(ctx: Context, interaction: Interaction, client: OidcClient): Promise<string | undefined>;
  /** Notes a login result just saved on the library's page, so that `signOut` ends it until it is resumed. */
  noteSignedIn(ctx: Context, interaction: Interaction): void;
}

export interface SignInFlowDeps {
  readonly provider: Provider;
  readonly options: ResolvedOptions;
  /** the library's pages: the "Sign-in cancelled" notice for a client not trusted with a redirect */
  readonly pages: PageRenderer;
  /** which clients may be sent an error before sign-in (lib/policies/redirect-trust.ts) */
  readonly trust: TrustSources;
  /** the notes of sign-ins made on the library's page; present with `signIn.session` */
  readonly ownPageSignIns?: OwnPageSignIns | undefined;
  /** this instance's client lookups for pages, charged to their callers (lib/cimd/page-requests.ts) */
  readonly pageRequests: PageRequests;
}

const COOKIE = 'platform_auth_sign_in';
const RESUME_COOKIE = 'platform_auth_resume';
/**
 * How many sign-ins not yet resumed the resume cookie names: a person has a few tabs, not
 * dozens (a uid is 43 characters; twenty keep the cookie under 1 KB). Beyond, the oldest is
 * left out, and its interaction, if still unresumed, expires on its own (`ttl.interaction`).
 */
const MAX_UNRESUMED_NOTED = 20;
const now = () => Math.floor(Date.now() / 1000);

const NOTHING_WAITING = 'no sign-in is waiting in this browser (it expired, was finished, or was started in another browser): go back to the application and start again';
const CLIENT_UNAVAILABLE = 'the application waiting for this sign-in cannot be checked right now (its description could not be loaded from where it is published): try again in a moment, or go back to the application';
// shown to the person by a host's page (README "Sign-in options"): what to do, in their words
const ANOTHER_WAITING = 'the sign-in waiting in this browser is not the one the page was shown for (another application started signing in since): sign in again on this page';

/** The `auth_time` of a host session that did not say when its person signed in: the epoch, never recent. */
const UNKNOWN_AUTH_TIME = 0;

export function interactionUrl(baseUrl: string, uid: string): string {
  return `${baseUrl}${interactionPath(uid)}`;
}

function maxAgeOf(interaction: Interaction): number | undefined {
  const value = interaction.params.max_age;
  return value === undefined || value === null || value === '' ? undefined : Number(value);
}

/** The `sub` of the request's `id_token_hint` (already verified by the provider), when it has one. */
function hintedAccount(interaction: Interaction): string | undefined {
  const hint = (interaction.prompt.details as { id_token_hint?: unknown }).id_token_hint;
  if (typeof hint !== 'string') return undefined;
  try {
    return decodeJwt(hint).sub;
  } catch {
    return undefined;
  }
}

export function signInRequestOf(interaction: Interaction, client: OidcClient, baseUrl: string): SignInRequest {
  const { params } = interaction;
  return {
    clientId: client.clientId,
    clientName: client.clientName ?? client.clientId,
    site: memberClientSite(client),
    fresh: interaction.prompt.reasons.includes('login_prompt'),
    maxAge: maxAgeOf(interaction),
    loginHint: typeof params.login_hint === 'string' ? params.login_hint : undefined,
    uiLocales: typeof params.ui_locales === 'string' ? params.ui_locales.split(' ').filter(Boolean) : [],
    returnTo: interactionUrl(baseUrl, interaction.uid),
    redirectUri: String(params.redirect_uri ?? ''),
  };
}

export function createSignInFlow({ provider, options, ownPageSignIns, pages, trust, pageRequests }: SignInFlowDeps): SignInFlow {
  const redirectTrust = { configuredClients: trust.staticClients, isReviewed: (clientId: string) => trust.isReviewed(clientId) };
  const { baseUrl } = options;
  const secure = baseUrl.startsWith('https:');
  /** the sign-in sent to the host's page from this browser (CSRF safety, README) */
  const binding = new UidCookie(COOKIE, 'platform-auth sign-in binding v1', options.cookieKeys, secure);
  /**
   * The sign-in finished in this browser whose authorization has not resumed yet (the browser
   * has not followed the redirect: a failed resume, a closed tab). Without a session cookie
   * yet the interaction is bound to no session, so `signOut` could not end it, and whoever
   * followed the redirect later was signed in as the person who signed out.
   */
  const resumeNote = new UidCookie(RESUME_COOKIE, 'platform-auth sign-in resume v1', options.cookieKeys, secure);

  /**
   * Notes the login result just saved on `interaction` for {@link InteractionsApi.signOut},
   * beside those noted before (two tabs, or a sign-in retried after a failed resume: each
   * left unresumed is one more to end).
   */
  function noteSignedIn(ctx: Context, interaction: Interaction): void {
    resumeNote.add(ctx, interaction.uid, interaction.exp - now(), MAX_UNRESUMED_NOTED);
  }

  /**
   * The waiting sign-in of this browser and its client, or undefined. A client that cannot be
   * looked up now (a Client ID Metadata Document whose host fails once its copy expired, or
   * over the fetch budget) is `InvalidRequestError` saying so, as the library's own page
   * answers its notice: never the provider's `invalid_client` left to the host's Koa.
   */
  async function waiting(ctx: Context): Promise<{ interaction: Interaction; client: OidcClient } | undefined> {
    const uid = binding.read(ctx);
    const interaction = uid ? await provider.Interaction.find(uid) as Interaction | undefined : undefined;
    if (!interaction || interaction.prompt?.name !== 'login') return undefined;
    // a document fetched again is charged to this caller (lib/cimd/page-requests.ts)
    const clientId = String(interaction.params.client_id);
    let client: OidcClient | undefined;
    try {
      client = await pageRequests.lookingUpFor(ctx, clientId, () => provider.Client.find(clientId));
    } catch (err) {
      if (err instanceof errors.InvalidClient || err instanceof errors.InvalidClientMetadata) throw new InvalidRequestError(CLIENT_UNAVAILABLE);
      // the guard set Retry-After on ctx
      if (isOverFetchBudget(err)) throw new InvalidRequestError(CLIENT_UNAVAILABLE, { status: 429 });
      throw err;
    }
    return client ? { interaction, client } : undefined;
  }

  /**
   * The waiting sign-in, which must be the one the host's page was shown for when it says
   * which (`expected`): the binding cookie names the last sign-in sent to the host's page in
   * this browser, and a page of another site can start one (its own client's) at any time.
   */
  async function waitingAs(ctx: Context, options: ExpectedSignIn | undefined) {
    const found = await waiting(ctx);
    if (!found) throw new InvalidRequestError(NOTHING_WAITING);
    const expected = options?.expected;
    if (expected !== undefined && expected !== found.interaction.uid) throw new InvalidRequestError(ANOTHER_WAITING);
    return found;
  }

  async function conclude(ctx: Context, interaction: Interaction, result: Record<string, unknown>): Promise<string> {
    const returnTo = await saveInteractionResult(interaction, result, { mergeWithLastSubmission: false });
    binding.clear(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(returnTo);
    return returnTo;
  }

  async function hostAccount(ctx: Context, interaction: Interaction, client: OidcClient): Promise<string | undefined> {
    const resolve = options.signIn.session;
    return resolve && hostAccountOf(await resolve(ctx, signInRequestOf(interaction, client, baseUrl)));
  }

  const api: InteractionsApi = {
    async pendingSignIn(ctx) {
      const found = await waiting(ctx);
      return found && { ...signInRequestOf(found.interaction, found.client, baseUrl), id: found.interaction.uid };
    },

    async finishSignIn(ctx, signIn, expectedOf) {
      const given: HostSignIn = typeof signIn === 'string' ? { accountId: signIn } : signIn;
      if (!given || typeof given.accountId !== 'string' || !given.accountId) {
        throw new TypeError('finishSignIn(ctx, signIn): signIn must be an account id or { accountId, authTime?, amr?, acr? }');
      }
      const authTime = checkedAuthTime(given.authTime, 'finishSignIn(ctx, signIn)', now()) ?? now();
      checkAuthenticationContext(given, 'finishSignIn(ctx, signIn)', options.signIn.acrValues);
      const { interaction, client } = await waitingAs(ctx, expectedOf);
      if (!await options.accounts.findById(given.accountId)) {
        throw new InvalidRequestError('accounts.findById does not know the account the sign-in was finished with');
      }
      const request = signInRequestOf(interaction, client, baseUrl);
      const started = interaction.exp - options.ttl.interaction;
      if (request.fresh && authTime < started) {
        throw new InvalidRequestError('the client asked for a fresh sign-in (prompt=login): the sign-in must happen after the request, so its authTime cannot be earlier');
      }
      if (request.maxAge !== undefined && now() - authTime > request.maxAge) {
        throw new InvalidRequestError(`the client accepts a sign-in at most ${request.maxAge} seconds old (max_age); this one is older`);
      }
      const returnTo = await conclude(ctx, interaction, await loginResult(provider, ctx, interaction, { ...given, authTime }));
      noteSignedIn(ctx, interaction);
      return returnTo;
    },

    async signOut(ctx) {
      binding.clear(ctx);
      // a sign-in finished here whose authorization has not resumed: ended with the rest
      await Promise.all(resumeNote.readAll(ctx).map(async (uid) => (await provider.Interaction.find(uid))?.destroy()));
      resumeNote.clear(ctx);
      // the provider's own cookie, checked against the cookie keys (a session it never signed is not touched)
      const session = await provider.Session.get(ctx);
      // `new`: this browser sent no session cookie (oidc-provider's Session, untyped there)
      if ((session as unknown as { new?: boolean }).new) return;
      await session.destroy();
      const cookies = provider.createContext(ctx.req, ctx.res).cookies;
      if (secure) cookies.secure = true;
      cookies.set(provider.cookieName('session'), null, { path: '/', httpOnly: true, sameSite: 'lax', secure, signed: true, overwrite: true });
    },

    async cancelSignIn(ctx, expectedOf) {
      const found = await waitingAs(ctx, expectedOf);
      // the host's page reports its own sign-in failures; the library reports the outcome
      const diagnostics = diagnosticsOf(ctx);
      if (diagnostics?.wants('consent.denied')) {
        const site = memberClientSite(found.client);
        diagnostics.emit({ name: 'consent.denied', reason: 'user', clientId: found.client.clientId, ...(site ? { site } : {}) }, ctx);
      }
      // No redirect before trust (lib/policies/redirect-trust.ts), as on the library's own
      // page: the host's page names no destination, so a self-registered client's redirect
      // URI gets nothing; the library answers its "Sign-in cancelled" page and the sign-in
      // expires unused
      if (!(await mayRedirectError(found.client, found.interaction.params.redirect_uri, redirectTrust))) {
        binding.clear(ctx);
        const page = pages.for(ctx, { uiLocales: found.interaction.params.ui_locales });
        const { text } = page.translator;
        page.notice(200, { title: text('notice.cancelled.title'), message: text('notice.cancelled.message') });
        return undefined;
      }
      return conclude(ctx, found.interaction, { error: 'access_denied', error_description: 'the user cancelled the sign-in' });
    },
  };

  return {
    api,

    async useHostSession(ctx, interaction, client) {
      const resolve = options.signIn.session;
      if (!resolve) return false;
      const request = signInRequestOf(interaction, client, baseUrl);
      if (request.fresh) return false;
      const found = await resolve(ctx, request);
      if (!found || typeof found.accountId !== 'string' || !found.accountId) return false;
      let authTime: number | undefined;
      try {
        authTime = checkedAuthTime(found.authTime, 'options.signIn.session', now());
        checkAuthenticationContext(found, 'options.signIn.session', options.signIn.acrValues);
      } catch (error) {
        // the host's mistake, on every sign-in until it is mended: logged, and the session
        // left unused (the person signs in on the page) rather than a failed authorization
        options.logger.error(`platform-auth: ${(error as Error).message}; the host's session is not used`);
        return false;
      }
      if (request.maxAge !== undefined && (authTime === undefined || now() - authTime > request.maxAge)) return false;
      const hinted = hintedAccount(interaction);
      if (hinted !== undefined && hinted !== found.accountId) return false;
      if (!await options.accounts.findById(found.accountId)) return false;
      // an unknown sign-in time is recorded as 0, "long ago": it becomes the browser session's,
      // which oidc-provider judges later requests' max_age by (Session#past). Stamped now, it
      // satisfied every max_age for the session's life (any page can start an authorization
      // in the browser to get it stamped), and auth_time named a sign-in that never happened
      const result = await loginResult(provider, ctx, interaction, { ...found, authTime: authTime ?? UNKNOWN_AUTH_TIME });
      // on the interaction loadInteraction read in this request (./interaction-result.ts)
      const returnTo = await saveInteractionResult(interaction, result, { mergeWithLastSubmission: false });
      noteSignedIn(ctx, interaction);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.redirect(returnTo);
      return true;
    },

    async signInEnded(ctx, interaction, client) {
      const held = interaction.session;
      if (!options.signIn.session || !held?.accountId) return false;
      const hostNow = await hostAccount(ctx, interaction, client);
      // A sign-in made in this authorization on the library's page stands while the host names
      // whom it named then: the authorization does not question a sign-in it was just given
      // (someone else at the host, `prompt=login` to switch accounts), so neither does its consent
      const made = interaction.lastSubmission?.login as { accountId?: unknown } | undefined;
      const hostThen = ownPageSignInHost(made);
      if (hostThen !== undefined && made?.accountId === held.accountId && (hostNow ?? null) === hostThen) return false;
      // The browser's session is read (for the time of its sign-in) only when the host names
      // nobody, by its uid: its id changes at every resume, also of another tab's authorization
      const ownPage = held.uid
        ? () => ownPageSignIns!.madeByLoading(held.uid!, provider.Session.findByUid(held.uid!) as Promise<SignedInSession | undefined>)
        : () => Promise.resolve(false);
      // without the notes (never with signIn.session: createPlatformAuth makes them), a host
      // naming nobody ends nothing, as in the authorization's check
      return endedWithHost(hostNow, held.accountId, ownPageSignIns ? ownPage : undefined);
    },

    hostAccount,

    noteSignedIn,

    sendToHostPage(ctx, interaction, client) {
      const { loginUrl } = options.signIn;
      if (!loginUrl) return false;
      const request = signInRequestOf(interaction, client, baseUrl);
      const url = new URL(loginUrl);
      url.searchParams.set('return_to', request.returnTo);
      if (request.fresh) url.searchParams.set('prompt', 'login');
      if (request.maxAge !== undefined) url.searchParams.set('max_age', String(request.maxAge));
      if (request.loginHint) url.searchParams.set('login_hint', request.loginHint);
      if (request.uiLocales.length) url.searchParams.set('ui_locales', request.uiLocales.join(' '));
      binding.set(ctx, interaction.uid, interaction.exp - now());
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.redirect(url.href);
      return true;
    },
  };
}
