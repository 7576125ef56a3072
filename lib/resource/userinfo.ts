/**
 * UserInfo (OpenID Connect Core §5.3), served beside the provider because oidc-provider's
 * own endpoint refuses resource-bound tokens, and every token here is bound to this origin.
 * Only tokens bound to this origin are accepted (the bearer core checks `aud`), and the
 * claims are those of the ID token (lib/claims.ts) for the token's scopes.
 *
 * The token is taken from the `Authorization` header only, and sent one way only (RFC 6750
 * §2): oidc-provider's own UserInfo (off here) refuses a token sent by two methods too.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';

import { accountClaims } from '../claims.ts';
import type { AccountStore } from '../contracts.ts';
import { BodyTooLargeError, readLimitedBody } from '../http/read-body.ts';
import type { BearerState } from './require-bearer.ts';
import { InvalidRequestError, InsufficientScopeError } from '../errors.ts';
import { accountGone } from './account-gone.ts';

/** The largest UserInfo form body read: a form of a few parameters, an access token among them. */
export const USERINFO_FORM_LIMIT = 8 * 1024;

/**
 * Reads a POST's form body (RFC 6750 §2.2), before the bearer guard: the guard refuses an
 * `access_token` in it sent beside the header as a token sent two ways (400 `invalid_request`),
 * and no token is ever taken from it. Other bodies are left unread.
 */
export function readUserinfoForm(): Middleware {
  return async function userinfoForm(ctx: Context, next: Next) {
    const request = ctx.request as { body?: unknown };
    if (ctx.method === 'POST' && request.body === undefined && !ctx.req.readableEnded && ctx.is('application/x-www-form-urlencoded')) {
      let raw: Buffer;
      try {
        raw = await readLimitedBody(ctx.req, USERINFO_FORM_LIMIT);
      } catch (cause) {
        if (cause instanceof BodyTooLargeError) {
          ctx.set('Connection', 'close');
          throw new InvalidRequestError(`the request body is larger than ${USERINFO_FORM_LIMIT} bytes`, { status: 413, cause });
        }
        throw new InvalidRequestError('the request body was not received completely', { cause });
      }
      request.body = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
    }
    await next();
  };
}

export function userinfoHandler(accounts: AccountStore): Middleware<BearerState> {
  return async function userinfo(ctx: Context) {
    const auth = (ctx.state as BearerState).auth!;
    if (!auth.scopes.has('openid')) {
      throw new InsufficientScopeError('openid', 'UserInfo requires a token with the openid scope');
    }
    const account = await accounts.findById(auth.sub);
    if (!account) throw accountGone();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = accountClaims(account, auth.site, auth.scopes);
  };
}
