/**
 * The demo host's admin area, "Developers → OAuth applications": a site operator (an account
 * with an operator role, `owner` or `admin` by default, at the site) manages the site's
 * member clients through `auth.memberClients`. The routes are in `admin/routes.ts`.
 *
 * Everything under /admin is answered here, with the library's strict page headers (CSP
 * `default-src 'none'` with a style nonce, `form-action 'self'`, no framing, `no-store`), so
 * a client secret shown once is never cached and no page can be scripted or framed.
 */
import type { Middleware } from 'koa';

import { createNonce, setPageHeaders } from '../../lib/index.ts';
import { PlatformAuthError } from '../../lib/index.ts';
import type { AccountStore, PlatformAuth, SiteStore } from '../../lib/index.ts';
import { PageError } from './admin/page-error.ts';
import { createAdminRouter, renderPageError } from './admin/routes.ts';
import { ADMIN_AREA, AdminSessions } from './admin/session.ts';

export interface AdminPageDeps {
  readonly auth: PlatformAuth;
  readonly accounts: AccountStore;
  readonly sites: SiteStore;
  /** signs the admin session cookie */
  readonly secret: string;
  /** `Secure` cookies: the host's baseUrl is https */
  readonly secureCookies: boolean;
}

export function adminPage({ auth, accounts, sites, secret, secureCookies }: AdminPageDeps): Middleware {
  const sessions = new AdminSessions(secret, ADMIN_AREA, { secure: secureCookies, storage: auth.options.adapter });
  const dispatch = createAdminRouter({ auth, accounts, sites, sessions }).routes() as Middleware;

  return async function adminArea(ctx, next) {
    if (ctx.path !== '/admin' && !ctx.path.startsWith('/admin/')) return next();
    const nonce = createNonce();
    setPageHeaders(ctx, nonce);
    ctx.state.adminNonce = nonce;
    try {
      await dispatch(ctx, async () => {
        throw new PageError(404, 'Page not found', 'There is no such page in the admin area.');
      });
    } catch (err) {
      if (err instanceof PageError) return renderPageError(ctx, err);
      // a library refusal that no route turned into its page yet: still a clear 4xx
      if (err instanceof PlatformAuthError && err.expose && err.status < 500) {
        return renderPageError(ctx, new PageError(err.status, 'Request refused', err.description));
      }
      // storage outages and bugs: the library's outage guard around the host answers them
      throw err;
    }
  };
}
