/**
 * A cookie naming interactions of this browser by their uids, for what the library must find
 * again outside the interactions' own paths (oidc-provider's interaction cookies are scoped to
 * `/oauth/interaction/:uid` and `/oauth/authorize/:uid`): `uid~uid….mac`, the MAC an
 * HMAC-SHA256 of the uids under a key derived from each cookie key and the cookie's own label
 * (the first key signs, any verifies: a rotation keeps it readable), HttpOnly, SameSite=Lax,
 * on path `/` unless given one, Secure with an https `baseUrl`. A page of another site can neither read nor
 * plant one. (oidc-provider's uids are nanoids: no `~` or `.` in them.)
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

import type { Context } from 'koa';

export class UidCookie {
  readonly #name: string;
  readonly #keys: readonly Buffer[];
  readonly #secure: boolean;

  /** `label` tells this cookie's MACs apart from every other's made with the same cookie keys. */
  constructor(name: string, label: string, cookieKeys: readonly string[], secure: boolean) {
    this.#name = name;
    this.#keys = cookieKeys.map((k) => createHmac('sha256', k).update(label).digest());
    this.#secure = secure;
  }

  #mac(key: Buffer, uid: string): string {
    return createHmac('sha256', key).update(uid).digest('base64url');
  }

  #write(ctx: Context, value: string, maxAge: number, path = '/'): void {
    // the cookies module refuses a Secure cookie on a connection it takes for plain (TLS ended at a proxy)
    if (this.#secure) ctx.cookies.secure = true;
    ctx.cookies.set(this.#name, value, { path, httpOnly: true, sameSite: 'lax', secure: this.#secure, signed: false, overwrite: true, maxAge });
  }

  /** Names `uid` alone for `seconds` (at least one). */
  set(ctx: Context, uid: string, seconds: number): void {
    this.setAll(ctx, [uid], seconds);
  }

  /**
   * Adds `uid` to the uids named (the newest last, at most `max`: the oldest go first), for
   * `seconds` from now (at least one).
   */
  add(ctx: Context, uid: string, seconds: number, max: number): void {
    this.setAll(ctx, [...this.readAll(ctx).filter((u) => u !== uid), uid].slice(-max), seconds);
  }

  /**
   * Names `uids` (oldest first) for `seconds` (at least one), on `path`: a browser sends the
   * cookie to that path and below only.
   */
  setAll(ctx: Context, uids: readonly string[], seconds: number, path = '/'): void {
    const joined = uids.join('~');
    this.#write(ctx, `${joined}.${this.#mac(this.#keys[0]!, joined)}`, Math.max(seconds, 1) * 1000, path);
  }

  clear(ctx: Context): void {
    this.#write(ctx, '', 0);
  }

  /** The uid the browser's cookie names (the newest, if several), when its MAC is one of ours. */
  read(ctx: Context): string | undefined {
    return this.readAll(ctx).at(-1);
  }

  /** Every uid the browser's cookie names, oldest first, when its MAC is one of ours; else none. */
  readAll(ctx: Context): string[] {
    const value = ctx.cookies.get(this.#name, { signed: false });
    const dot = value?.lastIndexOf('.') ?? -1;
    if (!value || dot < 1) return [];
    const joined = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const valid = this.#keys.some((key) => {
      const expected = Buffer.from(this.#mac(key, joined));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    return valid ? joined.split('~') : [];
  }
}
