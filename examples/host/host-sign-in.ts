/**
 * The demo host's own sign-in, as a host with its own accounts and sessions wires it into
 * platform-auth (README "Sign-in options"):
 *
 *   GET  /sign-in          the host's sign-in page; names the app waiting for the sign-in
 *   POST /sign-in          email + password (throttled by auth.signInThrottle); starts the
 *                          host session, then finishes the waiting sign-in
 *   POST /sign-in/cancel   gives up: the app receives access_denied
 *   POST /sign-out         ends the host session, and the library's (auth.interactions.signOut)
 *
 * `hostSession(sessions, ctx)` is `options.signIn.session`: a member signed in here goes
 * straight to consent. With `loginUrl: '/sign-in'` the library sends every sign-in here
 * instead of showing its own page (the demo's `signIn: 'host'`, `SIGN_IN=host npm run example`).
 *
 * The session cookie is the admin area's kind (admin/session.ts) with a cookie of its own,
 * sent to the whole site (the library reads it at /oauth/interaction/…). Every form carries a
 * CSRF token bound to the session, checked before anything else.
 *
 * @module
 */
import { Router } from '@koa/router';
import type { Context, Middleware } from 'koa';

import { createNonce, html, InvalidRequestError, page, setPageHeaders } from '../../lib/index.ts';
import type { AccountStore, AdapterFactory, HostSignIn, PendingSignIn, PlatformAuth } from '../../lib/index.ts';
import { readForm } from './admin/form.ts';
import { PageError } from './admin/page-error.ts';
import { AdminSessions, SESSION_SECONDS } from './admin/session.ts';
import type { AdminSession, SessionArea } from './admin/session.ts';
import { checkPassword } from './password-check.ts';

export const HOST_AREA: SessionArea = { cookie: 'demo_session', path: '/', label: 'host' };
export const HOST_SIGN_IN_PATH = '/sign-in';

/** The page was shown for another sign-in than the one waiting now (PendingSignIn.id). */
const EXPIRED = 'This form has expired. Try again.';
const CHANGED = 'The app waiting for this sign-in changed since this page was shown. Check which app it is, then sign in again.';
/** Cancel pressed again (the back button, a double click), or the sign-in expired meanwhile. */
const NOT_WAITING = 'No sign-in is waiting any more: it was cancelled, finished or has expired, so there is nothing to cancel. Go back to the app to start again.';

/** `options.signIn.session`: the account of the host session, signed in `SESSION_SECONDS` before it expires. */
export async function hostSession(sessions: AdminSessions, ctx: Context): Promise<HostSignIn | undefined> {
  const session = await sessions.read(ctx);
  return session?.accountId ? { accountId: session.accountId, authTime: session.exp - SESSION_SECONDS, amr: ['pwd'] } : undefined;
}

interface FormView {
  readonly csrf: string;
  readonly pending: PendingSignIn | undefined;
  readonly email?: string;
  readonly error?: string;
  readonly signedInAs?: string;
}

function signInPage(view: FormView, nonce: string): string {
  const { pending } = view;
  return page('Sign in to Demo Host', nonce, html`
<h1>Sign in to Demo Host</h1>
${pending ? html`<p>to continue to <span class="client">${pending.clientName}</span>${pending.fresh ? html`, which asked you to sign in again` : ''}</p>` : ''}
${view.signedInAs && !pending ? html`<p>Signed in as <strong>${view.signedInAs}</strong>.</p>
<form method="post" action="/sign-out">
<input type="hidden" name="csrf" value="${view.csrf}">
<button class="secondary" type="submit">Sign out</button>
</form>` : ''}
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${HOST_SIGN_IN_PATH}">
<input type="hidden" name="csrf" value="${view.csrf}">
${pending ? html`<input type="hidden" name="sign_in" value="${pending.id}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" required autocomplete="username" autofocus value="${view.email ?? pending?.loginHint ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<button class="primary" type="submit">Sign in</button>
</form>
${pending ? html`<form method="post" action="${HOST_SIGN_IN_PATH}/cancel">
<input type="hidden" name="csrf" value="${view.csrf}">
<input type="hidden" name="sign_in" value="${pending.id}">
<button class="secondary" type="submit">Cancel</button>
</form>` : ''}`);
}

export interface HostSignInDeps {
  readonly auth: PlatformAuth;
  readonly accounts: AccountStore;
  readonly sessions: AdminSessions;
}

export function hostSignInPage({ auth, accounts, sessions }: HostSignInDeps): Middleware {
  const router = new Router();

  function show(ctx: Context, status: number, view: FormView): void {
    const nonce = createNonce();
    // the form's redirects end at the client (finishing, cancelling): form-action must allow it
    setPageHeaders(ctx, nonce, view.pending?.redirectUri);
    ctx.status = status;
    ctx.body = signInPage(view, nonce);
  }

  /** The session, or an anonymous one for the form's CSRF token. */
  async function sessionOf(ctx: Context): Promise<AdminSession> {
    return (await sessions.read(ctx)) ?? sessions.start(ctx);
  }

  /**
   * A form posted without this browser's session cookie: a post from another site (the
   * cookie is SameSite=Lax) or an expired session. Sent to the page, never given a new
   * session here: its cookie would replace the one the browser holds, and any site could
   * sign the person out.
   */
  function withoutSession(ctx: Context): void {
    seeOther(ctx);
  }

  /** Back to the page: a 303 whose small body Koa writes as HTML, under the pages' headers too. */
  function seeOther(ctx: Context): void {
    setPageHeaders(ctx, createNonce());
    ctx.status = 303;
    ctx.redirect(HOST_SIGN_IN_PATH);
  }

  /**
   * The sign-in waiting, or why it cannot be shown: its client cannot be checked right now (a
   * metadata document that could not be loaded): the page says so, with the library's status.
   */
  async function pendingOf(ctx: Context): Promise<{ pending: PendingSignIn | undefined } | { refusal: InvalidRequestError }> {
    try {
      return { pending: await auth.interactions.pendingSignIn(ctx) };
    } catch (error) {
      if (error instanceof InvalidRequestError) return { refusal: error };
      throw error;
    }
  }

  /** The page for `session`: the sign-in waiting, and whom the session is signed in as. */
  async function showFor(ctx: Context, session: AdminSession, status: number, error?: string): Promise<void> {
    const found = await pendingOf(ctx);
    if ('refusal' in found) return show(ctx, found.refusal.status, { csrf: sessions.csrfToken(session), pending: undefined, error: found.refusal.description });
    const { pending } = found;
    const account = session.accountId ? await accounts.findById(session.accountId) : undefined;
    show(ctx, status, { csrf: sessions.csrfToken(session), pending, ...(account ? { signedInAs: account.email } : {}), ...(error ? { error } : {}) });
  }

  /**
   * The posted form; `undefined` when it was refused (too large, not a form), after answering
   * with the page and what was wrong, as the admin pages do: never Koa's plain-text error.
   */
  async function formOf(ctx: Context): Promise<URLSearchParams | undefined> {
    try {
      return await readForm(ctx);
    } catch (err) {
      if (!(err instanceof PageError)) throw err;
      const session = await sessions.read(ctx);
      if (!session) withoutSession(ctx);
      else await showFor(ctx, session, err.status, `${err.title}: ${err.message}`);
      return undefined;
    }
  }

  router.get(HOST_SIGN_IN_PATH, async function hostSignInForm(ctx) {
    await showFor(ctx, await sessionOf(ctx), 200);
  });

  router.post(HOST_SIGN_IN_PATH, async function hostSignIn(ctx) {
    const form = await formOf(ctx);
    if (!form) return;
    const session = await sessions.read(ctx);
    if (!session) return withoutSession(ctx);
    if (!sessions.verifyCsrf(session, form.get('csrf'))) return show(ctx, 403, { csrf: sessions.csrfToken(session), pending: undefined, error: EXPIRED });
    const found = await pendingOf(ctx);
    if ('refusal' in found) return show(ctx, found.refusal.status, { csrf: sessions.csrfToken(session), pending: undefined, error: found.refusal.description });
    const { pending } = found;
    // the sign-in this page was shown for: another one may have replaced it in this browser
    // since (another tab, or a page of another site starting its own client's), and the
    // password must not finish that one
    if (pending && form.get('sign_in') !== pending.id) return show(ctx, 409, { csrf: sessions.csrfToken(session), pending, error: CHANGED });
    const email = (form.get('email') ?? '').trim();
    const password = form.get('password') ?? '';
    const checked = await checkPassword(auth, accounts, ctx, email, password);
    if (checked.outcome === 'throttled') return show(ctx, 429, { csrf: sessions.csrfToken(session), pending, email, error: checked.message });
    if (checked.outcome === 'incorrect') return show(ctx, 401, { csrf: sessions.csrfToken(session), pending, email, error: 'The email or password is incorrect.' });
    const { account } = checked;
    // a new session (and sid) on sign-in, so a planted anonymous cookie cannot be ridden
    sessions.start(ctx, account.id);
    if (pending) {
      await auth.interactions.finishSignIn(ctx, { accountId: account.id, amr: ['pwd'] }, { expected: pending.id });
      return;
    }
    seeOther(ctx);
  });

  router.post(`${HOST_SIGN_IN_PATH}/cancel`, async function hostCancel(ctx) {
    const form = await formOf(ctx);
    if (!form) return;
    const session = await sessions.read(ctx);
    if (!session) return withoutSession(ctx);
    const found = await pendingOf(ctx);
    if ('refusal' in found) return show(ctx, found.refusal.status, { csrf: sessions.csrfToken(session), pending: undefined, error: found.refusal.description });
    const { pending } = found;
    // the page again, with a fresh form, never a bare 403: the person can still cancel
    if (!sessions.verifyCsrf(session, form.get('csrf'))) return show(ctx, 403, { csrf: sessions.csrfToken(session), pending, error: EXPIRED });
    // none waiting (Cancel pressed again, or it expired): cancelSignIn would throw, and the
    // person would get Koa's plain-text 400
    if (!pending) return show(ctx, 409, { csrf: sessions.csrfToken(session), pending, error: NOT_WAITING });
    if (form.get('sign_in') !== pending.id) return show(ctx, 409, { csrf: sessions.csrfToken(session), pending, error: CHANGED });
    await auth.interactions.cancelSignIn(ctx, { expected: form.get('sign_in') ?? undefined });
  });

  router.post('/sign-out', async function hostSignOut(ctx) {
    const form = await formOf(ctx);
    if (!form) return;
    const session = await sessions.read(ctx);
    if (!session) return withoutSession(ctx);
    if (!sessions.verifyCsrf(session, form.get('csrf'))) return showFor(ctx, session, 403, EXPIRED);
    // the library's sign-in first: if storage fails, the host session (and its sign-out form)
    // is still there to try again
    await auth.interactions.signOut(ctx);
    await sessions.end(ctx, session);
    seeOther(ctx);
  });

  return router.routes() as Middleware;
}

/** `secure`: `Secure` cookies, when the host's baseUrl is https; `storage`: the library's (see AdminSessions). */
export function createHostSessions(secret: string, options: { secure: boolean; storage: AdapterFactory }): AdminSessions {
  return new AdminSessions(secret, HOST_AREA, options);
}
