/**
 * The demo's own sign-in forms (the admin area, Connected apps, the host sign-in page) check
 * a password the same way: the library's throttle first (`auth.signInThrottle`, the counters
 * of its own sign-in page), then the account store, and the throttle told of a success.
 *
 * @module
 */
import type { Context } from 'koa';

import type { Account, AccountStore, PlatformAuth } from '../../lib/index.ts';

export type PasswordCheck =
  | { readonly outcome: 'signed-in'; readonly account: Account }
  | { readonly outcome: 'incorrect' }
  /** `Retry-After` is set on the response; `title` and `message` are the library's words for it */
  | { readonly outcome: 'throttled'; readonly retryAfter: number; readonly title: string; readonly message: string };

export async function checkPassword(auth: PlatformAuth, accounts: AccountStore, ctx: Context, email: string, password: string): Promise<PasswordCheck> {
  const who = auth.signInThrottle.context(ctx);
  const attempt = await auth.signInThrottle.attempt(email, who);
  if (!attempt.allowed) {
    ctx.set('Retry-After', String(attempt.retryAfter));
    return { outcome: 'throttled', retryAfter: attempt.retryAfter, ...auth.signInThrottle.notice(attempt.retryAfter) };
  }
  const account = email && password ? await accounts.authenticate(email, password, who) : undefined;
  if (!account) return { outcome: 'incorrect' };
  await attempt.succeeded();
  return { outcome: 'signed-in', account };
}
