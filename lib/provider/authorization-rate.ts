/**
 * The authorization-request rate per client address (lib/policies/authorization-rate.ts holds
 * the rule), as a step in front of the provider, run by its storage outage guard
 * (lib/storage/outage.ts; a storage failure while counting is a 503): before oidc-provider
 * reads the request, so a refused request stores nothing.
 *
 * The refusal is **429** with `Retry-After` and a short page (the notice template, in the
 * request's language, under the pages' CSP), not a
 * redirect to the client: the request has not been checked yet (its client and redirect URI
 * are unknown), and RFC 6749 §4.1.2.1 allows an error redirect only to a verified redirect
 * URI. It is an `authorization.failed` event (`temporarily_unavailable`), without a client: the
 * request's `client_id` is unchecked, and the per-client trace must not take a caller's word
 * for whose trace to write.
 *
 * The client's address is read as the other limits read it (`options.proxy`,
 * `options.proxyHops`; lib/http/client-address.ts), never from the host app's `ctx.ip`.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';

import type { AdapterFactory } from '../../adapters/types.ts';
import { isAuthorizationPath } from '../endpoints.ts';
import { emitFor } from '../events/diagnostics.ts';
import type { ClientAddresses } from '../http/client-address.ts';
import type { PageRenderer } from '../pages/renderer.ts';
import { waitWords } from '../pages/wait-words.ts';
import { AddressRateLimiter } from '../policies/address-rate.ts';
import type { AddressRateSettings } from '../policies/address-rate.ts';
import { AUTHORIZATION_RATE_MODEL, authorizationRequestCost } from '../policies/authorization-rate.ts';

export interface AuthorizationRateDeps {
  readonly adapter: AdapterFactory;
  /** `options.authorizationRateLimit`; `false`: no limit (the middleware is not mounted) */
  readonly settings: AddressRateSettings;
  /** the instance's client addresses for limits (lib/http/client-address.ts) */
  readonly addresses: ClientAddresses;
  /** the pages' renderer (language, brand, templates), for the 429 page */
  readonly pages: PageRenderer;
}

export function limitAuthorizationRequests({ adapter, settings, addresses, pages }: AuthorizationRateDeps): Middleware {
  const limiter = new AddressRateLimiter(adapter, AUTHORIZATION_RATE_MODEL, settings);

  const limit = async (ctx: Context, next: Next) => {
    const cost = authorizationRequestCost(ctx.originalUrl.length);
    const admission = await limiter.attempt(addresses.of(ctx, 'the authorization rate limit'), cost);
    if (admission.allowed) return next();
    emitFor(ctx, { name: 'authorization.failed', error: 'temporarily_unavailable', description: 'too many authorization requests from this address' });
    // in the request's language (`ui_locales`, then Accept-Language) with the configured look, as
    // the provider's error pages
    const page = pages.for(ctx, { uiLocales: ctx.query.ui_locales });
    const { text } = page.translator;
    const { retryAfter } = admission;
    page.notice(429, { title: text('notice.authorizationRate.title'), message: text('notice.authorizationRate.message', { wait: waitWords(page.translator, retryAfter) }) });
    ctx.set('Retry-After', String(retryAfter));
    return undefined;
  };
  // no async frame for the provider's other requests: this runs in front of every one of them
  return function authorizationRate(ctx: Context, next: Next) {
    // the resumption at /oauth/authorize/:uid is another path: it stores nothing new. GET is
    // served, and HEAD as Koa routers answer it (an Interaction stored all the same); any other
    // method was answered 405 before the provider (lib/provider/dispatch.ts)
    if (!isAuthorizationPath(ctx.path) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    return limit(ctx, next);
  };
}
