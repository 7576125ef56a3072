/**
 * Verifies bearer access tokens for this origin: the core that the Koa guard, UserInfo,
 * the Account API and `/mcp` share. No network hop: tokens are looked up in the provider's
 * own storage.
 *
 * @module
 */
import type Provider from 'oidc-provider';

import { DOCUMENT_REFUSED, findTokenClient } from '../cimd/token-client.ts';
import { AuthenticationRequiredError, InsufficientScopeError, InvalidTokenError, TemporarilyUnavailableError } from '../errors.ts';
import { noteRefusal } from '../events/refusals.ts';
import type { RefusalDetail } from '../events/refusals.ts';
import { clientAudience } from '../policies/audience.ts';
import { revokeOrphanedGrant } from '../policies/deleted-clients.ts';
import type { Audience } from '../scopes/catalogue.ts';
import { parseScope } from '../scopes/catalogue.ts';
import { isStorageUnavailable } from '../storage/outage.ts';

/** The scopes of a token: a read-only set that serialises as an array (`JSON.stringify(auth)`). */
export interface Scopes extends ReadonlySet<string> {
  toJSON(): string[];
}

class ScopeSet extends Set<string> implements Scopes {
  toJSON(): string[] {
    return [...this];
  }
}

/** A {@link Scopes} of `names` (for callers that build a `BearerAuth` themselves, e.g. in tests). */
export function toScopes(names: Iterable<string>): Scopes {
  return new ScopeSet(names);
}

/** Who a verified token speaks for. */
export interface BearerAuth {
  readonly sub: string;
  readonly clientId: string;
  readonly audience: Audience;
  /** the site (`org_id`) the token was issued for */
  readonly site: string | undefined;
  readonly roles: readonly string[];
  readonly scopes: Scopes;
  /** epoch seconds */
  readonly expiresAt: number;
  readonly grantId: string;
}

export interface VerifyOptions {
  /** every one of these scopes is required */
  readonly scopes?: readonly string[];
  /**
   * Which audiences may call; others get 403 `insufficient_scope` naming no scope (no client of
   * their audience can be granted `scopes`, so there is no step-up to offer).
   * @default both
   */
  readonly audiences?: readonly Audience[];
}

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^Bearer(?: |$)/i;

/**
 * The token of an `Authorization` header, `undefined` when there is none.
 * Throws `InvalidTokenError` for a malformed Bearer token, and its subclass
 * `AuthenticationRequiredError` for any other scheme: such a request sent no credentials this
 * server accepts, and its challenge carries no error code (RFC 6750 §3.1).
 */
export function extractBearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const match = BEARER.exec(header);
  if (match) return match[1];
  if (SCHEME.test(header)) throw noteRefusal(new InvalidTokenError('the bearer token is malformed'), MALFORMED);
  throw noteRefusal(new AuthenticationRequiredError('only the Bearer authorization scheme is accepted'), MALFORMED);
}

const MALFORMED: RefusalDetail = Object.freeze({ reason: 'malformed' });
const NO_TOKEN: RefusalDetail = Object.freeze({ reason: 'no_token' });

/** Whose token was refused and why, for `access.refused` (lib/events/refusals.ts); refusals only. */
function refusal(reason: RefusalDetail['reason'], at?: { clientId?: string; accountId?: string; extra?: unknown }): RefusalDetail {
  const site = (at?.extra as { org_id?: unknown } | undefined)?.org_id;
  return { reason, clientId: at?.clientId, accountId: at?.accountId, site: typeof site === 'string' ? site : undefined };
}

export class BearerVerifier {
  readonly #provider: Provider;
  readonly #resource: string;

  constructor(provider: Provider, resource: string) {
    this.#provider = provider;
    this.#resource = resource;
  }

  /** Verifies `token`; throws `InvalidTokenError`, `InsufficientScopeError` or `TemporarilyUnavailableError`. */
  async verify(token: string, options: VerifyOptions = {}): Promise<BearerAuth> {
    const { AccessToken, Grant, Client } = this.#provider;
    let at, grant, client;
    try {
      at = await AccessToken.find(token);
      if (at) [grant, client] = await Promise.all([Grant.find(at.grantId!), findTokenClient(Client, at.clientId!)]);
    } catch (cause) {
      // an outage is a 503; anything else (a corrupt record, a bug) stays an error
      if (!isStorageUnavailable(cause)) throw cause;
      throw new TemporarilyUnavailableError(undefined, { cause });
    }
    if (!at || at.isExpired) throw noteRefusal(new InvalidTokenError('the access token is invalid, expired or revoked'), refusal(at ? 'expired' : 'unknown', at));
    // sender-constrained tokens need a proof this endpoint does not check
    if (at.jkt || at['x5t#S256']) throw noteRefusal(new InvalidTokenError('sender-constrained tokens are not accepted here'), refusal('other', at));
    const aud = Array.isArray(at.aud) ? at.aud : [at.aud];
    if (aud.length !== 1 || aud[0] !== this.#resource) {
      throw noteRefusal(new InvalidTokenError(`the access token is not meant for ${this.#resource}`), refusal('other_audience', at));
    }
    if (!grant || grant.isExpired || grant.clientId !== at.clientId || grant.accountId !== at.accountId) {
      throw noteRefusal(new InvalidTokenError('the access token is invalid, expired or revoked'), refusal('revoked', at));
    }
    if (client === DOCUMENT_REFUSED) {
      // its document is gone or no longer valid: the token speaks for a client that cannot be
      // verified now (its grant stays: the document may be put right)
      throw noteRefusal(new InvalidTokenError('the access token\'s client can no longer be verified (its client ID metadata document was refused)'), refusal('other', at));
    }
    if (!client) {
      // the client was deleted (lib/member-clients): its grant goes with it
      await revokeOrphanedGrant(this.#provider, at.grantId!);
      throw noteRefusal(new InvalidTokenError('the access token is invalid, expired or revoked'), refusal('client_deleted', at));
    }

    const scopes = new ScopeSet(parseScope(at.scope));
    const audience = clientAudience(client);
    const required = options.scopes ?? [];
    if (options.audiences && !options.audiences.includes(audience)) {
      // no scope named: no client of this token's audience can be granted the endpoint's
      // scopes (an operator client asking for account:read is refused invalid_scope), so a
      // client stepping up to them would loop; the description says why
      throw noteRefusal(new InsufficientScopeError('', `this endpoint is for ${options.audiences.join(' or ')} clients`), refusal('wrong_client_type', at));
    }
    const missing = required.filter((s) => !scopes.has(s));
    if (missing.length > 0) throw noteRefusal(new InsufficientScopeError(required.join(' ')), refusal('missing_scope', at));

    const extra = (at.extra ?? {}) as { org_id?: unknown; roles?: unknown };
    return Object.freeze({
      sub: at.accountId!,
      clientId: at.clientId!,
      audience,
      site: typeof extra.org_id === 'string' ? extra.org_id : undefined,
      roles: Array.isArray(extra.roles) ? extra.roles.filter((r): r is string => typeof r === 'string') : [],
      scopes,
      expiresAt: at.exp!,
      grantId: at.grantId!,
    });
  }

  /**
   * Verifies the `Authorization` header. With `optional`, a request without one is
   * anonymous (`undefined`); a present but bad token is still refused.
   */
  async verifyHeader(header: string | undefined, options: VerifyOptions & { optional?: boolean } = {}): Promise<BearerAuth | undefined> {
    const token = extractBearerToken(header);
    if (token === undefined) {
      if (options.optional) return undefined;
      // RFC 6750 §3.1: no error code in the challenge of a request that sent no credentials
      throw noteRefusal(new AuthenticationRequiredError('an access token is required: send Authorization: Bearer <token>'), NO_TOKEN);
    }
    return this.verify(token, options);
  }
}
