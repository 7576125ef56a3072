/**
 * With `options.signIn.session`, the browser's sign-in session follows the host's:
 *
 * - when the host says another account is signed in to this browser than the one the
 *   library's session holds (someone signed out of the host and another person signed in), the
 *   login prompt is raised, and the interaction page answers it at once from the host's session;
 * - when the host says nobody is signed in, the login prompt is raised too: the person signed
 *   out of the host (or the host's session expired), and on a shared computer the next person
 *   must not continue as them (`prompt=none` gets `login_required`). Except for a sign-in made
 *   on the library's own page ({@link OwnPageSignIns}), which the host never knew.
 *
 * It fails closed: only the library's page notes its sign-ins, so a sign-in from the host's
 * session or the host's page (`finishSignIn`), one from before this rule, and one whose note
 * has expired (a note lives `ttl.session` from its sign-in, while oidc-provider extends a
 * session in use) all end with the host's. A sign-in made in this very request is not
 * questioned again.
 *
 * The consent page applies the same rule ({@link endedWithHost}) when shown and when confirmed
 * (interactions/host-sign-in.ts, `signInEnded`): the resume after a consent carries the
 * earlier sign-in, which this check does not question, so a page left open past the host's
 * session would otherwise still give the earlier person's consent.
 *
 * @module
 */
import { interactionPolicy } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import type { Adapter, AdapterFactory } from '../../adapters/types.ts';
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
    redirectUri: String(params?.redirect_uri ?? ''),
  };
}

/** The storage model of {@link OwnPageSignIns}. */
export const OWN_PAGE_SIGN_IN_MODEL = 'OwnPageSignIn';

/** What of oidc-provider's browser session the rule reads. */
export interface SignedInSession {
  readonly uid: string;
  readonly accountId?: string | undefined;
  readonly loginTs?: number | undefined;
}

/**
 * Storage work that must be done before a browser session is written (by oidc-provider's
 * `Session#save`, lib/provider/session-rotation.ts): a promise when there is some, and a
 * rejection fails the save. `ctx`: the request the provider is serving, if any.
 */
export type BeforeSessionWrite = (ctx: KoaContextWithOIDC | undefined, session: SignedInSession) => Promise<void> | undefined;

/**
 * The browser sessions signed in on the library's own page, one note per sign-in: by the
 * session's `uid` (stable for the browser's session whatever oidc-provider's rotations of its
 * id) and the time of that sign-in, holding its account, kept `ttl.session` from it. A note is
 * never rewritten by a later sign-in: it is written before the session that holds the sign-in
 * ({@link ownPageSignInNotes}), so a storage fault in between leaves the session as it was with
 * its own note still there, never a session whose note was replaced.
 */
export class OwnPageSignIns {
  readonly #store: Adapter;
  readonly #sessionSeconds: number;

  constructor(adapter: AdapterFactory, sessionSeconds: number) {
    this.#store = adapter(OWN_PAGE_SIGN_IN_MODEL);
    this.#sessionSeconds = sessionSeconds;
  }

  /** Notes that the library's page signed `sessionUid` in as `accountId` at `loginTs`. */
  remember(sessionUid: string, accountId: string, loginTs: number): Promise<void> {
    return this.#store.upsert(noteId(sessionUid, loginTs), { accountId, loginTs }, this.#sessionSeconds);
  }

  /**
   * Forgets a note of `sessionUid` at `loginTs`: the session was signed in another way at that
   * very second (any other time has no note to match).
   */
  forget(sessionUid: string, loginTs: number): Promise<void> {
    return this.#store.destroy(noteId(sessionUid, loginTs));
  }

  /** Whether the sign-in `session` holds is the one the library's page made. */
  async madeBy(session: SignedInSession): Promise<boolean> {
    if (typeof session.loginTs !== 'number') return false;
    return matches(await this.#store.find(noteId(session.uid, session.loginTs)), session);
  }

  /**
   * {@link madeBy} for a session still being read (`loading`, by the browser session's `uid`).
   * A session that is gone was made by nobody.
   */
  async madeByLoading(uid: string, loading: Promise<Omit<SignedInSession, 'uid'> | undefined>): Promise<boolean> {
    const session = await loading;
    return session !== undefined && this.madeBy({ ...session, uid });
  }
}

// a session's uid is a nanoid (no '.'), so a note's id names one session and one second
const noteId = (sessionUid: string, loginTs: number) => `${sessionUid}.${loginTs}`;

function matches(stored: { accountId?: unknown; loginTs?: unknown } | void | undefined, session: Omit<SignedInSession, 'uid'>): boolean {
  return stored?.accountId === session.accountId && stored?.loginTs === session.loginTs;
}

/** The account the host's session answered with (`signIn.session`), `undefined` for nobody. */
export function hostAccountOf(found: HostSignIn | undefined): string | undefined {
  return typeof found?.accountId === 'string' && found.accountId !== '' ? found.accountId : undefined;
}

/**
 * How far a host's `authTime` may be ahead of this instance's clock: a host whose sessions are
 * kept by another machine may disagree by a little; anything later is a mistake.
 */
export const AUTH_TIME_LEEWAY_S = 60;

/**
 * A host's `authTime` (`finishSignIn`, `signIn.session`), checked: epoch seconds, not later
 * than now. It becomes the ID token's `auth_time` and the session's sign-in time, which
 * `max_age` is judged by: milliseconds (`Date.now()`, the usual slip) or a time in the future
 * would make the sign-in look fresh for ever, so they are refused, not clamped. `undefined`
 * stays undefined (each caller has its default). `where` names the call for the message.
 */
export function checkedAuthTime(authTime: unknown, where: string, nowS: number): number | undefined {
  if (authTime === undefined) return undefined;
  if (typeof authTime !== 'number' || !Number.isFinite(authTime) || authTime <= 0) {
    throw new TypeError(`${where}: authTime must be the time of the sign-in in epoch seconds (Math.floor(Date.now() / 1000)), not ${typeof authTime === 'string' ? JSON.stringify(authTime) : String(authTime)}`);
  }
  if (authTime > nowS + AUTH_TIME_LEEWAY_S) {
    const hint = authTime > nowS * 100 ? ': it looks like milliseconds; pass Math.floor(ms / 1000)' : '';
    throw new TypeError(`${where}: authTime ${authTime} is in the future; it is the time of the sign-in in epoch seconds${hint}`);
  }
  return Math.floor(authTime);
}

/**
 * A host's `amr` and `acr` (`finishSignIn`, `signIn.session`), checked: `amr` an array of
 * method names (RFC 8176), `acr` one of `options.signIn.acrValues` (`acrValues`, which
 * discovery publishes). They go into the ID token as they are: `amr: 'pwd'` (the usual slip)
 * became `["p","w","d"]` there, and a number made the sign-in fail with a TypeError deep in
 * the provider. `where` names the call for the message.
 */
export function checkAuthenticationContext(given: { readonly amr?: unknown; readonly acr?: unknown }, where: string, acrValues: readonly string[]): void {
  const { amr, acr } = given;
  if (amr !== undefined && !(Array.isArray(amr) && amr.every((m) => typeof m === 'string' && m !== ''))) {
    const hint = typeof amr === 'string' ? `: pass [${JSON.stringify(amr)}]` : '';
    throw new TypeError(`${where}: amr must be an array of authentication method names (RFC 8176), e.g. ["pwd"]${hint}`);
  }
  if (acr === undefined) return;
  if (typeof acr !== 'string' || acr === '') throw new TypeError(`${where}: acr must be a string naming the authentication context class`);
  if (!acrValues.includes(acr)) {
    const listed = acrValues.length === 0 ? 'none is listed' : `it lists ${acrValues.map((v) => JSON.stringify(v)).join(', ')}`;
    throw new TypeError(`${where}: acr ${JSON.stringify(acr)} is not one of options.signIn.acrValues (${listed}); list the values your sign-ins carry there`);
  }
}

/**
 * The rule, for whoever holds a sign-in of `accountId`: it ended with the host's session when
 * the host's session names another account (`hostAccount`), or names none and the library's
 * page did not make it (`ownPage`, asked only then; without it, a host naming nobody ends nothing).
 */
export async function endedWithHost(hostAccount: string | undefined, accountId: string, ownPage: (() => Promise<boolean>) | undefined): Promise<boolean> {
  if (hostAccount !== undefined) return hostAccount !== accountId;
  return ownPage ? !(await ownPage()) : false;
}

/**
 * The key a sign-in on the library's page carries in its `login` result. The interaction
 * knows no session yet on a browser's first visit, so the session it lands in is known only
 * when oidc-provider resumes the authorization with it ({@link ownPageSignInNotes}).
 */
const ON_OWN_PAGE = 'platformAuthOwnPage';

/**
 * Marks `login` (an interaction's `login` result) as made on the library's own page, with
 * the account the host's session named at that moment (`null`: nobody), which the consent
 * page compares with the host's answer then ({@link ownPageSignInHost}).
 */
export function markOwnPageLogin(login: object, hostAccount: string | undefined): void {
  (login as Record<string, unknown>)[ON_OWN_PAGE] = { host: hostAccount ?? null };
}

/**
 * For a `login` result made on the library's own page: the account the host's session named
 * when it was made (`null`: nobody). `undefined` for any other sign-in.
 */
export function ownPageSignInHost(login: unknown): string | null | undefined {
  const mark = (login as Record<string, unknown> | null | undefined)?.[ON_OWN_PAGE] as { host?: unknown } | undefined;
  if (!mark || typeof mark !== 'object') return undefined;
  return typeof mark.host === 'string' ? mark.host : null;
}

/**
 * The note of a sign-in on the library's page, written before the browser session that holds
 * it (run by the session's save, lib/provider/session-rotation.ts), and a sign-in made another
 * way at the same second un-noted there too. Only at the resume that applied the sign-in: a
 * consent's resume carries the same `login` again. Before, not after: once oidc-provider has
 * written the session (under a new id, the old record deleted), a failure of this write would
 * answer 503 without the new session's cookie, leaving the browser a cookie that names a
 * deleted record; a failure here fails the save instead, and the browser keeps the session it
 * had, with that session's own note.
 */
export function ownPageSignInNotes(signIns: OwnPageSignIns): BeforeSessionWrite {
  return (ctx, session) => {
    const result = ctx?.oidc?.result as { login?: Record<string, unknown>; consent?: unknown } | undefined;
    const login = result?.login;
    if (!login || result.consent !== undefined || !session.uid || typeof session.loginTs !== 'number') return undefined;
    if (!login[ON_OWN_PAGE]) return signIns.forget(session.uid, session.loginTs);
    if (!session.accountId || session.accountId !== login.accountId) return undefined;
    return signIns.remember(session.uid, session.accountId, session.loginTs);
  };
}

/**
 * Whether the library's session must sign in again: the host's session names another account,
 * or (with `signIns`) names none and the library's page did not make this sign-in.
 */
export async function hostSessionChanged(ctx: KoaContextWithOIDC, lookup: HostSessionLookup, signIns?: OwnPageSignIns): Promise<boolean> {
  const session = ctx.oidc.session;
  const current = session?.accountId;
  if (!current || ctx.oidc.result?.login || !ctx.oidc.client) return false;
  const found = await lookup(ctx, requestOf(ctx));
  // the note is read only when the host names nobody, so a session whose host still names its
  // account costs no storage read
  return endedWithHost(hostAccountOf(found), current, signIns && (() => signIns.madeBy(session as SignedInSession)));
}

/** The check, in the login prompt. */
export function hostSessionCheck(lookup: HostSessionLookup, signIns?: OwnPageSignIns): InstanceType<typeof interactionPolicy.Check> {
  return new interactionPolicy.Check(
    'host_session_changed', 'the host\'s session changed or ended', 'login_required', (ctx) => hostSessionChanged(ctx, lookup, signIns),
  );
}
