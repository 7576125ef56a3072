/**
 * Security headers and CSRF tokens for the server-rendered pages.
 *
 * CSP: nothing loads but the page's own nonce'd stylesheet; no framing. `form-action` lists
 * 'self' and the client's redirect origin, because browsers apply it to the redirects that
 * follow a form submission and the flow ends with a redirect to the client.
 *
 * CSRF: each form carries HMAC(key, interaction uid). The interaction itself is bound to the
 * browser by oidc-provider's signed interaction cookie, so a forged POST needs both the
 * cookie and the uid, and the uid never leaves the page (no-referrer).
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import type { Context } from 'koa';

export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/** A CSP source expression for the origin (or custom scheme) of `redirectUri`. */
function redirectSource(redirectUri: string | undefined): string | undefined {
  const url = redirectUri ? URL.parse(redirectUri) : null;
  if (!url) return undefined;
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  // native-app custom scheme (RFC 8252 §7.1); scheme sources contain no quotes or spaces
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}

export function setPageHeaders(ctx: Context, nonce: string, redirectUri?: string): void {
  const formAction = ["'self'", redirectSource(redirectUri)].filter(Boolean).join(' ');
  ctx.set('Content-Security-Policy', [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'html';
}

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
