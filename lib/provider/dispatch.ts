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

/** The provider's middleware, and which requests it answers (for a fast path past the other routers). */
export type ProviderDispatch = Middleware & { handles(path: string): boolean };

export function dispatchToProvider(provider: Provider, options: DispatchOptions): ProviderDispatch {
  const paths = new Set(Object.values(ENDPOINTS).filter((e) => served(e, options)).map((e) => e.path));
  // after sign-in and consent the browser resumes at /oauth/authorize/:uid
  const resumePrefix = `${ENDPOINTS.authorization.path}/`;
  const rfc8414 = ENDPOINTS.authorizationServerMetadata.path;
  const oidcDiscovery = ENDPOINTS.openidConfiguration.path;
  const handle = provider.callback();
  const clientAuthenticated = new Set([ENDPOINTS.token.path, ENDPOINTS.revocation.path, ENDPOINTS.introspection.path]);

  const handles = (path: string) => paths.has(path) || path.startsWith(resumePrefix);

  return Object.assign(async function providerRoutes(ctx: Context, next: Next) {
    const { path } = ctx;
    if (!handles(path)) {
      await next();
      return;
    }
    if (clientAuthenticated.has(path) && /^basic /i.test(ctx.get('authorization'))) {
      rejectBasicClientAuth(ctx);
      return;
    }
    if (path === rfc8414) {
      // RFC 8414 metadata is the provider's discovery document
      ctx.req.url = oidcDiscovery + (ctx.querystring ? `?${ctx.querystring}` : '');
    }
    ctx.respond = false;
    await handle(ctx.req, ctx.res);
  }, { handles });
}

/**
 * oidc-provider accepts client_secret_basic wherever client_secret_post is registered (the
 * same secret either way); this service offers `none` and `client_secret_post` only, as
 * discovery says, so an HTTP Basic attempt is refused (RFC 6749 §5.2: 401 with a challenge
 * of the scheme the client tried).
 */
function rejectBasicClientAuth(ctx: Context): void {
  ctx.status = 401;
  ctx.set('WWW-Authenticate', 'Basic realm="client authentication", error="invalid_client"');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = {
    error: 'invalid_client',
    error_description: 'client_secret_basic is not supported: send client_id and client_secret in the form body (client_secret_post)',
  };
}
