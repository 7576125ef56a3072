/**
 * Resource indicators (RFC 8707) name this service by its origin. Real clients send
 * both `https://host` and `https://host/`; both mean the same resource, and its canonical
 * form is the configured `baseUrl` (no trailing slash), which is also the tokens' `aud`.
 *
 * @module
 */

/** The canonical form of `indicator` when it names `baseUrl`, otherwise `undefined`. */
export function canonicalResource(indicator: string, baseUrl: string): string | undefined {
  const url = URL.parse(indicator);
  if (!url || url.search || url.hash || url.username || url.password) return undefined;
  if (url.pathname !== '/') return undefined;
  return url.origin === baseUrl ? baseUrl : undefined;
}
