/**
 * The authorization-request rate per client address (lib/policies/authorization-rate.ts holds
 * the rule), as a step in front of the provider, run by its storage outage guard
 * (lib/storage/outage.ts; a storage failure while counting is a 503): before oidc-provider
 * reads the request, so a refused request stores nothing.
 *
 * The refusal is **429** with `Retry-After` and a short page under the pages' CSP, not a
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
import { ENDPOINTS } from '../endpoints.ts';
import { emitFor } from '../events/diagnostics.ts';
import type { ClientAddresses } from '../http/client-address.ts';
import { writeNoticePage } from '../pages/notice.ts';
import type { NoticeView } from '../pages/notice.ts';
import { AddressRateLimiter } from '../policies/address-rate.ts';
import type { AddressRateSettings } from '../policies/address-rate.ts';
import { AUTHORIZATION_RATE_MODEL, authorizationRequestCost } from '../policies/authorization-rate.ts';

export interface AuthorizationRateDeps {
  readonly adapter: AdapterFactory;
  /** `options.authorizationRateLimit`; `false`: no limit (the middleware is not mounted) */
  readonly settings: AddressRateSettings;
  /** the instance's client addresses for limits (lib/http/client-address.ts) */
  readonly addresses: ClientAddresses;
}

/** The page's words: the same for every caller, coarse on purpose. */
export function tooManyAuthorizationRequests(retryAfter: number): NoticeView {
  const wait = retryAfter <= 60 ? 'up to a minute' : `about ${Math.ceil(retryAfter / 60)} minutes`;
  return {
    title: 'Too many sign-in requests',
    message: `Too many sign-in requests came from your network in a short time. Wait ${wait}, then go back to the application and try again.`,
  };
}

export function limitAuthorizationRequests({ adapter, settings, addresses }: AuthorizationRateDeps): Middleware {
  const path = ENDPOINTS.authorization.path;
  const limiter = new AddressRateLimiter(adapter, AUTHORIZATION_RATE_MODEL, settings);

  const limit = async (ctx: Context, next: Next) => {
    const cost = authorizationRequestCost(ctx.originalUrl.length);
    const admission = await limiter.attempt(addresses.of(ctx, 'the authorization rate limit'), cost);
    if (admission.allowed) return next();
    const view = tooManyAuthorizationRequests(admission.retryAfter);
    emitFor(ctx, { name: 'authorization.failed', error: 'temporarily_unavailable', description: 'too many authorization requests from this address' });
    writeNoticePage(ctx, 429, view);
    ctx.set('Retry-After', String(admission.retryAfter));
    return undefined;
  };
  // no async frame for the provider's other requests: this runs in front of every one of them
  return function authorizationRate(ctx: Context, next: Next) {
    // the resumption at /oauth/authorize/:uid is another path: it stores nothing new. Only GET
    // is served (any other method was answered 405 before the provider: lib/provider/dispatch.ts)
    if (ctx.path !== path || ctx.method !== 'GET') return next();
    return limit(ctx, next);
  };
}
