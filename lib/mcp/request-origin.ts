/**
 * Host and Origin validation for `/mcp` (MCP transports: servers MUST validate `Origin`;
 * DNS-rebinding protection). A request whose `Host` is not this server's, or whose `Origin`
 * is present and not allowed, is refused with 403 before anything else is looked at. A
 * request without `Origin` (every non-browser client) is not affected by the origin list.
 * The first refusal of each kind is logged with the option to change ({@link refusalHint}).
 *
 * @module
 */
import type { Context } from 'koa';

import { printable } from '../events/printable.ts';
import { isLoopbackOrigin } from '../policies/cors.ts';

export interface OriginPolicy {
  /** `host[:port]` values, lower-case, without a default port ({@link withoutDefaultPort}) */
  readonly hosts: ReadonlySet<string>;
  /** allowed `Origin` values, or every origin; pages on a loopback host are allowed too */
  readonly origins: ReadonlySet<string> | '*';
  /** take the host from `X-Forwarded-Host` (behind a proxy that sets it) */
  readonly proxy: boolean;
  /** `options.proxyHops`: the entry of `X-Forwarded-Host` this many places from the right counts */
  readonly proxyHops: number;
}

/** The host the request was sent to, and the header it was read from. */
interface RequestHost {
  /** lower-case, without a default port ({@link withoutDefaultPort}) */
  readonly host: string;
  readonly header: 'Host' | 'X-Forwarded-Host';
}

/**
 * The host the request was sent to, as the client addressed it. Of `X-Forwarded-Host`, the
 * entry the outermost trusted proxy wrote (`proxyHops` from the right, as for the client's
 * address): a proxy that appends leaves what the client sent on the left, and a rebound name
 * would pass by putting this server's host there. One entry (a proxy that sets the header) is
 * read whatever `proxyHops` says.
 */
function requestHost(ctx: Context, policy: OriginPolicy): RequestHost {
  const entries = policy.proxy ? ctx.get('x-forwarded-host').split(',').map((s) => s.trim()).filter(Boolean) : [];
  const forwarded = entries.slice(-policy.proxyHops)[0];
  return {
    host: withoutDefaultPort((forwarded ?? authorityOf(ctx)).toLowerCase()),
    header: forwarded === undefined ? 'Host' : 'X-Forwarded-Host',
  };
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

/** A refused request: what was refused, and the SDK's wording of it for the 403. */
export interface OriginRefusal {
  readonly kind: 'host' | 'origin';
  /** the header the refused value came from */
  readonly header: 'Host' | 'X-Forwarded-Host' | 'Origin';
  /** the refused value, as the request sent it (the request's: never log it unescaped) */
  readonly value: string;
  /** `Invalid Host: …`, `Invalid Origin: …` (the SDK's own messages, after `Forbidden: `) */
  readonly reason: string;
}

/** Why the request is refused, or `undefined`. */
export function refusedOrigin(ctx: Context, policy: OriginPolicy): OriginRefusal | undefined {
  const { host, header } = requestHost(ctx, policy);
  if (!policy.hosts.has(host)) return { kind: 'host', header, value: host, reason: `Invalid Host: ${host || '(none)'}` };
  const origin = ctx.get('origin');
  if (!origin || policy.origins === '*' || policy.origins.has(origin.toLowerCase())) return undefined;
  // a page on the user's own machine (developer tools such as the MCP Inspector): never a rebound name
  if (isLoopbackOrigin(origin)) return undefined;
  return { kind: 'origin', header: 'Origin', value: origin, reason: `Invalid Origin: ${origin}` };
}

/** How much of a refused value the log line shows: a host name with its port fits. */
const SHOWN = 300;

/**
 * The log line for the first refusal of its kind: what was refused, what `/mcp` answers
 * instead and the option to change. A request chose the value: it is cut and its control
 * characters escaped. Nothing else on the path says it: the 403 goes to the client (whose SDK
 * reports a failed version negotiation), and every other endpoint answers any `Host`.
 */
export function refusalHint(refusal: OriginRefusal, policy: OriginPolicy, configured: { readonly hosts: boolean; readonly origins: boolean }): string {
  const shown = JSON.stringify(printable(refusal.value, SHOWN));
  if (refusal.kind === 'host') {
    const answered = configured.hosts
      ? `the Host of baseUrl and those in options.mcp.allowedHosts (${[...policy.hosts].join(', ')}) only`
      : `the Host of baseUrl (${[...policy.hosts].join(', ')}) only`;
    const list = 'If clients reach this server under that name';
    const fix = refusal.header === 'X-Forwarded-Host'
      ? `${list}, list it in options.mcp.allowedHosts; otherwise have the proxy send the name clients use in X-Forwarded-Host (options.proxyHops says which entry counts).`
      : policy.proxy
        ? `${list}, list it in options.mcp.allowedHosts; options.proxy is set, but the request had no X-Forwarded-Host: have the proxy send the name clients use in it.`
        : `${list} (localhost and 127.0.0.1 are different hosts), list it in options.mcp.allowedHosts; `
          + 'behind a proxy that does not pass Host on, set options.proxy and have the proxy send X-Forwarded-Host.';
    return `platform-auth: /mcp answered 403 to ${refusal.header} ${refusal.value ? shown : '(none)'}: it answers ${answered}, against DNS rebinding (the other endpoints answer any Host). `
      + `${fix} Logged once per instance; later refused hosts are not logged.`;
  }
  const allowed = configured.origins
    ? `the origin of baseUrl, those in options.mcp.allowedOrigins (${[...(policy.origins as ReadonlySet<string>)].join(', ')}) and pages on a loopback host`
    : `the origin of baseUrl (${[...(policy.origins as ReadonlySet<string>)].join(', ')}) and pages on a loopback host`;
  return `platform-auth: /mcp answered 403 to Origin ${shown}: a browser page may call it only from ${allowed}, against DNS rebinding. `
    + 'To let a web app call /mcp, list its origin in options.mcp.allowedOrigins (or "*": tokens travel in the Authorization header, never in cookies). '
    + 'Logged once per instance; later refused origins are not logged.';
}
