/**
 * Hands the provider's paths (from the endpoint table) to oidc-provider. The provider runs
 * as its own Koa application (`provider.callback()`), so its cookie keys, proxy setting and
 * error handling stay its own and nothing of the host app leaks in.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';

import { ENDPOINTS } from '../endpoints.ts';
import type { EndpointDefinition } from '../endpoints.ts';

export interface DispatchOptions {
  readonly idTokens: boolean;
  readonly registration: boolean;
}

function served(e: EndpointDefinition, options: DispatchOptions): boolean {
  if (e.owner !== 'provider') return false;
  if (e.id === 'jwks') return options.idTokens;
  if (e.id === 'registration') return options.registration;
  return true;
}

export function dispatchToProvider(provider: Provider, options: DispatchOptions): Middleware {
  const paths = new Set(Object.values(ENDPOINTS).filter((e) => served(e, options)).map((e) => e.path));
  // after sign-in and consent the browser resumes at /oauth/authorize/:uid
  const resumePrefix = `${ENDPOINTS.authorization.path}/`;
  const rfc8414 = ENDPOINTS.authorizationServerMetadata.path;
  const oidcDiscovery = ENDPOINTS.openidConfiguration.path;
  const handle = provider.callback();

  return async function providerRoutes(ctx: Context, next: Next) {
    const { path } = ctx;
    if (!paths.has(path) && !path.startsWith(resumePrefix)) {
      await next();
      return;
    }
    if (path === rfc8414) {
      // RFC 8414 metadata is the provider's discovery document
      ctx.req.url = oidcDiscovery + (ctx.querystring ? `?${ctx.querystring}` : '');
    }
    ctx.respond = false;
    await handle(ctx.req, ctx.res);
  };
}
