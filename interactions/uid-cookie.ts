/**
 * A cookie naming one interaction of this browser by its uid, for what the library must find
 * again outside the interaction's own paths (oidc-provider's interaction cookies are scoped to
 * `/oauth/interaction/:uid` and `/oauth/authorize/:uid`): `uid.mac`, the MAC an HMAC-SHA256
 * under a key derived from each cookie key and the cookie's own label (the first key signs,
 * any verifies: a rotation keeps it readable), HttpOnly, SameSite=Lax, on path `/`, Secure
 * with an https `baseUrl`. A page of another site can neither read nor plant one.
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

  #write(ctx: Context, value: string, maxAge: number): void {
    // the cookies module refuses a Secure cookie on a connection it takes for plain (TLS ended at a proxy)
    if (this.#secure) ctx.cookies.secure = true;
    ctx.cookies.set(this.#name, value, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.#secure, signed: false, overwrite: true, maxAge });
  }

  /** Names `uid` for `seconds` (at least one). */
  set(ctx: Context, uid: string, seconds: number): void {
    this.#write(ctx, `${uid}.${this.#mac(this.#keys[0]!, uid)}`, Math.max(seconds, 1) * 1000);
  }

  clear(ctx: Context): void {
    this.#write(ctx, '', 0);
  }

  /** The uid the browser's cookie names, when its MAC is one of ours. */
  read(ctx: Context): string | undefined {
    const value = ctx.cookies.get(this.#name, { signed: false });
    const dot = value?.lastIndexOf('.') ?? -1;
    if (!value || dot < 1) return undefined;
    const uid = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const valid = this.#keys.some((key) => {
      const expected = Buffer.from(this.#mac(key, uid));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    return valid ? uid : undefined;
  }
}
