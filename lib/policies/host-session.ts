/**
 * With `options.signIn.session`, the browser's sign-in session follows the host's: when the
 * host says another account is signed in to this browser than the one the library's session
 * holds (someone signed out of the host and another person signed in), the login prompt is
 * raised, and the interaction page answers it at once from the host's session. Only a
 * different account counts: a host session that is gone does not end the library's session
 * (that person may have signed in on the library's own page), and a sign-in made in this very
 * request is not questioned again.
 *
 * @module
 */
import { interactionPolicy } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import type { HostSignIn, SignInRequest } from '../contracts.ts';
import { memberClientSite } from './audience.ts';

/** `options.signIn.session`, as this rule calls it. */
export type HostSessionLookup = (ctx: KoaContextWithOIDC, request: SignInRequest) => Promise<HostSignIn | undefined> | HostSignIn | undefined;

/** What the client asked for, as the host's session is told it (no interaction exists yet). */
function requestOf(ctx: KoaContextWithOIDC): SignInRequest {
  const { client, params } = ctx.oidc;
  const maxAge = params?.max_age;
  return {
    clientId: client!.clientId,
    clientName: client!.clientName ?? client!.clientId,
    site: memberClientSite(client!),
    fresh: ctx.oidc.prompts.has('login'),
    maxAge: maxAge === undefined || maxAge === null ? undefined : Number(maxAge),
    loginHint: typeof params?.login_hint === 'string' ? params.login_hint : undefined,
    uiLocales: typeof params?.ui_locales === 'string' ? params.ui_locales.split(' ').filter(Boolean) : [],
    returnTo: ctx.href,
  };
}

/** Whether the host's session names another account than the library's session. */
export async function hostSessionChanged(ctx: KoaContextWithOIDC, lookup: HostSessionLookup): Promise<boolean> {
  const current = ctx.oidc.session?.accountId;
  if (!current || ctx.oidc.result?.login || !ctx.oidc.client) return false;
  const found = await lookup(ctx, requestOf(ctx));
  return typeof found?.accountId === 'string' && found.accountId !== '' && found.accountId !== current;
}

/** The check, in the login prompt. */
export function hostSessionCheck(lookup: HostSessionLookup): InstanceType<typeof interactionPolicy.Check> {
  return new interactionPolicy.Check(
    'host_session_changed', 'another account is signed in to the host', 'login_required', (ctx) => hostSessionChanged(ctx, lookup),
  );
}
