/**
 * The library's metrics, through `@opentelemetry/api`: nothing is recorded until the host
 * installs an OpenTelemetry SDK (`metrics.setGlobalMeterProvider`, before
 * `createPlatformAuth`) or passes `options.metrics.meterProvider`.
 *
 * Attributes are bounded sets only (an endpoint, an OAuth error code, a reason), never
 * personal data, and never a client id: client ids are not personal, but they are unbounded
 * (anyone can name a metadata-document URL, open registration makes clients at will), so one
 * series per client would let a stranger grow the metric store without limit. Per-client
 * detail is what the trace is for (`auth.clientTrace()`).
 *
 * @module
 */
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';

/** The metric names and what they count (the README table is this one). */
export const METRICS = Object.freeze({
  tokensIssued: {
    name: 'platform_auth.tokens.issued',
    unit: '{exchange}',
    description: 'Authorization codes exchanged for tokens.',
    attributes: [],
  },
  tokensRefreshed: {
    name: 'platform_auth.tokens.refreshed',
    unit: '{refresh}',
    description: 'Refresh-token grants answered with new tokens. outcome: rotated, grace_used.',
    attributes: ['outcome'],
  },
  tokensRevoked: {
    name: 'platform_auth.tokens.revoked',
    unit: '{revocation}',
    description: 'Tokens and grants revoked. token_type: access_token, refresh_token, grant; reason: revocation (the revocation endpoint), refresh_reuse, code_replay.',
    attributes: ['token_type', 'reason'],
  },
  errors: {
    name: 'platform_auth.errors',
    unit: '{error}',
    description: 'Error answers by endpoint and OAuth error code (other for codes outside the known set); a storage outage counts in platform_auth.storage.unavailable instead.',
    attributes: ['endpoint', 'error'],
  },
  signInFailures: {
    name: 'platform_auth.sign_in.failures',
    unit: '{attempt}',
    description: 'Failed sign-ins on the sign-in page. reason: credentials, incomplete.',
    attributes: ['reason'],
  },
  signInThrottled: {
    name: 'platform_auth.sign_in.throttled',
    unit: '{attempt}',
    description: 'Sign-in attempts refused by the sign-in throttle (429).',
    attributes: [],
  },
  accessRefused: {
    name: 'platform_auth.access.refused',
    unit: '{request}',
    description: 'Bearer-token refusals (401/403, and 400 for a token sent more than one way) at UserInfo, /account/graphql, /mcp and host routes, by endpoint and reason (no_token, unknown, expired, revoked, other_audience, missing_scope, …).',
    attributes: ['endpoint', 'reason'],
  },
  metadataDocumentFailures: {
    name: 'platform_auth.metadata_documents.failures',
    unit: '{fetch}',
    description: 'Client ID metadata documents that could not be used, by reason (host_not_allowed, dns, refused_address, timeout, size, status, invalid_content, network, over_budget).',
    attributes: ['reason'],
  },
  storageUnavailable: {
    name: 'platform_auth.storage.unavailable',
    unit: '{request}',
    description: 'Requests answered 503 because storage was unreachable.',
    attributes: [],
  },
  requestDuration: {
    name: 'platform_auth.request.duration',
    unit: 's',
    description: 'Time to answer a request of the library\'s own endpoints, until the handler returned. A method outside HTTP\'s registered ones is `_OTHER`.',
    attributes: ['endpoint', 'http.request.method', 'http.response.status_code'],
  },
} as const);

/** The OpenTelemetry HTTP server duration buckets (seconds). */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);

/** The OAuth / bearer error codes kept as they are in the `error` attribute; others are `other`. */
export const KNOWN_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope',
  'invalid_target', 'invalid_redirect_uri', 'invalid_client_metadata', 'access_denied', 'unsupported_response_type',
  'login_required', 'consent_required', 'interaction_required', 'invalid_token', 'insufficient_scope',
  'temporarily_unavailable', 'server_error', 'invalid_request_object', 'invalid_request_uri', 'request_not_supported',
  'request_uri_not_supported', 'registration_not_supported', 'invalid_dpop_proof', 'use_dpop_nonce',
]);

export interface Instruments {
  readonly tokensIssued: Counter;
  readonly tokensRefreshed: Counter;
  readonly tokensRevoked: Counter;
  readonly errors: Counter;
  readonly signInFailures: Counter;
  readonly signInThrottled: Counter;
  readonly accessRefused: Counter;
  readonly metadataDocumentFailures: Counter;
  readonly storageUnavailable: Counter;
  readonly requestDuration: Histogram;
}

export function createInstruments(meter: Meter): Instruments {
  const counter = (key: Exclude<keyof typeof METRICS, 'requestDuration'>) => {
    const { name, unit, description } = METRICS[key];
    return meter.createCounter(name, { unit, description });
  };
  const { name, unit, description } = METRICS.requestDuration;
  return {
    tokensIssued: counter('tokensIssued'),
    tokensRefreshed: counter('tokensRefreshed'),
    tokensRevoked: counter('tokensRevoked'),
    errors: counter('errors'),
    signInFailures: counter('signInFailures'),
    signInThrottled: counter('signInThrottled'),
    accessRefused: counter('accessRefused'),
    metadataDocumentFailures: counter('metadataDocumentFailures'),
    storageUnavailable: counter('storageUnavailable'),
    requestDuration: meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] } }),
  };
}

/** `code` if it is a known error code, else `other`. */
export function errorCode(code: string | undefined): string {
  return code !== undefined && KNOWN_ERROR_CODES.has(code) ? code : 'other';
}

/** Attribute objects, made once per distinct value set (the sets are small and bounded). */
export class AttributeCache {
  readonly #cache = new Map<string, Attributes>();

  get(key: string, make: () => Attributes): Attributes {
    let attributes = this.#cache.get(key);
    if (!attributes) {
      attributes = Object.freeze(make());
      // bounded by construction; the guard only stops a bug from growing it forever
      if (this.#cache.size < 10_000) this.#cache.set(key, attributes);
    }
    return attributes;
  }
}
