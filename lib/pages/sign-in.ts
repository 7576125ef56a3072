/**
 * `auth.interactions`: what a host's own sign-in page (`options.signIn.loginUrl`) calls to
 * learn about the sign-in waiting in this browser and to finish or cancel it. Implemented by
 * interactions/host-sign-in.ts.
 *
 * @example
 * ```ts
 * router.post('/login', async (ctx) => {
 *   const account = await checkPasswordAndMfa(ctx);            // the host's own sign-in, its own CSRF check
 *   if (!account) return showLoginPage(ctx, 'wrong password');
 *   await startHostSession(ctx, account.id);
 *   if (await auth.interactions.pendingSignIn(ctx)) {
 *     await auth.interactions.finishSignIn(ctx, account.id);    // 303 back into the OAuth flow
 *   } else ctx.redirect('/');
 * });
 * ```
 *
 * @module
 */
import type { Context } from 'koa';

import type { HostSignIn, SignInRequest } from '../contracts.ts';

export interface InteractionsApi {
  /**
   * The sign-in this browser was sent to the host's sign-in page for, or `undefined`: which
   * client, whether it must be a fresh sign-in, `login_hint`, … for the host's page to show.
   */
  pendingSignIn(ctx: Context): Promise<SignInRequest | undefined>;
  /**
   * Finishes that sign-in as `signIn` (an account id, or `{ accountId, authTime, amr, acr }`)
   * and redirects the browser back into the flow (303); returns where to. Call it after the
   * host's own checks (password, MFA, its CSRF token) succeeded.
   * @throws {InvalidRequestError} when no sign-in waits in this browser (expired, finished, or
   * started in another browser), the account is unknown to `accounts.findById`, or the sign-in
   * is older than the client allows (`prompt=login`: from before the request; `max_age`)
   */
  finishSignIn(ctx: Context, signIn: string | HostSignIn): Promise<string>;
  /**
   * The person gave up: the client receives `access_denied` (with `state` and `iss`).
   * Redirects (303); returns where to. A client not trusted with a redirect before sign-in (a
   * self-registered one, an unreviewed metadata document: README "No redirect before trust")
   * receives nothing: the library answers its "Sign-in cancelled" page (200) and returns
   * `undefined`.
   * @throws {InvalidRequestError} when no sign-in waits in this browser
   */
  cancelSignIn(ctx: Context): Promise<string | undefined>;
  /**
   * Ends this browser's sign-in session with the library: the next authorization asks for a
   * sign-in again (`prompt=none` gets `login_required`), and a sign-in waiting for the host's
   * page is forgotten. Call it from the host's own sign-out, so that on a shared computer the
   * next person does not continue as the last. Tokens already issued and the member's
   * consents stay (`auth.connectedApps` revokes them). Sets cookies only; the host answers.
   */
  signOut(ctx: Context): Promise<void>;
}
