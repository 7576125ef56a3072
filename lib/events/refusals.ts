/**
 * `access.refused`: why a protected resource (UserInfo, `/account/graphql`, `/mcp`, a host
 * route behind `auth.requireBearer()`) answered 401 or 403 (or 400 for a token sent more than one way), and for which client.
 *
 * The bearer core notes the machine reason and the token's client on the error it throws
 * (`noteRefusal`), at no cost to accepted requests; the one place that writes every refusal
 * (lib/resource/challenge.ts) reports it here. A token that is simply not found is looked up
 * once more, off the answer's path: among the revoked ones (./revoked-tokens.ts, so that
 * "revoked" can be told from "unknown" and charged to its client), and among the expired
 * ones still in storage.
 *
 * @module
 */
import type { Context } from 'koa';

import { AuthenticationRequiredError, InsufficientScopeError, InvalidRequestError, isBearerRefusal } from '../errors.ts';
import type { PlatformAuthError } from '../errors.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { diagnosticsOf } from './diagnostics.ts';
import type { AccessRefusalReason, ResourceEndpoint } from './types.ts';

/** What the bearer core knew when it refused. */
export interface RefusalDetail {
  readonly reason: AccessRefusalReason;
  readonly clientId?: string | undefined;
  readonly accountId?: string | undefined;
  readonly site?: string | undefined;
}

/** Who a stored token (or what is left of a revoked one) belongs to. */
export type TokenOwner = Omit<RefusalDetail, 'reason'>;

// RFC 6750 §2.1, as lib/resource/bearer.ts reads it (not imported: that module imports this one)
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization` header, or `undefined`. */
function bearerTokenOf(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined;
}

const notes = new WeakMap<object, RefusalDetail>();

/** Attaches `detail` to `error` (returned, for `throw noteRefusal(new …, { … })`). */
export function noteRefusal<E extends object>(error: E, detail: RefusalDetail): E {
  notes.set(error, detail);
  return error;
}

/** The detail noted on `error`, or what its class says. */
export function refusalOf(error: PlatformAuthError): RefusalDetail {
  const noted = notes.get(error);
  if (noted) return noted;
  if (error instanceof AuthenticationRequiredError) return { reason: 'no_token' };
  if (error instanceof InvalidRequestError) return { reason: 'malformed' };
  if (error instanceof InsufficientScopeError) return { reason: 'missing_scope' };
  return { reason: 'other' };
}

/** Where the request was refused. */
export function resourceEndpointOf(path: string): ResourceEndpoint {
  if (path === ENDPOINTS.mcp.path) return 'mcp';
  if (path === ENDPOINTS.accountApi.path) return 'account_api';
  if (path === ENDPOINTS.userinfo.path) return 'userinfo';
  return 'host';
}

/**
 * Looks a token that was not found up once more: `revoked` or `expired` with its owner, or
 * `undefined` when nothing is known of it.
 */
export type UnknownTokenResolver = (token: string) => Promise<(TokenOwner & { reason: 'revoked' | 'expired' }) | undefined>;

const resolvers = new WeakMap<object, UnknownTokenResolver>();

/** Sets how the diagnostics `owner` resolves unknown tokens (see {@link UnknownTokenResolver}). */
export function resolveUnknownTokensWith(owner: object, resolver: UnknownTokenResolver): void {
  resolvers.set(owner, resolver);
}

/** Reports a refusal of a protected resource (401, 403, or 400 `invalid_request`) as `access.refused`. */
export function reportAccessRefused(ctx: Context, error: PlatformAuthError): void {
  if (!isBearerRefusal(error)) return;
  const diagnostics = diagnosticsOf(ctx);
  if (!diagnostics?.wants('access.refused')) return;
  const noted = refusalOf(error);
  // a caller already identified further up (UserInfo's scope check runs after the guard)
  const caller = (ctx.state as { auth?: { clientId: string; sub: string; site: string | undefined } } | undefined)?.auth;
  const base = {
    name: 'access.refused' as const,
    endpoint: resourceEndpointOf(ctx.path),
    status: error.status,
    error: error.code,
    description: error.description,
    ...(error.scope === undefined ? {} : { scope: error.scope }),
  };
  const owner: TokenOwner = noted.clientId !== undefined || !caller
    ? noted
    : { clientId: caller.clientId, accountId: caller.sub, site: caller.site };
  const emit = (reason: AccessRefusalReason, who: TokenOwner) => diagnostics.emit({
    ...base,
    reason,
    ...(who.clientId === undefined ? {} : { clientId: who.clientId }),
    ...(who.accountId === undefined ? {} : { accountId: who.accountId }),
    ...(who.site === undefined ? {} : { site: who.site }),
  }, ctx);
  const resolve = resolvers.get(diagnostics);
  const token = noted.reason === 'unknown' && resolve ? bearerTokenOf(ctx.get('authorization')) : undefined;
  if (token === undefined) {
    emit(noted.reason, owner);
    return;
  }
  // off the answer's path: the refusal is already written
  resolve!(token).then(
    (found) => emit(found?.reason ?? 'unknown', found ?? owner),
    () => emit('unknown', owner),
  );
}
