/**
 * With `options.signIn.session`, the browser's sign-in session follows the host's:
 *
 * - when the host says another account is signed in to this browser than the one the
 *   library's session holds (someone signed out of the host and another person signed in), the
 *   login prompt is raised, and the interaction page answers it at once from the host's session;
 * - when the host says nobody is signed in and it was the host's session that signed this
 *   browser's session in ({@link HostSessionSignIns}), the login prompt is raised too: the
 *   person signed out of the host (or the host's session expired), and on a shared computer the
 *   next person must not continue as them (`prompt=none` gets `login_required`).
 *
 * A session signed in on the library's own page (or the host's page through `finishSignIn`)
 * does not end when the host has nobody: the host never knew that sign-in. A sign-in made in
 * this very request is not questioned again.
 *
 * @module
 */
import { interactionPolicy } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
import type { HostSignIn, SignInRequest } from '../contracts.ts';
import type { AfterAnswer } from './provider-answer.ts';
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

/** The storage model of {@link HostSessionSignIns}. */
export const HOST_SESSION_SIGN_IN_MODEL = 'HostSessionSignIn';

/** What of oidc-provider's browser session the rule reads. */
export interface SignedInSession {
  readonly uid: string;
  readonly accountId?: string | undefined;
  readonly loginTs?: number | undefined;
}

/**
 * The browser sessions the host's session signed in, by the session's `uid` (stable for the
 * browser's session whatever oidc-provider's rotations of its id): the account and the time of
 * that sign-in, kept as long as a session lives. A later sign-in made another way (the
 * library's page, `finishSignIn`) removes the note (one storage write per such sign-in, only
 * where `signIn.session` is set).
 */
export class HostSessionSignIns {
  readonly #store: Adapter;
  readonly #sessionSeconds: number;

  constructor(adapter: AdapterFactory, sessionSeconds: number) {
    this.#store = adapter(HOST_SESSION_SIGN_IN_MODEL);
    this.#sessionSeconds = sessionSeconds;
  }

  /** Notes that the host's session signed `sessionUid` in as `accountId` at `loginTs`. */
  remember(sessionUid: string, accountId: string, loginTs: number): Promise<void> {
    return this.#store.upsert(sessionUid, { accountId, loginTs }, this.#sessionSeconds);
  }

  /** Forgets the note of `sessionUid`: it was signed in another way since. */
  forget(sessionUid: string): Promise<void> {
    return this.#store.destroy(sessionUid);
  }

  /** Whether the sign-in `session` holds is the one the host's session made. */
  async madeBy(session: SignedInSession): Promise<boolean> {
    const stored = await this.#store.find(session.uid);
    return stored?.accountId === session.accountId && stored?.loginTs === session.loginTs;
  }
}

/**
 * The key a sign-in from the host's session carries in its `login` result. The interaction
 * knows no session yet on a browser's first visit, so the session it lands in is known only
 * when oidc-provider resumes the authorization with it ({@link rememberHostSessionLogins}).
 */
const FROM_HOST_SESSION = 'platformAuthHostSession';

/** Marks `login` (an interaction's `login` result) as made from the host's session. */
export function markHostSessionLogin(login: object): void {
  (login as Record<string, unknown>)[FROM_HOST_SESSION] = true;
}

/**
 * The after-answer step that notes a sign-in from the host's session once oidc-provider has
 * resumed the authorization with it (the browser's session now holds that account and time),
 * and forgets the note on a sign-in made another way. Awaited before the answer leaves, so
 * the next request finds the note as it is.
 */
export function rememberHostSessionLogins(signIns: HostSessionSignIns): AfterAnswer {
  return (ctx) => {
    const { oidc } = ctx as unknown as Partial<KoaContextWithOIDC>;
    const login = (oidc?.result as { login?: Record<string, unknown> } | undefined)?.login;
    const session = oidc?.session as unknown as SignedInSession | undefined;
    if (!login || !session?.uid) return undefined;
    // a sign-in made another way (the library's page, the host's page) replaces the host's:
    // the note goes, even when it is the same account within the same second
    if (!login[FROM_HOST_SESSION]) return signIns.forget(session.uid);
    if (!session.accountId || session.accountId !== login.accountId || typeof session.loginTs !== 'number') return undefined;
    return signIns.remember(session.uid, session.accountId, session.loginTs);
  };
}

/**
 * Whether the library's session must sign in again: the host's session names another account,
 * or (with `signIns`) names none while it was the one that signed this session in.
 */
export async function hostSessionChanged(ctx: KoaContextWithOIDC, lookup: HostSessionLookup, signIns?: HostSessionSignIns): Promise<boolean> {
  const session = ctx.oidc.session;
  const current = session?.accountId;
  if (!current || ctx.oidc.result?.login || !ctx.oidc.client) return false;
  const found = await lookup(ctx, requestOf(ctx));
  if (typeof found?.accountId === 'string' && found.accountId !== '') return found.accountId !== current;
  // nobody is signed in at the host: read only on this path, so a session whose host still
  // names its account costs no storage read
  return signIns ? signIns.madeBy(session as SignedInSession) : false;
}

/** The check, in the login prompt. */
export function hostSessionCheck(lookup: HostSessionLookup, signIns?: HostSessionSignIns): InstanceType<typeof interactionPolicy.Check> {
  return new interactionPolicy.Check(
    'host_session_changed', 'the host\'s session changed or ended', 'login_required', (ctx) => hostSessionChanged(ctx, lookup, signIns),
  );
}
