/**
 * CSRF tokens for the server-rendered forms.
 *
 * Each form carries HMAC(key, binding), where the binding is what the form acts on (the
 * interaction uid for sign-in and consent). The interaction itself is bound to the browser by
 * oidc-provider's signed interaction cookie, so a forged POST needs both the cookie and the
 * uid, and the uid never leaves the page (no-referrer).
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `secrets`: one, or the cookie keys newest first. Tokens are issued with the first and
 * accepted from any, so a form shown before a key rotation (`cookieKeys: [NEW, OLD]`) is
 * still taken after it, as its signed cookies are; dropping a key ends what it signed.
 */
export class CsrfTokens {
  readonly #keys: readonly Buffer[];

  constructor(secrets: string | readonly string[]) {
    const list = typeof secrets === 'string' ? [secrets] : secrets;
    if (list.length === 0) throw new TypeError('CsrfTokens: give at least one secret');
    // a key of its own, so a CSRF token can never double as a cookie signature
    this.#keys = list.map((secret) => createHmac('sha256', secret).update('platform-auth csrf v1').digest());
  }

  issue(uid: string): string {
    return tokenOf(this.#keys[0]!, uid);
  }

  verify(uid: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const given = Buffer.from(token);
    return this.#keys.some((key) => {
      const expected = Buffer.from(tokenOf(key, uid));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }
}

function tokenOf(key: Buffer, uid: string): string {
  return createHmac('sha256', key).update(uid).digest('base64url');
}
