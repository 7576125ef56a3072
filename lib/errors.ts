/**
 * Errors of the routers this library mounts beside oidc-provider. (Inside provider hooks
 * we throw oidc-provider's own `errors.*`, which its handler renders.)
 *
 * `description` is public and safe to send; `cause` is private and never serialised.
 * Neither ever contains a token or a secret.
 *
 * @module
 */

export type PlatformAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'access_denied'
  | 'not_found'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'
  | 'server_error'
  | 'configuration_error';

export class PlatformAuthError extends Error {
  readonly code: PlatformAuthErrorCode;
  readonly status: number;
  /** whether `description` may be shown to the caller */
  readonly expose: boolean;
  readonly description: string;
  /**
   * The scope(s) that would satisfy the request, space-delimited: the `scope` of the
   * `WWW-Authenticate` challenge (RFC 6750 §3), for a 403 and for a 401 that knows it.
   */
  readonly scope: string | undefined;

  constructor(code: PlatformAuthErrorCode, status: number, description: string, options?: { cause?: unknown; expose?: boolean; scope?: string }) {
    super(description, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.description = description;
    this.expose = options?.expose ?? status < 500;
    this.scope = options?.scope;
  }

  /** RFC 6749 §5.2 body. */
  toResponseObject(): { error: string; error_description: string } {
    return this.expose
      ? { error: this.code, error_description: this.description }
      : { error: 'server_error', error_description: 'the server could not complete the request' };
  }
}

/**
 * 401: the bearer token is missing, malformed, unknown, expired, revoked or not for us.
 * `scope`, when given, names what a token for this request needs.
 */
export class InvalidTokenError extends PlatformAuthError {
  constructor(description: string, options?: { cause?: unknown; scope?: string }) {
    super('invalid_token', 401, description, options);
  }
}

/**
 * 401 for a request that sent no credentials at all where a token is needed: its challenge
 * carries no error code (RFC 6750 §3.1), only what to obtain (`scope`) and where to learn how.
 */
export class AuthenticationRequiredError extends InvalidTokenError {}

/** 403: a valid token lacks a scope the request needs (RFC 6750 §3.1). */
export class InsufficientScopeError extends PlatformAuthError {
  declare readonly scope: string;

  constructor(scope: string, description = `the request requires the ${scope} scope`) {
    super('insufficient_scope', 403, description, { scope });
  }
}

/**
 * Whether `error` is one of RFC 6750 §3.1's refusals of a protected resource, which carry the
 * `WWW-Authenticate` challenge: 401 `invalid_token` (or no credentials), 403
 * `insufficient_scope`, and 400 `invalid_request` (the token sent more than one way).
 */
export function isBearerRefusal(error: PlatformAuthError): boolean {
  return error.status === 401 || error.status === 403 || (error.status === 400 && error.code === 'invalid_request');
}

/** A malformed request (RFC 6749 §5.2): 400, or a more precise 4xx such as 405 or 413. */
export class InvalidRequestError extends PlatformAuthError {
  constructor(description: string, options?: { cause?: unknown; status?: number }) {
    super('invalid_request', options?.status ?? 400, description, options);
  }
}

/** The public description of a 503: storage or another dependency is unreachable. */
export const TEMPORARILY_UNAVAILABLE_DESCRIPTION = 'the service is temporarily unavailable, retry later';

/** 503: storage or another dependency is unreachable; the request fails closed. */
export class TemporarilyUnavailableError extends PlatformAuthError {
  constructor(description = TEMPORARILY_UNAVAILABLE_DESCRIPTION, options?: { cause?: unknown }) {
    super('temporarily_unavailable', 503, description, { ...options, expose: true });
  }
}

/** 401: client authentication failed or used a method this server does not offer (RFC 6749 §5.2). */
export class InvalidClientError extends PlatformAuthError {
  constructor(description: string) {
    super('invalid_client', 401, description);
  }
}

/** 400: registration metadata this server does not accept (RFC 7591 §3.2.2). */
export class InvalidClientMetadataError extends PlatformAuthError {
  constructor(description: string) {
    super('invalid_client_metadata', 400, description);
  }
}

/**
 * Refusals of the member-client management API (`auth.memberClients`): `access_denied`
 * (403) when the site lacks the "MCP connections" beta, `invalid_client_metadata` (400) for
 * input that cannot make a client, `not_found` (404) for a client that is not the site's.
 */
export class MemberClientError extends PlatformAuthError {
  constructor(code: 'access_denied' | 'invalid_client_metadata' | 'not_found', description: string, options?: { cause?: unknown }) {
    super(code, code === 'access_denied' ? 403 : code === 'not_found' ? 404 : 400, description, options);
  }
}

/** Thrown at start-up only, for options that cannot work; the message says what to change. */
export class ConfigurationError extends PlatformAuthError {
  constructor(description: string) {
    super('configuration_error', 500, description, { expose: false });
  }
}
