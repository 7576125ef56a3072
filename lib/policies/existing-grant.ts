/**
 * oidc-provider's `loadExistingGrant`: the grant an authorization request may reuse without the
 * consent page, as oidc-provider's default finds it (the consent of this interaction, or the
 * browser session's grant for the client), but not when the account may no longer use the
 * grant's site (its role there was removed since it consented). The request then goes to the
 * consent page, which refuses such an account (`access_denied`), and `prompt=none` gets
 * `consent_required`; a grant outlives roles, and reusing it silently would issue a code for a
 * site the account left. Refreshes and code exchanges are held to the same rule where the
 * access token is made (./token-claims.ts).
 *
 * @module
 */
import type { Grant, KoaContextWithOIDC } from 'oidc-provider';

import type { AccountStore } from '../contracts.ts';
import type { GrantContextStore } from '../grant-context.ts';
import { mayUseSite } from './audience.ts';
import { grantSite } from './token-claims.ts';

export interface ExistingGrantDeps {
  readonly accounts: AccountStore;
  readonly grantContexts: GrantContextStore;
  /** `options.operatorRoles` */
  readonly operatorRoles: readonly string[];
}

export function createLoadExistingGrant(deps: ExistingGrantDeps) {
  return async function loadExistingGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
    const consented = ctx.oidc.result?.consent?.grantId as string | undefined;
    const grantId = consented || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
    if (!grantId) return undefined;
    const grant = await ctx.oidc.provider.Grant.find(grantId);
    // this interaction's consent page checked the account just now
    if (!grant || consented) return grant;
    const { site, account } = await grantSite(deps, ctx.oidc.client, grantId, grant.accountId!);
    if (site === undefined) return grant;
    return account && mayUseSite(ctx.oidc.client!, account, site, deps.operatorRoles) ? grant : undefined;
  };
}
