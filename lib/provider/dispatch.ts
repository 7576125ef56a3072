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

import { ENDPOINTS } from '../endpoints.ts';
import { refuseBasicClientAuth, usesBasicClientAuth } from '../policies/client-auth.ts';
import { OPEN_CORS, openCors } from '../policies/cors.ts';
import { createHostPin } from '../policies/host-pinning.ts';
import type { HostPinning } from '../policies/host-pinning.ts';
import { providerEndpoints } from '../served-endpoints.ts';
import type { ServingFacts } from '../served-endpoints.ts';

/** The provider's middleware, and which requests it answers (for a fast path past the other routers). */
export type ProviderDispatch = Middleware & { handles(path: string): boolean };

export function dispatchToProvider(provider: Provider, facts: ServingFacts & HostPinning): ProviderDispatch {
  const paths = new Set(providerEndpoints(facts).map((e) => e.path));
  // after sign-in and consent the browser resumes at /oauth/authorize/:uid
  const resumePrefix = `${ENDPOINTS.authorization.path}/`;
  const rfc8414 = ENDPOINTS.authorizationServerMetadata.path;
  const oidcDiscovery = ENDPOINTS.openidConfiguration.path;
  // Variant B: oidc-provider's registration answers no CORS of its own (no preflight route, no
  // Access-Control-* headers), so the preflight is answered here and the header set before handing over
  const registration = paths.has(ENDPOINTS.registration.path) ? ENDPOINTS.registration.path : undefined;
  const registrationCors = openCors(OPEN_CORS.registration);
  const handle = provider.callback();
  const pinHost = createHostPin(facts);

  const handles = (path: string) => paths.has(path) || path.startsWith(resumePrefix);

  return Object.assign(async function providerRoutes(ctx: Context, next: Next) {
    const { path } = ctx;
    if (!handles(path)) {
      await next();
      return;
    }
    if (usesBasicClientAuth(ctx)) {
      refuseBasicClientAuth(ctx);
      return;
    }
    if (path === rfc8414) {
      // RFC 8414 metadata is the provider's discovery document
      ctx.req.url = oidcDiscovery + (ctx.querystring ? `?${ctx.querystring}` : '');
    }
    const handOver = async () => {
      ctx.respond = false;
      const unpin = pinHost(ctx.req);
      try {
        await handle(ctx.req, ctx.res);
      } finally {
        unpin();
      }
    };
    // headers set on ctx are set on the shared response, which the provider's answer keeps
    await (path === registration ? registrationCors(ctx, handOver) : handOver());
  }, { handles });
}
