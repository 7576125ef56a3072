/**
 * The admin area's session: a cookie holding `{ sid, acc?, exp }` and an HMAC of it, so the
 * demo needs no session store. Before sign-in the session is anonymous (`acc` absent): it
 * exists only so the sign-in form, like every other form, carries a CSRF token bound to it.
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import type { Context } from 'koa';

import { CsrfTokens } from '../../../lib/index.ts';

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

/** A key of its own per area and purpose, so a CSRF token can never pass as a cookie signature, nor one area's cookie as another's. */
function derive(secret: string, label: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`platform-auth demo ${label} ${purpose} v1`).digest();
}

export class AdminSessions {
  readonly #area: SessionArea;
  readonly #secure: boolean;
  readonly #key: Buffer;
  readonly #csrf: CsrfTokens;
  /** sid → exp of sessions signed out early: the signed cookie alone would stay valid until exp */
  readonly #ended = new Map<string, number>();

  /**
   * `secure`: whether the cookie is `Secure`, from the host's `baseUrl` (https), not from the
   * connection: behind a proxy that ends TLS the demo sees plain HTTP, and a cookie the
   * connection decided would then travel over plain HTTP too.
   */
  constructor(secret: string, area: SessionArea = ADMIN_AREA, { secure = false }: { secure?: boolean } = {}) {
    this.#secure = secure;
    this.#area = area;
    this.#key = derive(secret, area.label, 'session');
    this.#csrf = new CsrfTokens(derive(secret, area.label, 'csrf').toString('base64url'));
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }

  read(ctx: Context): AdminSession | undefined {
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
    if (this.#ended.has(sid)) return undefined;
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

  end(ctx: Context, session: AdminSession): void {
    const t = now();
    for (const [sid, exp] of this.#ended) if (exp <= t) this.#ended.delete(sid);
    this.#ended.set(session.sid, session.exp);
    this.#setCookie(ctx, '', 0);
  }

  csrfToken(session: AdminSession): string {
    return this.#csrf.issue(session.sid);
  }

  verifyCsrf(session: AdminSession | undefined, token: unknown): boolean {
    return session !== undefined && this.#csrf.verify(session.sid, token);
  }
}
