/**
 * The result of a sign-in, whichever way it happened (the library's page, the host's session,
 * the host's page), as oidc-provider takes it.
 *
 * A sign-in as another account than the browser's session (`prompt=login` answered by someone
 * else, a host session that changed hands, or another tab of the browser signed in meanwhile)
 * first signs the old account out of the session:
 * oidc-provider would otherwise answer the resume with its RP-initiated-logout form, which
 * this service does not serve. The old account's per-client grants leave the session with it.
 *
 * @module
 */
import type { Context } from 'koa';
import type Provider from 'oidc-provider';

import type { HostSignIn } from '../lib/contracts.ts';

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

interface StoredSession {
  accountId?: string | undefined;
  loginTs?: number | undefined;
  amr?: string[] | undefined;
  acr?: string | undefined;
  authorizations?: Record<string, unknown>;
  persist(): Promise<unknown>;
}

async function signOutOtherAccount(provider: Provider, ctx: Context, interaction: Interaction, accountId: string): Promise<void> {
  // a browser without a session cookie has no session to sign anyone out of: what
  // `Session.get` would find is a new, empty session (a browser's first sign-in, the usual
  // case), so the provider's context, its cookie read and the new session are not made
  if (ctx.cookies.get(provider.cookieName('session'), { signed: false }) === undefined) return;
  // the browser's session as it is now (its cookie, checked against the cookie keys), not as
  // the interaction saw it when its authorization began: another tab of this browser may have
  // signed someone in since, into a session the interaction never knew
  const session = await provider.Session.get(ctx) as unknown as StoredSession;
  if (!session.accountId || session.accountId === accountId) return;
  session.accountId = undefined;
  session.loginTs = undefined;
  session.amr = undefined;
  session.acr = undefined;
  session.authorizations = {};
  await session.persist();
  // the interaction remembers the session's account and refuses to finish when it changed;
  // it stays bound to the same session (its uid), now without an account
  const previous = interaction.session;
  if (previous?.accountId === undefined) return;
  const { accountId: _old, acr: _acr, amr: _amr, ...binding } = previous;
  (interaction as { session?: unknown }).session = binding;
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
}

/** `{ login }` for oidc-provider, after signing another account out of the browser's session. */
export async function loginResult(provider: Provider, ctx: Context, interaction: Interaction, signIn: HostSignIn) {
  await signOutOtherAccount(provider, ctx, interaction, signIn.accountId);
  return {
    login: {
      accountId: signIn.accountId,
      ...(signIn.authTime !== undefined ? { ts: signIn.authTime } : {}),
      ...(signIn.amr ? { amr: [...signIn.amr] } : {}),
      ...(signIn.acr ? { acr: signIn.acr } : {}),
    },
  };
}
