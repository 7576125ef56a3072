/**
 * Security headers for every server-rendered page (sign-in, consent, notices, the outage
 * page, a host's own pages such as the demo's admin page).
 *
 * CSP: nothing loads but the page's own nonce'd stylesheet; no framing. `form-action` lists
 * 'self' and the client's redirect origin, because browsers apply it to the redirects that
 * follow a form submission and the flow ends with a redirect to the client.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

import type { Context } from 'koa';

const NONCE_BYTES = 16;
/** Nonces per read of the CSPRNG: a page takes a slice of random bytes, not a call into OpenSSL. */
const NONCES_PER_READ = 128;
let nonceBytes = Buffer.alloc(0);
let nonceAt = 0;

/** A fresh CSP nonce for one response: 16 random bytes, each byte used once. */
export function createNonce(): string {
  if (nonceAt + NONCE_BYTES > nonceBytes.length) {
    nonceBytes = randomBytes(NONCE_BYTES * NONCES_PER_READ);
    nonceAt = 0;
  }
  const nonce = nonceBytes.toString('base64', nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

/**
 * A CSP source expression for the origin (or custom scheme) of `redirectUri`. An IPv6 literal
 * host (`http://[::1]:5555`, the IPv6 loopback of RFC 8252 §7.3) has no host-source form in
 * CSP: browsers drop it as invalid and then block the form's redirect to it, so its scheme
 * (`http:`) stands in, for that page alone.
 */
export function redirectSource(redirectUri: string | undefined): string | undefined {
  const url = redirectUri ? URL.parse(redirectUri) : null;
  if (!url) return undefined;
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.hostname.startsWith('[') ? url.protocol : url.origin;
  // native-app custom scheme (RFC 8252 §7.1); scheme sources contain no quotes or spaces
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}

/** What else a page may load. */
export interface PageSources {
  /** origins (`https://cdn.example`) the page's images come from: a site's logo */
  readonly images?: readonly string[];
}

const ORIGIN = /^https:\/\/[a-z0-9.-]+(?::\d+)?$/i;

/**
 * CSP, framing, sniffing, referrer and caching headers of an HTML page; `redirectUri` may be a
 * form's final destination, `sources.images` the origins of its images (https origins only:
 * anything else is left out, so no value can add a directive).
 */
export function setPageHeaders(ctx: Context, nonce: string, redirectUri?: string, sources: PageSources = {}): void {
  const formAction = ["'self'", redirectSource(redirectUri)].filter(Boolean).join(' ');
  const images = (sources.images ?? []).filter((o) => ORIGIN.test(o));
  ctx.set('Content-Security-Policy', [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    ...(images.length ? [`img-src ${images.join(' ')}`] : []),
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

/**
 * The headers of the pages oidc-provider writes itself at the authorization endpoint and its
 * resume route: the `form_post` response mode's self-submitting form, which carries the code.
 * They are set before the provider answers (lib/provider/dispatch.ts): oidc-provider then adds
 * its inline script's hash to `script-src` (its `pushInlineSha`), and `'strict-dynamic'` with
 * no hash or nonce of its own lets nothing else run. No `form-action`: the form's target is
 * the client's registered redirect URI, which the provider has checked. The library's own
 * pages, the error page included, replace these with their own ({@link setPageHeaders}); on a
 * redirect they are inert.
 */
export const PROVIDER_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': "default-src 'none'; script-src 'strict-dynamic'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

/**
 * The headers of GraphiQL (`accountApi.graphiql`, development only): no framing (the page
 * shares its origin with the sign-in and consent pages), no sniffing, no referrer, no `<base>`,
 * plugins or form targets. No script policy: GraphiQL runs inline scripts and workers and loads
 * its code from a CDN, which is why it is refused in production.
 */
export const DEVELOPMENT_TOOL_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': "frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});
