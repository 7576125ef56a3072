/**
 * The discovery document is the same for every request: its URLs come from `baseUrl`, not
 * from the request (./host-pinning.ts), and everything else in it from the configuration,
 * which does not change while the provider runs. So oidc-provider computes it once: its first
 * successful answer is kept, and later `GET`s of either well-known address (RFC 8414 and
 * OpenID Connect Discovery; lib/provider/dispatch.ts) are answered with the same bytes without
 * entering the provider. Every MCP client and most OAuth clients read discovery before each
 * sign-in, many on every start, so it is among the most requested documents, and the provider
 * builds it anew each time (a URL object per endpoint, the configuration's defaults).
 *
 * A kept answer is the provider's own: the same body, the same headers (the provider's CORS
 * for discovery, which allows the request's `Origin` or `*` and varies by `Origin`, and the
 * `Cache-Control` this module adds for shared caches). Anything else (`HEAD`, the `OPTIONS`
 * preflight, an error) still goes to the provider.
 *
 * Kept only when every endpoint in it is on `baseUrl`: the pin makes that so, and should a
 * request ever get past it, the document it made stays that request's and is not served to
 * everyone for as long as the process runs.
 *
 * @module
 */
import type { Context } from 'koa';

import type { AfterAnswer } from './provider-answer.ts';

/** The discovery documents' `Cache-Control`: the protected-resource metadata's. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

export interface DiscoveryCache {
  /** On the provider's answer (lib/provider/after-answer.ts): marks a discovery answer cacheable, and keeps the first. */
  readonly keep: AfterAnswer;
  /** Answers `ctx`, a `GET` of a discovery address, from the kept document; `false` when none is kept yet. */
  serve(ctx: Context): boolean;
}

export function createDiscoveryCache(baseUrl: string): DiscoveryCache {
  const origin = new URL(baseUrl).origin;
  let kept: string | undefined;
  return {
    keep(ctx) {
      const route = (ctx as { oidc?: { route?: string } }).oidc?.route;
      if (route !== 'discovery' || ctx.status !== 200) return;
      ctx.set('Cache-Control', DISCOVERY_CACHE_CONTROL);
      if (ctx.method !== 'GET' || ctx.body === null || typeof ctx.body !== 'object') return;
      // serialised once, here, and the provider sends this string too: the same bytes either way
      const document = ctx.body as Record<string, unknown>;
      const body = JSON.stringify(document);
      ctx.body = body;
      if (kept === undefined && endpointsOn(origin, document)) kept = body;
    },
    serve(ctx) {
      if (kept === undefined || ctx.method !== 'GET') return false;
      // oidc-provider's CORS for discovery (its `CORS.open`)
      ctx.vary('Origin');
      ctx.set('Access-Control-Allow-Origin', ctx.get('Origin') || '*');
      ctx.set('Cache-Control', DISCOVERY_CACHE_CONTROL);
      ctx.type = 'json';
      ctx.body = kept;
      return true;
    },
  };
}

/** Whether every endpoint of the discovery `document` (`*_endpoint`, `jwks_uri`) is on `origin`. */
function endpointsOn(origin: string, document: Record<string, unknown>): boolean {
  for (const [name, value] of Object.entries(document)) {
    if (!name.endsWith('_endpoint') && name !== 'jwks_uri') continue;
    // a feature that is off has its endpoint undefined (left out of the JSON)
    if (value === undefined) continue;
    if (typeof value !== 'string' || !URL.canParse(value) || new URL(value).origin !== origin) return false;
  }
  return true;
}
