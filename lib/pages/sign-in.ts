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
 *     // `sign_in`: the pending sign-in's `id`, which the page's form carried
 *     await auth.interactions.finishSignIn(ctx, account.id, { expected: form.sign_in }); // 303 back into the OAuth flow
 *   } else ctx.redirect('/');
 * });
 * ```
 *
 * @module
 */
import type { Context } from 'koa';

import type { HostSignIn, SignInRequest } from '../contracts.ts';

/** A sign-in waiting for the host's page: what it asks for, and which one it is. */
export interface PendingSignIn extends SignInRequest {
  /**
   * This sign-in. Put it in the host's form and pass it back as `expected` to `finishSignIn`
   * and `cancelSignIn`: another authorization started in this browser meanwhile (another tab,
   * or a page of another site opening its own client's) replaces the sign-in waiting here, and
   * without it the person's password would finish that one, not the one the page named.
   */
  readonly id: string;
}

/** Which sign-in the host's page was shown for (`PendingSignIn.id`). */
export interface ExpectedSignIn {
  readonly expected?: string | undefined;
}

export interface InteractionsApi {
  /**
   * The sign-in this browser was sent to the host's sign-in page for, or `undefined`: which
   * client, whether it must be a fresh sign-in, `login_hint`, … for the host's page to show.
   * @throws {InvalidRequestError} when its client cannot be checked right now (a Client ID
   * Metadata Document that could not be loaded again: 400; over the fetch budget: 429, with
   * `Retry-After` set on `ctx`): show the page with its `description`. `finishSignIn` and
   * `cancelSignIn` throw the same.
   */
  pendingSignIn(ctx: Context): Promise<PendingSignIn | undefined>;
  /**
   * Finishes that sign-in as `signIn` (an account id, or `{ accountId, authTime, amr, acr }`)
   * and redirects the browser back into the flow (303); returns where to. Call it after the
   * host's own checks (password, MFA, its CSRF token) succeeded.
   * @throws {InvalidRequestError} when no sign-in waits in this browser (expired, finished, or
   * started in another browser), it is not `options.expected` (another authorization replaced
   * it since the page was shown: show the page again), the account is unknown to
   * `accounts.findById`, or the sign-in is older than the client allows (`prompt=login`: from
   * before the request; `max_age`)
   */
  finishSignIn(ctx: Context, signIn: string | HostSignIn, options?: ExpectedSignIn): Promise<string>;
  /**
   * The person gave up: the client receives `access_denied` (with `state` and `iss`).
   * Redirects (303); returns where to. A client not trusted with a redirect before sign-in (a
   * self-registered one, an unreviewed metadata document: README "No redirect before trust")
   * receives nothing: the library answers its "Sign-in cancelled" page (200) and returns
   * `undefined`.
   * @throws {InvalidRequestError} when no sign-in waits in this browser, or it is not `options.expected`
   */
  cancelSignIn(ctx: Context, options?: ExpectedSignIn): Promise<string | undefined>;
  /**
   * Ends this browser's sign-in session with the library: the next authorization asks for a
   * sign-in again (`prompt=none` gets `login_required`), and a sign-in waiting for the host's
   * page is forgotten. Call it from the host's own sign-out, so that on a shared computer the
   * next person does not continue as the last. Tokens already issued and the member's
   * consents stay (`auth.connectedApps` revokes them). Sets cookies only; the host answers.
   */
  signOut(ctx: Context): Promise<void>;
}
