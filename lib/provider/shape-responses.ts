/**
 * Post-processing of three provider responses, as provider middleware:
 * - discovery: without ID tokens, no `jwks_uri` and no `id_token_signing_alg_values_supported`
 *   (spec §2.3: clients then use UserInfo);
 * - registration: a body that is not a JSON object is `invalid_client_metadata`, the code
 *   RFC 7591 §3.2.2 gives for any metadata the server cannot accept (oidc-provider answers
 *   `invalid_request`);
 * - token: no `id_token` on refresh (spec §2.3), and none at all without ID tokens.
 *
 * @module
 */
import type { Middleware } from 'koa';

export function shapeResponses(options: { idTokens: boolean }): Middleware {
  return async function shapeProviderResponses(ctx, next) {
    await next();
    const oidc = (ctx as { oidc?: { route?: string; params?: Record<string, unknown> } }).oidc;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!oidc || !body || typeof body !== 'object') return;
    if (oidc.route === 'discovery' && !options.idTokens) {
      delete body.jwks_uri;
      delete body.id_token_signing_alg_values_supported;
    } else if (oidc.route === 'registration' && ctx.status === 400 && body.error === 'invalid_request') {
      body.error = 'invalid_client_metadata';
    } else if (oidc.route === 'token' && 'id_token' in body
      && (!options.idTokens || oidc.params?.grant_type === 'refresh_token')) {
      delete body.id_token;
    }
  };
}
