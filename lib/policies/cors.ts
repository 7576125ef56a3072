/**
 * Cross-origin calls from browsers (CORS): who may call which endpoint from a page on another
 * origin. Tokens travel in the `Authorization` header and never in cookies, so no answer here
 * allows credentials, and an open endpoint is open to every origin (`*`):
 *
 * - {@link OPEN_CORS}: the endpoints any page may call: the protected-resource metadata,
 *   UserInfo (OpenID Connect Core §5.3; its `WWW-Authenticate` challenge is readable) and
 *   registration (it takes no credentials at all). {@link openCors} answers them, preflight
 *   included.
 * - {@link allowClientOrigin}: oidc-provider's `clientBasedCORS` for its client-facing
 *   endpoints (token, revocation, introspection). A confidential client is never served to a
 *   browser; a public client from the origins of its redirect URIs, and a public client with a
 *   loopback redirect URI from any loopback origin too: its loopback redirects match on any
 *   port (RFC 8252 §7.3), so the page that receives its code may be on any of them.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';

import { isLoopbackUri } from '../constants.ts';

/** What an open endpoint allows a page of any origin to do. */
export interface OpenCorsRule {
  /** the methods of the actual requests */
  readonly methods: readonly string[];
  /** request headers a page may send beyond the CORS-safelisted ones (the preflight allows them) */
  readonly allowHeaders: readonly string[];
  /** response headers a page may read beyond the CORS-safelisted ones */
  readonly exposeHeaders: readonly string[];
}

/** Seconds a browser may cache a preflight answer; oidc-provider's preflights say the same. */
export const PREFLIGHT_MAX_AGE = 3600;

function rule(methods: string[], allowHeaders: string[], exposeHeaders: string[]): OpenCorsRule {
  return Object.freeze({ methods, allowHeaders, exposeHeaders });
}

export const OPEN_CORS = Object.freeze({
  /** RFC 9728 metadata; MCP clients send `MCP-Protocol-Version` with it */
  protectedResourceMetadata: rule(['GET'], ['MCP-Protocol-Version'], []),
  /**
   * OpenID Connect Core §5.3: the bearer token in the header, the access-token form body; the
   * challenge readable, and `Retry-After` of a 503 (storage unreachable, lib/storage/outage.ts)
   */
  userinfo: rule(['GET', 'POST'], ['Authorization', 'Content-Type'], ['WWW-Authenticate', 'Retry-After']),
  /** `POST /api/oauth/register`, both variants: a JSON body and no credentials; `Retry-After` of a 429 or 503 readable */
  registration: rule(['POST'], ['Content-Type'], ['Retry-After']),
});

/**
 * `/mcp`, for the origins `options.mcp.allowedOrigins` allows (lib/mcp/request-origin.ts
 * refuses the others first): the bearer token, the JSON body and the MCP headers of both
 * revisions in; the challenge, the MCP headers and the `Retry-After` of a 503 (no answer in
 * time, lib/mcp/answer-bound.ts; storage unreachable) readable.
 */
export const MCP_CORS = rule(
  ['POST'],
  ['Authorization', 'Content-Type', 'Accept', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Mcp-Session-Id', 'Last-Event-ID'],
  ['WWW-Authenticate', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Retry-After'],
);

/**
 * `/mcp`'s rule for a server whose tools mirror arguments in headers (`x-mcp-header`,
 * lib/mcp/param-headers.ts): {@link MCP_CORS}, and the preflight allows each
 * `Mcp-Param-<Name>` too, as a 2026-07-28 client sends them with every call of such a tool.
 */
export function mcpCors(paramHeaderNames: readonly string[]): OpenCorsRule {
  const known = new Set(MCP_CORS.allowHeaders.map((name) => name.toLowerCase()));
  const extra = paramHeaderNames.map((name) => `Mcp-Param-${name}`).filter((name) => {
    const fresh = !known.has(name.toLowerCase());
    known.add(name.toLowerCase());
    return fresh;
  });
  return extra.length ? rule([...MCP_CORS.methods], [...MCP_CORS.allowHeaders, ...extra], [...MCP_CORS.exposeHeaders]) : MCP_CORS;
}

/**
 * Answers CORS for an open endpoint: `Access-Control-Allow-Origin: *` on every answer (errors
 * and challenges included), and an `OPTIONS` request (the preflight) with `204`.
 */
export function openCors(corsRule: OpenCorsRule): Middleware {
  return async function cors(ctx: Context, next: Next) {
    if (writeCors(ctx, corsRule, '*')) return;
    await next();
  };
}

/**
 * Writes the CORS answer of `corsRule` for `allowOrigin` (`*`, or the request's own origin,
 * which then varies the answer by `Origin`); answers an `OPTIONS` preflight with 204 and
 * returns `true` then, so the caller stops.
 */
export function writeCors(ctx: Context, corsRule: OpenCorsRule, allowOrigin: string): boolean {
  ctx.set('Access-Control-Allow-Origin', allowOrigin);
  if (allowOrigin !== '*') ctx.vary('Origin');
  const methods = corsRule.methods.join(', ');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Allow', `${methods}, OPTIONS`);
    ctx.set('Access-Control-Allow-Methods', methods);
    if (corsRule.allowHeaders.length) ctx.set('Access-Control-Allow-Headers', corsRule.allowHeaders.join(', '));
    ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
    ctx.status = 204;
    return true;
  }
  if (corsRule.exposeHeaders.length) ctx.set('Access-Control-Expose-Headers', corsRule.exposeHeaders.join(', '));
  return false;
}

/**
 * The `Retry-After` of a provider answer (a 429 of a rate limit, a 503 of a storage outage)
 * made readable to the page of another origin it is answered to: oidc-provider's CORS on the
 * token, revocation and introspection endpoints exposes only its own headers
 * (`WWW-Authenticate`, `DPoP-Nonce`), so a browser client could not tell when to retry.
 */
export function exposeRetryAfter(ctx: Context): void {
  if (!ctx.response.get('Access-Control-Allow-Origin') || !ctx.response.get('Retry-After')) return;
  const exposed = ctx.response.get('Access-Control-Expose-Headers');
  if (/(?:^|,)\s*retry-after\s*(?:,|$)/i.test(exposed)) return;
  ctx.set('Access-Control-Expose-Headers', exposed ? `${exposed}, Retry-After` : 'Retry-After');
}

/**
 * A page origin on the loopback interface over `http`, on any port: `http://localhost:5173`,
 * `http://127.0.0.1:8080`, `http://[::1]:3000`. Only a bare origin (no path, no user info).
 */
export function isLoopbackOrigin(origin: string): boolean {
  return isLoopbackUri(origin) && URL.parse(origin)!.origin === origin;
}

/** What {@link allowClientOrigin} reads of a client (oidc-provider's `Client` has both). */
export interface CorsClient {
  readonly clientAuthMethod?: string | undefined;
  readonly redirectUris?: readonly string[] | undefined;
}

/**
 * oidc-provider's `clientBasedCORS`: whether a page of `origin` may call the token,
 * revocation or introspection endpoint as `client`.
 *
 * - Confidential clients: never (their secret does not belong in a browser).
 * - Public clients: from the origin of any of their redirect URIs (oidc-provider's own rule),
 *   and when one of those is a loopback redirect URI, from any loopback origin: such a
 *   redirect matches on any port (RFC 8252 §7.3), so the client's page may be served from any
 *   of them. Whoever controls a loopback port already receives the client's redirects there.
 * - The opaque origin `null` (sandboxed frames, `file:` pages): never.
 */
export function allowClientOrigin(origin: string, client: CorsClient): boolean {
  if (origin === 'null' || client.clientAuthMethod !== 'none') return false;
  const redirectUris = client.redirectUris ?? [];
  if (redirectUris.some((uri) => URL.parse(uri)?.origin === origin)) return true;
  return isLoopbackOrigin(origin) && redirectUris.some((uri) => isLoopbackUri(uri));
}
