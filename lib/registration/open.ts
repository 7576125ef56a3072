/**
 * Variant B (open) registration, `POST /api/oauth/register`: oidc-provider registers the
 * client (RFC 7591; the metadata rules are lib/policies/client-metadata.ts and
 * lib/policies/registration-limits.ts). This provider middleware runs before it and refuses,
 * without reading the body:
 *
 * - a body whose `Content-Length` is over {@link REGISTRATION_LIMITS}.bodyBytes: 413
 *   `invalid_request`, as Variant A answers it (RFC 9110 §15.5.14; the limit is on the
 *   request, not on a metadata value). A body sent without `Content-Length` is read by the
 *   provider under its own 56 KiB cap, and what would be stored is capped again by
 *   `metadataBytes`.
 * - a registration over the client address's rate (`options.registration.rateLimit`): 429
 *   `temporarily_unavailable` with `Retry-After`.
 *
 * Both refusals are `registration.refused` events (oidc-provider's `registration_create.error`,
 * which reports its own refusals, never sees them).
 *
 * The client's address is read as the sign-in throttle reads it (`options.proxy`,
 * `options.proxyHops`; lib/policies/sign-in-throttle.ts), never from the host app's `ctx.ip`.
 *
 * @module
 */
import type { Context, Middleware, Next } from 'koa';

import type { AdapterFactory } from '../../adapters/types.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { InvalidClientMetadataError, InvalidRequestError, PlatformAuthError } from '../errors.ts';
import { diagnosticsOf } from '../events/diagnostics.ts';
import { isUtf8Charset, UTF8_JSON_ONLY } from '../http/charset.ts';
import { writeError } from '../http/error-response.ts';
import type { ClientAddresses } from '../http/client-address.ts';
import { REGISTRATION_LIMITS, RegistrationRateLimiter } from '../policies/registration-limits.ts';
import type { RegistrationRateSettings } from '../policies/registration-limits.ts';

export interface OpenRegistrationDeps {
  readonly adapter: AdapterFactory;
  /** `options.registration.rateLimit`; `false`: no rate limit */
  readonly rateLimit: RegistrationRateSettings | false;
  /** the instance's client addresses for limits (`options.proxy`, `options.proxyHops`; lib/http/client-address.ts) */
  readonly addresses: ClientAddresses;
}

/**
 * 429 with `temporarily_unavailable`: RFC 7591 §3.2.2 defines no code for "too many" and lets
 * a server use others; `temporarily_unavailable` (RFC 6749 §4.1.2.1, "temporary
 * overloading") is the registered OAuth code that says "retry later" and that OAuth client
 * libraries already know. `slow_down` (RFC 8628 §3.5) was the other candidate, but it means
 * "poll the device-code token endpoint 5 s less often", which a registering client would
 * not know to apply. The status (RFC 6585 §4) and `Retry-After` carry the rest.
 */
function tooManyRegistrations(retryAfter: number): PlatformAuthError {
  return new PlatformAuthError('temporarily_unavailable', 429, `too many registrations from this address; retry in ${retryAfter} seconds`);
}

function refused(ctx: Context, error: string, description: string): void {
  const diagnostics = diagnosticsOf(ctx);
  if (diagnostics?.wants('registration.refused')) diagnostics.emit({ name: 'registration.refused', error, description }, ctx);
}

export function openRegistrationLimits({ adapter, rateLimit, addresses }: OpenRegistrationDeps): Middleware {
  const path = ENDPOINTS.registration.path;
  const limiter = new RegistrationRateLimiter(adapter, rateLimit);

  return async function registrationLimits(ctx: Context, next: Next) {
    if (ctx.method !== 'POST' || ctx.path !== path) return next();
    const length = ctx.request.length;
    if (length !== undefined && length > REGISTRATION_LIMITS.bodyBytes) {
      const description = `the request body must be at most ${REGISTRATION_LIMITS.bodyBytes} bytes`;
      refused(ctx, 'invalid_request', description);
      writeError(ctx, new InvalidRequestError(description, { status: 413 }));
      return;
    }
    if (!isUtf8Charset(ctx.get('content-type'))) {
      // oidc-provider reads the body as UTF-8 whatever the header says
      refused(ctx, 'invalid_client_metadata', UTF8_JSON_ONLY);
      writeError(ctx, new InvalidClientMetadataError(UTF8_JSON_ONLY));
      return;
    }
    // no rate limit: no address to read (nor a proxy-header warning for a limit that is not there)
    if (!limiter.enabled) return next();
    const admission = await limiter.attempt(addresses.of(ctx, 'the open-registration rate limit'));
    if (!admission.allowed) {
      const tooMany = tooManyRegistrations(admission.retryAfter);
      refused(ctx, tooMany.code, tooMany.description);
      writeError(ctx, tooMany, { headers: { 'Retry-After': String(admission.retryAfter) } });
      return;
    }
    await next();
  };
}
