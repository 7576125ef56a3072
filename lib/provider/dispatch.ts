/**
 * Hands the provider's paths (from the endpoint table) to oidc-provider. The provider runs
 * as its own Koa application (`provider.callback()`), so its cookie keys, proxy setting and
 * error handling stay its own and nothing of the host app leaks in. Each request is handed
 * over as addressed to `baseUrl` (lib/policies/host-pinning.ts), so the provider's URLs are
 * `baseUrl`'s whatever `Host` the client sent.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';

import { TOKEN_RESPONSE_HEADERS } from '../constants.ts';
import { ENDPOINTS, isAuthorizationPath } from '../endpoints.ts';
import { allowedMethods, methodsByPath, refuseUnservedMethod } from '../http/allowed-methods.ts';
import { PROVIDER_PAGE_HEADERS } from '../pages/headers.ts';
import type { AuthorizationRewrite } from './identity-scopes.ts';
import { refuseBasicClientAuth, usesBasicClientAuth } from '../policies/client-auth.ts';
import { OPEN_CORS, openCors } from '../policies/cors.ts';
import type { DiscoveryCache } from '../policies/discovery-cache.ts';
import { createHostPin } from '../policies/host-pinning.ts';
import type { HostPinning } from '../policies/host-pinning.ts';
import { providerEndpoints } from '../served-endpoints.ts';
import type { ServingFacts } from '../served-endpoints.ts';

/** The provider's middleware, and which requests it answers (for a fast path past the other routers). */
export type ProviderDispatch = Middleware & { handles(path: string): boolean };

/**
 * The CORS response headers (Fetch standard, "HTTP responses", and Private Network Access's
 * `Access-Control-Allow-Private-Network`): every header of a CORS answer a browser reads.
 */
const CORS_RESPONSE_HEADERS = [
  'access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods',
  'access-control-allow-headers', 'access-control-max-age', 'access-control-expose-headers',
  'access-control-allow-private-network',
] as const;

/**
 * Removes the CORS headers a host middleware set before the provider answers.
 * oidc-provider leaves CORS to whoever set such a header first, its per-client rule
 * (`clientBasedCORS`, lib/policies/cors.ts) included, so a host's global CORS middleware
 * (any origin, or its own app's origin with credentials) switched the rule off: a confidential
 * client served to a browser, a refused origin allowed. The host's middleware may still answer
 * preflights itself; the actual request is then decided by the library's rule. Looked up by
 * name rather than by listing the response's headers: this runs on every provider request,
 * and the list is an array built each time (about 1% of an introspection's instructions,
 * bench/instructions.ts).
 */
function dropHostCors(ctx: Context): void {
  const { res } = ctx;
  for (const name of CORS_RESPONSE_HEADERS) {
    if (res.hasHeader(name)) res.removeHeader(name);
  }
}

/**
 * `discovery`: the discovery document the provider computed, kept by an answer step of the
 * provider (lib/policies/discovery-cache.ts), which answers later `GET`s of it here.
 */
export function dispatchToProvider(
  provider: Provider, facts: ServingFacts & HostPinning, discovery: DiscoveryCache, rewriteAuthorization?: AuthorizationRewrite,
  /**
   * answers a request whose body a host parser read first (lib/http/mount-order.ts): here, so
   * that the piece mounted on its own (`auth.middleware.provider`) says so too
   */
  refuseMisMounted?: (ctx: Context) => boolean,
): ProviderDispatch {
  const paths = new Set(providerEndpoints(facts).map((e) => e.path));
  // after sign-in and consent the browser resumes at /oauth/authorize/:uid
  const authorization = ENDPOINTS.authorization.path;
  const resumePrefix = `${authorization}/`;
  const token = ENDPOINTS.token.path;
  const rfc8414 = ENDPOINTS.authorizationServerMetadata.path;
  const oidcDiscovery = ENDPOINTS.openidConfiguration.path;
  // Variant B: oidc-provider's registration answers no CORS of its own (no preflight route, no
  // Access-Control-* headers), so the preflight is answered here and the header set before handing over
  const registration = paths.has(ENDPOINTS.registration.path) ? ENDPOINTS.registration.path : undefined;
  const registrationCors = openCors(OPEN_CORS.registration);
  const handle = provider.callback();
  const pinHost = createHostPin(facts);

  const handles = (path: string) => paths.has(path) || path.startsWith(resumePrefix);
  // the methods each path answers (the endpoint table); any other is a 405 JSON with `Allow`,
  // where the provider's router had no route for it and Koa answered a plain-text 404
  const methods = methodsByPath(providerEndpoints(facts));
  const resumeMethods = allowedMethods(ENDPOINTS.authorization);

  /**
   * The provider answers on the shared response (headers set on ctx before stay); the pin lasts
   * until it has, and the host's own middleware after sees the request as it came.
   */
  const handOver = (ctx: Context): Promise<void> => {
    ctx.respond = false;
    const unpin = pinHost(ctx.req, ctx);
    let answered: Promise<void>;
    try {
      answered = handle(ctx.req, ctx.res);
    } catch (error) {
      unpin();
      throw error;
    }
    return answered.then(unpin, (error: unknown) => {
      unpin();
      throw error;
    });
  };

  /** What a provider path answers once its method is served. */
  const answer = (ctx: Context): Promise<void> => {
    const { path } = ctx;
    // every token-endpoint answer, the refusal of HTTP Basic below and the provider's errors included
    if (path === token) ctx.set(TOKEN_RESPONSE_HEADERS);
    if (usesBasicClientAuth(ctx)) {
      refuseBasicClientAuth(ctx);
      return Promise.resolve();
    }
    if (path === rfc8414 || path === oidcDiscovery) {
      if (discovery.serve(ctx)) return Promise.resolve();
      // RFC 8414 metadata is the provider's discovery document
      if (path === rfc8414) ctx.req.url = oidcDiscovery + (ctx.querystring ? `?${ctx.querystring}` : '');
    }
    // a page the provider may write itself (form_post) gets the pages' CSP and framing headers
    if (path === authorization || path.startsWith(resumePrefix)) ctx.set(PROVIDER_PAGE_HEADERS);
    // the authorization request as the provider's router matches it, one trailing slash included
    const rewriting = isAuthorizationPath(path) ? rewriteAuthorization?.(ctx.req) : undefined;
    return rewriting ? rewriting.then(() => handOver(ctx)) : handOver(ctx);
  };

  // no async frame: this runs on every request the provider answers (see lib/storage/outage.ts, guard)
  return Object.assign(function providerRoutes(ctx: Context, next: Next): Promise<void> {
    const { path } = ctx;
    if (!handles(path)) return next();
    if (refuseMisMounted?.(ctx)) return Promise.resolve();
    dropHostCors(ctx);
    // every answer of registration, its 405 included, carries its CORS headers (Variant B: set here)
    if (path === registration) return registrationCors(ctx, () => (refuseUnservedMethod(ctx, methods.get(path)!) ? Promise.resolve() : answer(ctx)));
    if (refuseUnservedMethod(ctx, methods.get(path) ?? resumeMethods)) return Promise.resolve();
    return answer(ctx);
  }, { handles });
}
