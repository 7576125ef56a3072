/**
 * Issuer-pinned URLs: every URL the service emits is built from `baseUrl`, never from the
 * request's `Host`, `X-Forwarded-Host` or `X-Forwarded-Proto`, nor from the connection's
 * scheme (plain HTTP behind a TLS-terminating load balancer).
 *
 * The library's own routers build their URLs from `baseUrl` already; oidc-provider builds its
 * endpoint URLs (discovery, `returnTo`, form actions) from the request (`ctx.oidc.urlFor` is
 * `new URL(path, ctx.href)`). So the request is made to say it was addressed to `baseUrl`
 * before it is handed to the provider ({@link createHostPin}, used by
 * lib/provider/dispatch.ts): a foreign `Host` is ignored, not refused, since no answer depends
 * on it any more (README, Security → Issuer-pinned URLs). With the URLs pinned, discovery is
 * the same for every request, and is computed once (./discovery-cache.ts).
 *
 * The request line can name a host too: HTTP/1.1 servers must accept a target in absolute
 * form (`GET http://other.example/path`, RFC 9112 §3.2.2), whose authority then stands for
 * `Host`, and Koa's `href` returns such a target as it is (and glues any other scheme's onto
 * the origin). So the pin also hands the provider such a request as the path and query it was
 * routed by (Koa's `path` and `search`, as the dispatcher read them: no other parser, which
 * would resolve `..` or percent-escapes differently and let the provider run a route other
 * than the one checked), or one request could have the provider build its URLs (the
 * discovery document it computes once, a `returnTo`) on any host.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/** What the pin reads of the resolved options. */
export interface HostPinning {
  readonly baseUrl: string;
}

/**
/** What the request was routed by: Koa's `path` and `search` of its context. */
export interface RoutedTarget {
  readonly path: string;
  readonly search: string;
}

/**
 * A function that rewrites a request so that it reads as addressed to `baseUrl`: `Host` (and
 * HTTP/2's `:authority` when present), `X-Forwarded-Host` and `X-Forwarded-Proto`, and a
 * target that is not in origin form to `routed`'s path and query. Returns the function that
 * puts the original request back, for the host app's middleware that runs after.
 *
 * The forwarded headers are pinned whatever `options.proxy` says, and the provider always
 * trusts them (`provider.proxy = true`, lib/platform-auth.ts): that is how it learns
 * `baseUrl`'s scheme. Each is written only where it decides something: `X-Forwarded-Host`
 * when the request has one (without it, Koa reads `Host`, pinned), `X-Forwarded-Proto` when
 * the request has one or `baseUrl` is not `http:` (without it, Koa reads `http` off a plain
 * connection). So a request that sent neither is handed back without a header to delete
 * (a deletion turns V8's object into a slower dictionary, and this runs on every provider
 * request). Behind a TLS-terminating load balancer the connection is plain HTTP, and a
 * provider reading the scheme from the connection built `http://` endpoints beside an
 * `https://` issuer and set its cookies without `Secure`. What the client sent in these
 * headers never reaches the provider. (`options.proxy` still says whether the client's
 * address is read from `X-Forwarded-For`; the library reads it itself, never as the
 * provider's `ctx.ip`.)
 */
export function createHostPin(pinning: HostPinning): (req: IncomingMessage, routed: RoutedTarget) => () => void {
  const base = new URL(pinning.baseUrl);
  const host = base.host;
  const proto = base.protocol.slice(0, -1);

  // absent, Koa reads the scheme off the connection: `http` on a plain one (TLS ends before us)
  const addsProtoWhenAbsent = proto !== 'http';

  // the saved values held in locals, not arrays of pairs: this runs on every provider request
  return (req, routed) => {
    const headers = req.headers as Record<string, string | string[] | undefined>;
    const savedHost = headers.host;
    const savedForwardedHost = headers['x-forwarded-host'];
    const savedForwardedProto = headers['x-forwarded-proto'];
    // HTTP/2 only
    const hasAuthority = ':authority' in headers;
    const savedAuthority = hasAuthority ? headers[':authority'] : undefined;
    headers.host = host;
    if (savedForwardedHost !== undefined) headers['x-forwarded-host'] = host;
    const pinsProto = savedForwardedProto !== undefined || addsProtoWhenAbsent;
    if (pinsProto) headers['x-forwarded-proto'] = proto;
    if (hasAuthority) headers[':authority'] = host;
    const { url } = req;
    // '/': origin form, every browser's and the usual case, decided without parsing
    const rewritten = url === undefined || url.charCodeAt(0) !== 47;
    if (rewritten) req.url = `${routed.path}${routed.search}`;
    return () => {
      restore(headers, 'host', savedHost);
      if (savedForwardedHost !== undefined) headers['x-forwarded-host'] = savedForwardedHost;
      if (pinsProto) restore(headers, 'x-forwarded-proto', savedForwardedProto);
      if (hasAuthority) restore(headers, ':authority', savedAuthority);
      if (rewritten) req.url = url;
    };
  };
}

/** Puts a header back as it came: removed when the client had not sent it. */
function restore(headers: Record<string, string | string[] | undefined>, name: string, value: string | string[] | undefined): void {
  if (value === undefined) delete headers[name];
  else headers[name] = value;
}
