/**
 * The events of `auth.events`: one typed map from event name to what the event carries.
 * Names are `noun.verb` as in oidc-provider. Every event carries the request id of the
 * request it happened in and, where known, the client, the site and the account; none ever
 * carries a token, an authorization code, a client secret or a password (test/e2e/diagnostics
 * scans a full run for them).
 *
 * @example
 * ```ts
 * auth.events.on('access.refused', (event) => {
 *   if (event.reason === 'revoked') audit.write(event.clientId, event.requestId);
 * });
 * auth.events.on('*', (event) => log.debug(event.name, event));
 * ```
 *
 * @module
 */

/** What every event carries. */
export interface EventBase {
  /** epoch milliseconds */
  readonly at: number;
  /**
   * The request's id: its `X-Request-Id` as kept or made (lib/http/request-id.ts), the same
   * value the response carries. Absent for events outside a request.
   */
  readonly requestId?: string;
  /** the client concerned, when known */
  readonly clientId?: string;
  /** the site (`org_id`) concerned, when known */
  readonly site?: string;
  /** the account (`sub`) concerned, when known */
  readonly accountId?: string;
}

/** Where a protected resource refused a request. */
export type ResourceEndpoint = 'userinfo' | 'account_api' | 'mcp' | 'host';

/**
 * Why a protected resource refused a bearer token (401/403, or 400 for one sent more than one way):
 * - `no_token`: no `Authorization` header where a token is needed;
 * - `malformed`: not a Bearer header, a malformed token, or the token sent more than one way;
 * - `unknown`: no such token here (never issued here, or expired and gone from storage);
 * - `expired`: a token found but expired;
 * - `revoked`: a token revoked at the revocation endpoint;
 * - `other_audience`: a token for another resource (another origin);
 * - `missing_scope`: a valid token without a scope the request needs;
 * - `wrong_client_type`: a member token at an operator endpoint or the reverse;
 * - `client_deleted`: the token's client no longer exists;
 * - `no_site`: a member token that names no site;
 * - `account_gone`: the token's account no longer exists;
 * - `other`: anything else (e.g. a sender-constrained token).
 */
export type AccessRefusalReason =
  | 'no_token' | 'malformed' | 'unknown' | 'expired' | 'revoked' | 'other_audience' | 'missing_scope'
  | 'wrong_client_type' | 'client_deleted' | 'no_site' | 'account_gone' | 'other';

/**
 * Why a client ID metadata document could not be used: `host_not_allowed` (not an allowed
 * host), `dns` (the name does not resolve), `refused_address` (it resolves to an address that
 * may not be fetched), `timeout`, `size` (too large), `status` (not 200), `invalid_content`
 * (not JSON, or metadata this server does not accept), `network` (another fetch failure),
 * `over_budget` (not fetched now: too many document fetches from its host or by the caller's
 * address lately; answered 429 with `Retry-After`).
 */
export type MetadataDocumentFailure =
  | 'host_not_allowed' | 'dns' | 'refused_address' | 'timeout' | 'size' | 'status' | 'invalid_content' | 'network'
  | 'over_budget';

export interface SignInSucceededEvent extends EventBase {
  readonly name: 'signin.succeeded';
}

export interface SignInFailedEvent extends EventBase {
  readonly name: 'signin.failed';
  /** `credentials`: the email or password is wrong (which of them is never said) */
  readonly reason: 'credentials' | 'incomplete';
}

export interface SignInThrottledEvent extends EventBase {
  readonly name: 'signin.throttled';
  /** seconds until the next attempt is allowed */
  readonly retryAfter: number;
}

export interface ConsentGrantedEvent extends EventBase {
  readonly name: 'consent.granted';
}

export interface ConsentDeniedEvent extends EventBase {
  readonly name: 'consent.denied';
  /** `user`: the person declined; `ineligible`: the account may not authorize this client */
  readonly reason: 'user' | 'ineligible';
}

export interface AuthorizationFailedEvent extends EventBase {
  readonly name: 'authorization.failed';
  /** the OAuth error code, e.g. `invalid_redirect_uri`, `invalid_scope`, `invalid_client` */
  readonly error: string;
  /** the error's public description */
  readonly description: string;
  /** the `redirect_uri` the request named (for a mismatch), at most 300 characters */
  readonly redirectUri?: string;
  /** the client's registered redirect URIs (for a mismatch), at most 10 */
  readonly registeredRedirectUris?: readonly string[];
}

export interface CodeIssuedEvent extends EventBase {
  readonly name: 'code.issued';
}

export interface CodeRedeemedEvent extends EventBase {
  readonly name: 'code.redeemed';
}

export interface CodeReplayedEvent extends EventBase {
  readonly name: 'code.replayed';
}

export interface TokenFailedEvent extends EventBase {
  readonly name: 'token.failed';
  /** the `grant_type` asked for, when it is one this server knows */
  readonly grantType?: string;
  readonly error: string;
  readonly description: string;
  /** oidc-provider's reason, when it is one of its fixed texts (e.g. `authorization code is expired`) */
  readonly detail?: string;
}

export interface RefreshRotatedEvent extends EventBase {
  readonly name: 'refresh.rotated';
}

/** A rotated refresh token used again within `refreshTokenGrace` (a retry or a race) and served. */
export interface RefreshGraceUsedEvent extends EventBase {
  readonly name: 'refresh.grace_used';
}

/** A used refresh token presented again: the whole grant was revoked (RFC 9700 §4.14.2). */
export interface RefreshReuseDetectedEvent extends EventBase {
  readonly name: 'refresh.reuse_detected';
  /**
   * `after_grace`: presented again after its grace or after its successor was used;
   * `other_client`: presented by another client than its own; `other_refusal`: presented again
   * by its own client in a request refused for another reason first (a `scope` the token does
   * not hold), answered with that refusal
   */
  readonly reason: 'after_grace' | 'other_client' | 'other_refusal';
}

export interface TokenRevokedEvent extends EventBase {
  readonly name: 'token.revoked';
  readonly tokenType: 'access_token' | 'refresh_token';
}

export interface RegistrationAcceptedEvent extends EventBase {
  readonly name: 'registration.accepted';
}

export interface RegistrationRefusedEvent extends EventBase {
  readonly name: 'registration.refused';
  readonly error: string;
  readonly description: string;
}

export interface MetadataDocumentFetchedEvent extends EventBase {
  readonly name: 'metadata_document.fetched';
}

export interface MetadataDocumentFailedEvent extends EventBase {
  readonly name: 'metadata_document.failed';
  readonly reason: MetadataDocumentFailure;
  /** the HTTP status the document's host answered, for `status` */
  readonly status?: number;
  /** what went wrong, in words (no part of the document) */
  readonly description: string;
}

export interface AccessRefusedEvent extends EventBase {
  readonly name: 'access.refused';
  readonly endpoint: ResourceEndpoint;
  /** 401 or 403 */
  readonly status: number;
  readonly reason: AccessRefusalReason;
  /** `invalid_token`, `insufficient_scope` or `invalid_request` */
  readonly error: string;
  /** the refusal's public description (what the response said) */
  readonly description: string;
  /** the scopes the request needs, when the refusal names them */
  readonly scope?: string;
}

export interface StorageUnavailableEvent extends EventBase {
  readonly name: 'storage.unavailable';
  /** the adapter's short reason (an error code), when known */
  readonly reason?: string;
}

export interface ServerErrorEvent extends EventBase {
  readonly name: 'server.error';
  /** oidc-provider's route name, or the path */
  readonly route: string;
  /** the error's class name (never its message, which may quote request input) */
  readonly error: string;
}

/** Every event by name: what `auth.events.on(name, listener)` hands `listener`. */
export interface PlatformAuthEventMap {
  'signin.succeeded': SignInSucceededEvent;
  'signin.failed': SignInFailedEvent;
  'signin.throttled': SignInThrottledEvent;
  'consent.granted': ConsentGrantedEvent;
  'consent.denied': ConsentDeniedEvent;
  'authorization.failed': AuthorizationFailedEvent;
  'code.issued': CodeIssuedEvent;
  'code.redeemed': CodeRedeemedEvent;
  'code.replayed': CodeReplayedEvent;
  'token.failed': TokenFailedEvent;
  'refresh.rotated': RefreshRotatedEvent;
  'refresh.grace_used': RefreshGraceUsedEvent;
  'refresh.reuse_detected': RefreshReuseDetectedEvent;
  'token.revoked': TokenRevokedEvent;
  'registration.accepted': RegistrationAcceptedEvent;
  'registration.refused': RegistrationRefusedEvent;
  'metadata_document.fetched': MetadataDocumentFetchedEvent;
  'metadata_document.failed': MetadataDocumentFailedEvent;
  'access.refused': AccessRefusedEvent;
  'storage.unavailable': StorageUnavailableEvent;
  'server.error': ServerErrorEvent;
}

export type EventName = keyof PlatformAuthEventMap;

/** Any event. */
export type PlatformAuthEvent = PlatformAuthEventMap[EventName];

/** The event names, in the order of the README table. */
export const EVENT_NAMES = Object.freeze([
  'signin.succeeded', 'signin.failed', 'signin.throttled', 'consent.granted', 'consent.denied',
  'authorization.failed', 'code.issued', 'code.redeemed', 'code.replayed', 'token.failed',
  'refresh.rotated', 'refresh.grace_used', 'refresh.reuse_detected', 'token.revoked',
  'registration.accepted', 'registration.refused', 'metadata_document.fetched', 'metadata_document.failed',
  'access.refused', 'storage.unavailable', 'server.error',
] as const satisfies readonly EventName[]);

// fails to compile when an event of the map is missing from EVENT_NAMES
const everyEventListed: Exclude<EventName, (typeof EVENT_NAMES)[number]> extends never ? true : never = true;
void everyEventListed;

/** What an event is before it is stamped with its time and request id. */
export type EventInput<N extends EventName = EventName> =
  N extends EventName ? Omit<PlatformAuthEventMap[N], 'at' | 'requestId'> & { readonly name: N } : never;

/** A listener of one event, or of every event (`'*'`). Its errors are logged, never thrown into the request. */
export type EventListener<N extends EventName = EventName> = (event: PlatformAuthEventMap[N]) => void | Promise<void>;
