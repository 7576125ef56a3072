/**
 * The demo host's admin area, "Developers → OAuth applications": a site operator manages
 * the site's member clients through `auth.memberClients`. Placeholder until it lands.
 */
import type { Middleware } from 'koa';

import type { AccountStore, PlatformAuth, SiteStore } from '../../lib/index.ts';

export interface AdminPageDeps {
  readonly auth: PlatformAuth;
  readonly accounts: AccountStore;
  readonly sites: SiteStore;
  /** signs the admin session cookie */
  readonly secret: string;
}

export function adminPage(_deps: AdminPageDeps): Middleware {
  return async function adminArea(_ctx, next) {
    await next();
  };
}
