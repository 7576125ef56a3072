/**
 * The demo host's "Connected apps" page for members (anyone with an account, students
 * included): the apps they have authorized, from `auth.connectedApps`, and a disconnect
 * button each.
 *
 *   GET  /connected-apps                            sign-in form, or the list
 *   POST /connected-apps/sign-in | /sign-out        sign-in throttled by auth.signInThrottle
 *   POST /connected-apps/revoke                     client_id: revokes every grant of it
 *
 * The session is the admin area's kind (admin/session.ts), with a cookie of its own sent to
 * this path only. Every POST checks the CSRF token bound to the session before anything
 * else; `revoke` then acts for the session's account only, which the library enforces on
 * its own as well (a grant of another account is never touched). Pages get the library's
 * strict headers, as in the admin area.
 *
 * @module
 */
import { Router } from '@koa/router';
import type { Context, Middleware } from 'koa';

import { createNonce, setPageHeaders } from '../../lib/index.ts';
import type { Account, AccountStore, PlatformAuth } from '../../lib/index.ts';
import { field, readForm } from './admin/form.ts';
import { CONNECTED_APPS_HOME } from './admin/layout.ts';
import type { HeaderView } from './admin/layout.ts';
import { PageError } from './admin/page-error.ts';
import { AdminSessions } from './admin/session.ts';
import { checkPassword } from './password-check.ts';
import type { AdminSession, SessionArea } from './admin/session.ts';
import {
  MEMBER_SIGN_IN_ACTION, MEMBER_SIGN_OUT_ACTION, REVOKE_ACTION, appsListPage, memberNoticePage, memberSignInPage,
} from './connected-apps-views.ts';

export const MEMBER_AREA: SessionArea = { cookie: 'member_session', path: CONNECTED_APPS_HOME, label: 'member' };

export interface ConnectedAppsPageDeps {
  readonly auth: PlatformAuth;
  readonly accounts: AccountStore;
  /** signs the session cookie (a key of its own is derived from it) */
  readonly secret: string;
  /** `Secure` cookies: the host's baseUrl is https */
  readonly secureCookies: boolean;
}

interface Member {
  readonly session: AdminSession;
  readonly account: Account;
  readonly header: HeaderView;
}

const EXPIRED = () => new PageError(403, 'This form has expired', 'Reload the page and try again. Forms stop working when you sign out or after 30 minutes.');

/** the notice after a disconnect, by the `revoked` query parameter of the redirect */
const NOTICES: ReadonlyMap<string, string> = new Map([
  ['1', 'The app is disconnected. It can no longer use your account, and has to ask you again to reconnect.'],
  ['0', 'That app was not connected to your account (any more). Nothing changed.'],
]);

function seeOther(ctx: Context, path: string): void {
  ctx.status = 303;
  ctx.redirect(path);
}

function createRouter({ auth, accounts, sessions }: Omit<ConnectedAppsPageDeps, 'secret' | 'secureCookies'> & { sessions: AdminSessions }): Router {
  const router = new Router();
  const nonceOf = (ctx: Context) => ctx.state.pageNonce as string;

  async function signedIn(session: AdminSession | undefined): Promise<Member | undefined> {
    if (!session?.accountId) return undefined;
    const account = await accounts.findById(session.accountId);
    return account && { session, account, header: { email: account.email, csrf: sessions.csrfToken(session) } };
  }

  router.get(CONNECTED_APPS_HOME, async function home(ctx) {
    const session = await sessions.read(ctx);
    const member = await signedIn(session);
    if (!member) {
      // an anonymous session exists only to bind the sign-in form's CSRF token
      const anonymous = session && !session.accountId ? session : sessions.start(ctx);
      ctx.body = memberSignInPage({ csrf: sessions.csrfToken(anonymous) }, nonceOf(ctx));
      return;
    }
    const apps = await auth.connectedApps.list(member.account.id);
    const notice = NOTICES.get(String(ctx.query.revoked));
    ctx.body = appsListPage({ header: member.header, apps, ...(notice ? { notice } : {}) }, nonceOf(ctx));
  });

  router.get([MEMBER_SIGN_IN_ACTION, MEMBER_SIGN_OUT_ACTION, REVOKE_ACTION], (ctx) => seeOther(ctx, CONNECTED_APPS_HOME));

  router.post(MEMBER_SIGN_IN_ACTION, async function signIn(ctx) {
    const form = await readForm(ctx);
    const session = await sessions.read(ctx);
    if (!session || !sessions.verifyCsrf(session, form.get('csrf'))) throw EXPIRED();
    const email = field(form, 'email');
    const password = form.get('password') ?? '';
    const incorrect = () => {
      ctx.status = 401;
      ctx.body = memberSignInPage({ csrf: sessions.csrfToken(session), email, error: 'The email or password is incorrect.' }, nonceOf(ctx));
    };
    if (!email || !password) return incorrect();
    const checked = await checkPassword(auth, accounts, ctx, email, password);
    if (checked.outcome === 'throttled') throw new PageError(429, checked.title, checked.message);
    if (checked.outcome === 'incorrect') return incorrect();
    const { account } = checked;
    sessions.start(ctx, account.id);
    seeOther(ctx, CONNECTED_APPS_HOME);
  });

  router.post(MEMBER_SIGN_OUT_ACTION, async function signOut(ctx) {
    const form = await readForm(ctx);
    const session = await sessions.read(ctx);
    if (!session || !sessions.verifyCsrf(session, form.get('csrf'))) throw EXPIRED();
    await sessions.end(ctx, session);
    seeOther(ctx, CONNECTED_APPS_HOME);
  });

  router.post(REVOKE_ACTION, async function revoke(ctx) {
    const form = await readForm(ctx);
    const session = await sessions.read(ctx);
    if (!sessions.verifyCsrf(session, form.get('csrf'))) throw EXPIRED();
    const member = await signedIn(session);
    if (!member) throw new PageError(403, 'Signed out', 'Your session has ended. Sign in again to continue.');
    const clientId = field(form, 'client_id');
    if (!clientId) throw new PageError(400, 'No app named', 'Use the Disconnect button of the app on the page.', member.header);
    const revoked = await auth.connectedApps.revoke(member.account.id, { clientId });
    // see-other, so reloading the list cannot repeat the POST
    seeOther(ctx, `${CONNECTED_APPS_HOME}?revoked=${revoked > 0 ? 1 : 0}`);
  });

  return router;
}

export function connectedAppsPage({ auth, accounts, secret, secureCookies }: ConnectedAppsPageDeps): Middleware {
  const sessions = new AdminSessions(secret, MEMBER_AREA, { secure: secureCookies, storage: auth.options.adapter });
  const dispatch = createRouter({ auth, accounts, sessions }).routes() as Middleware;

  return async function connectedApps(ctx, next) {
    if (ctx.path !== CONNECTED_APPS_HOME && !ctx.path.startsWith(`${CONNECTED_APPS_HOME}/`)) return next();
    const nonce = createNonce();
    setPageHeaders(ctx, nonce);
    ctx.state.pageNonce = nonce;
    try {
      await dispatch(ctx, async () => {
        throw new PageError(404, 'Page not found', 'There is no such page here.');
      });
    } catch (err) {
      if (!(err instanceof PageError)) throw err;
      ctx.status = err.status;
      ctx.body = memberNoticePage({ title: err.title, message: err.message, ...(err.header ? { header: err.header } : {}) }, nonce);
    }
  };
}
