/**
 * UserInfo (OpenID Connect Core §5.3), served beside the provider because oidc-provider's
 * own endpoint refuses resource-bound tokens, and every token here is bound to this origin.
 * Only tokens bound to this origin are accepted (the bearer core checks `aud`), and the
 * claims are those of the ID token (lib/claims.ts) for the token's scopes.
 *
 * @module
 */
import type { Context, Middleware } from 'koa';

import { accountClaims } from '../claims.ts';
import type { AccountStore } from '../contracts.ts';
import type { BearerState } from './require-bearer.ts';
import { InvalidTokenError, InsufficientScopeError } from '../errors.ts';

export function userinfoHandler(accounts: AccountStore): Middleware<BearerState> {
  return async function userinfo(ctx: Context) {
    const auth = (ctx.state as BearerState).auth!;
    if (!auth.scopes.has('openid')) {
      throw new InsufficientScopeError('openid', 'UserInfo requires a token with the openid scope');
    }
    const account = await accounts.findById(auth.sub);
    if (!account) throw new InvalidTokenError('the account of this access token no longer exists');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = accountClaims(account, auth.site, auth.scopes);
  };
}
