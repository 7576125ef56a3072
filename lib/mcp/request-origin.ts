/**
 * Host and Origin validation for `/mcp` (MCP transports: servers MUST validate `Origin`;
 * DNS-rebinding protection). A request whose `Host` is not this server's, or whose `Origin`
 * is present and not allowed, is refused with 403 before anything else is looked at. A
 * request without `Origin` (every non-browser client) is not affected by the origin list.
 *
 * @module
 */
import type { Context } from 'koa';

// a page on the user's own machine, any port: never a rebound name
import { isLoopbackOrigin } from '../policies/cors.ts';

export interface OriginPolicy {
  /** `host[:port]` values, lower-case, without a default port ({@link withoutDefaultPort}) */
  readonly hosts: ReadonlySet<string>;
  /** allowed `Origin` values, or every origin */
  readonly origins: ReadonlySet<string> | '*';
  /** also allow origins on a loopback host (developer tools such as the MCP Inspector) */
  readonly loopback: boolean;
  /** take the host from `X-Forwarded-Host` (behind a proxy that sets it) */
  readonly proxy: boolean;
  /** `options.proxyHops`: the entry of `X-Forwarded-Host` this many places from the right counts */
  readonly proxyHops: number;
}

/**
 * The host the request was sent to, as the client addressed it. Of `X-Forwarded-Host`, the
 * entry the outermost trusted proxy wrote (`proxyHops` from the right, as for the client's
 * address): a proxy that appends leaves what the client sent on the left, and a rebound name
 * would pass by putting this server's host there. One entry (a proxy that sets the header) is
 * read whatever `proxyHops` says.
 */
function requestHost(ctx: Context, policy: OriginPolicy): string {
  const entries = policy.proxy ? ctx.get('x-forwarded-host').split(',').map((s) => s.trim()).filter(Boolean) : [];
  const forwarded = entries.slice(-policy.proxyHops)[0];
  return withoutDefaultPort((forwarded ?? authorityOf(ctx)).toLowerCase());
}

/**
 * `host[:port]` with a default port (`:80`, `:443`) left out: the same host (RFC 9110 §4.2.3),
 * as `new URL()` writes it, whichever way a client or a proxy spells it (Go's client, and
 * nginx's `X-Forwarded-Host $host:$server_port`, send it). Both sides of the comparison go
 * through it. The port is no part of the rebinding defence: a rebound name is another name.
 */
export function withoutDefaultPort(host: string): string {
  return host.replace(/:(?:80|443)$/, '');
}

/**
 * What the client addressed: over HTTP/2 its `:authority` (Node's compatibility layer sets no
 * `Host` from it, and clients send `:authority` instead of `Host`), else `Host`, as Koa's
 * `request.host` reads them.
 */
function authorityOf(ctx: Context): string {
  return (ctx.req.httpVersionMajor >= 2 ? ctx.get(':authority') : '') || ctx.get('host');
}

/** Why the request is refused (`Invalid Host: …`, `Invalid Origin: …`), or `undefined`. */
export function refusedOrigin(ctx: Context, policy: OriginPolicy): string | undefined {
  const host = requestHost(ctx, policy);
  if (!policy.hosts.has(host)) return `Invalid Host: ${host || '(none)'}`;
  const origin = ctx.get('origin');
  if (!origin || policy.origins === '*' || policy.origins.has(origin.toLowerCase())) return undefined;
  if (policy.loopback && isLoopbackOrigin(origin)) return undefined;
  return `Invalid Origin: ${origin}`;
}
