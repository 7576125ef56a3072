/**
 * The admin area's session: a cookie holding `{ sid, acc?, exp }` and an HMAC of it, so the
 * demo needs no session store. Before sign-in the session is anonymous (`acc` absent): it
 * exists only so the sign-in form, like every other form, carries a CSRF token bound to it.
 *
 * Only a sign-out is stored: the signed cookie alone would stay valid until `exp`, so the
 * session is recorded as ended in the library's storage until then, where every instance
 * sharing that storage (one Redis, the same `adminSecret`) finds it.
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import type { Context } from 'koa';

import { CsrfTokens } from '../../../lib/index.ts';
import type { AdapterFactory } from '../../../lib/index.ts';

export interface AdminSession {
  /** random; the CSRF tokens are bound to it */
  readonly sid: string;
  /** the signed-in account; absent before sign-in */
  readonly accountId?: string;
  /** epoch seconds */
  readonly exp: number;
}

export const SESSION_COOKIE = 'admin_session';
/** the cookie never travels to the OAuth endpoints or the rest of the host */
export const SESSION_PATH = '/admin';
/** short, and not extended by use: this session can mint client secrets */
export const SESSION_SECONDS = 30 * 60;

const now = () => Math.floor(Date.now() / 1000);

/** Where a kind of session lives: its cookie, and the area of the site that cookie is sent to. */
export interface SessionArea {
  readonly cookie: string;
  readonly path: string;
  /** keeps the keys of one area's sessions apart from another's */
  readonly label: string;
}

export const ADMIN_AREA: SessionArea = { cookie: SESSION_COOKIE, path: SESSION_PATH, label: 'admin' };

/** The storage model of the sessions signed out before they expire, by sid. */
export const ENDED_SESSION_MODEL = 'DemoEndedSession';

/** A key of its own per area and purpose, so a CSRF token can never pass as a cookie signature, nor one area's cookie as another's. */
function derive(secret: string, label: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`platform-auth demo ${label} ${purpose} v1`).digest();
}

export class AdminSessions {
  readonly #area: SessionArea;
  readonly #secure: boolean;
  readonly #key: Buffer;
  readonly #csrf: CsrfTokens;
  /** the sessions signed out before their `exp` (ENDED_SESSION_MODEL) */
  readonly #ended: ReturnType<AdapterFactory>;

  /**
   * `secure`: whether the cookie is `Secure`, from the host's `baseUrl` (https), not from the
   * connection: behind a proxy that ends TLS the demo sees plain HTTP, and a cookie the
   * connection decided would then travel over plain HTTP too. `storage`: the library's
   * (`auth.options.adapter`), where sign-outs are kept.
   */
  constructor(secret: string, area: SessionArea, { secure = false, storage }: { secure?: boolean; storage: AdapterFactory }) {
    this.#secure = secure;
    this.#area = area;
    this.#ended = storage(ENDED_SESSION_MODEL);
    this.#key = derive(secret, area.label, 'session');
    this.#csrf = new CsrfTokens(derive(secret, area.label, 'csrf').toString('base64url'));
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }

  async read(ctx: Context): Promise<AdminSession | undefined> {
    const value = ctx.cookies.get(this.#area.cookie, { signed: false });
    const dot = value?.indexOf('.') ?? -1;
    if (!value || dot < 1) return undefined;
    const payload = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.#sign(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let data: unknown;
    try {
      data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const { sid, acc, exp } = (data ?? {}) as Record<string, unknown>;
    if (typeof sid !== 'string' || typeof exp !== 'number' || exp <= now()) return undefined;
    if (acc !== undefined && typeof acc !== 'string') return undefined;
    if (await this.#ended.find(sid)) return undefined;
    return acc === undefined ? { sid, exp } : { sid, accountId: acc, exp };
  }

  /** A fresh session (a new sid also on sign-in, so a planted anonymous cookie cannot be ridden). */
  start(ctx: Context, accountId?: string): AdminSession {
    const session: AdminSession = { sid: randomBytes(16).toString('base64url'), exp: now() + SESSION_SECONDS, ...(accountId ? { accountId } : {}) };
    const payload = Buffer.from(JSON.stringify({ sid: session.sid, acc: session.accountId, exp: session.exp })).toString('base64url');
    this.#setCookie(ctx, `${payload}.${this.#sign(payload)}`, SESSION_SECONDS * 1000);
    return session;
  }

  #setCookie(ctx: Context, value: string, maxAge: number): void {
    // the cookies module refuses a Secure cookie on a connection it thinks plain: it is told
    // what baseUrl says (the connection is the proxy's, TLS ended there)
    if (this.#secure) ctx.cookies.secure = true;
    ctx.cookies.set(this.#area.cookie, value, {
      path: this.#area.path, httpOnly: true, sameSite: 'lax', secure: this.#secure, signed: false, overwrite: true, maxAge,
    });
  }

  /**
   * Ends the session on every instance, until it would have expired anyway. Stored before the
   * cookie is cleared: if storage fails, the browser keeps the session to sign out again with.
   * An anonymous session (a form's CSRF token, nobody signed in) only loses its cookie: it
   * grants nothing, and a record per anonymous sign-out would let anyone fill the storage.
   */
  async end(ctx: Context, session: AdminSession): Promise<void> {
    // at least a second: the session was read as live, but its last second may have begun since
    if (session.accountId !== undefined) await this.#ended.upsert(session.sid, { exp: session.exp }, Math.max(1, session.exp - now()));
    this.#setCookie(ctx, '', 0);
  }

  csrfToken(session: AdminSession): string {
    return this.#csrf.issue(session.sid);
  }

  verifyCsrf(session: AdminSession | undefined, token: unknown): boolean {
    return session !== undefined && this.#csrf.verify(session.sid, token);
  }
}
