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

export class CsrfTokens {
  readonly #key: Buffer;

  constructor(secret: string) {
    // a key of its own, so a CSRF token can never double as a cookie signature
    this.#key = createHmac('sha256', secret).update('platform-auth csrf v1').digest();
  }

  issue(uid: string): string {
    return createHmac('sha256', this.#key).update(uid).digest('base64url');
  }

  verify(uid: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.issue(uid));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
