/**
 * The authorization-request rate per client address (`options.authorizationRateLimit`).
 *
 * Every authorization request a browser starts without a session stores its parameters as
 * an `Interaction` record for `ttl.interaction` (oidc-provider's rule, an hour by default),
 * and nothing else bounds how many one caller may start: an abuse review stored 300 records of
 * ~16.5 KB each in 1.4 s from one address, a rate that fills a Redis of a few GB within the
 * hour. So each request to the authorization endpoint spends from its address's budget
 * (./address-rate.ts) before oidc-provider reads it, and costs by its size: one unit per
 * started {@link AUTHORIZATION_REQUEST_UNIT_BYTES} of its URL (the endpoint is served for
 * `GET` only, so the URL is all it carries), so a real request (well under 2 KB) costs one
 * and the largest a client can send (Node's 16 KiB header limit) eight. What one address can
 * keep stored is then bounded by its budget, not by its speed.
 *
 * Every request counts, whether it then needs a page, resumes a session or is refused by the
 * provider (the work it causes is bounded too); the resumption of a started flow
 * (`/oauth/authorize/:uid`) does not: it stores nothing new.
 *
 * @module
 */

/** The storage model of the per-address rate state. */
export const AUTHORIZATION_RATE_MODEL = 'AuthorizationRate';

/** Bytes of request line and body an authorization request may have for one unit of the budget. */
export const AUTHORIZATION_REQUEST_UNIT_BYTES = 2048;

/** Units an authorization request costs: its request target (`path?query`) by started {@link AUTHORIZATION_REQUEST_UNIT_BYTES}. */
export function authorizationRequestCost(targetLength: number): number {
  return Math.max(1, Math.ceil(targetLength / AUTHORIZATION_REQUEST_UNIT_BYTES));
}
