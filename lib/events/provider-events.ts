/**
 * The library's events, derived in one place from oidc-provider's own (`provider.on(…)`)
 * rather than emitted from the protocol code:
 *
 * | oidc-provider | events |
 * | --- | --- |
 * | `interaction.ended` (the browser is back from the sign-in or consent page) | `signin.succeeded`, `consent.granted` |
 * | `authorization.success` | `code.issued` |
 * | `authorization.error` | `authorization.failed`, `metadata_document.failed` (`consent.denied` is emitted by the pages) |
 * | `grant.success` | `code.redeemed`, `refresh.rotated`, `refresh.grace_used` |
 * | `grant.error` | `token.failed`, `refresh.reuse_detected`, `code.replayed`, `metadata_document.failed` |
 * | `access_token.destroyed`, `refresh_token.destroyed` (at the revocation endpoint) | `token.revoked` |
 * | `registration_create.success` / `.error` (Variant B) | `registration.accepted` / `registration.refused` |
 * | `server_error` | `server.error` |
 * | `revocation.error`, `introspection.error`, … | the `platform_auth.errors` metric only |
 *
 * The handlers read the context oidc-provider passes (its own Koa context, on the same Node
 * request as the host's), never a request's body or the answer: what they emit carries ids,
 * error codes and public descriptions, never a token, a code, a secret or a password.
 *
 * @module
 */
import Provider from 'oidc-provider';

import { memberClientSite } from '../policies/audience.ts';
import { documentRefusalWords } from '../policies/metadata-documents.ts';
import type { MetricsRecorder } from '../metrics/recorder.ts';
import { PROVIDER_ROUTE_LABELS } from '../metrics/endpoint-label.ts';
import { GRANT_DETAILS } from '../trace/explain.ts';
import type { Diagnostics } from './diagnostics.ts';
import { metadataDocumentFailure } from './metadata-document-failure.ts';
import { printable } from './printable.ts';
import type { RevokedTokens } from './revoked-tokens.ts';
import type { EventInput } from './types.ts';

/** The part of oidc-provider's context the handlers read. */
interface ProviderContext {
  readonly req: import('node:http').IncomingMessage;
  readonly res: import('node:http').ServerResponse;
  readonly query?: Record<string, unknown>;
  readonly oidc?: {
    readonly route?: string;
    readonly client?: { readonly clientId: string; readonly redirectUris?: readonly string[]; readonly audience?: unknown; readonly org_id?: unknown };
    readonly params?: Record<string, unknown>;
    readonly entities?: Record<string, { accountId?: string; extra?: Record<string, unknown>; result?: Record<string, unknown> } | undefined>;
    readonly session?: { readonly accountId?: string };
    readonly result?: Record<string, unknown>;
  };
}

interface ProviderError {
  readonly error?: string;
  readonly error_description?: string;
  readonly error_detail?: string;
  readonly status?: number;
}

interface TokenModel {
  readonly jti?: string;
  readonly clientId?: string;
  readonly accountId?: string;
  readonly exp?: number;
  readonly extra?: Record<string, unknown>;
}

export interface ProviderEventDeps {
  readonly diagnostics: Diagnostics;
  readonly metrics: MetricsRecorder | undefined;
  /** where revoked access tokens are remembered; `undefined` when nothing would read them */
  readonly revokedTokens: RevokedTokens | undefined;
  /** whether this request's refresh token was served within its grace (lib/policies/refresh-grace.ts) */
  readonly servedInGrace: (ctx: object) => boolean;
}

const MAX_URI = 300;
/** an error description (oidc-provider's may quote a parameter of the request) */
const MAX_DESCRIPTION = 500;

/** oidc-provider's `error_description` (or `fallback`), printable and cut. */
const descriptionOf = (error: ProviderError, fallback = '') => printable(error.error_description ?? fallback, MAX_DESCRIPTION);
const MAX_REGISTERED = 10;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

function who(ctx: ProviderContext, accountId?: string, site?: unknown): { clientId?: string; accountId?: string; site?: string } {
  const client = ctx.oidc?.client;
  const memberSite = client ? memberClientSite(client) : undefined;
  const siteId = text(site) ?? memberSite;
  return {
    ...(client ? { clientId: client.clientId } : {}),
    ...(accountId ? { accountId } : {}),
    ...(siteId ? { site: siteId } : {}),
  };
}

/** The `client_id` a request named, when no client was found for it (a metadata-document URL). */
function namedClientId(ctx: ProviderContext): string | undefined {
  const named = text(ctx.oidc?.params?.client_id) ?? text(ctx.query?.client_id);
  return named && /^https:\/\//i.test(named) ? printable(named) : undefined;
}

/**
 * A metadata document's failure: the fetch's (./metadata-document-failure.ts), or metadata
 * this server's rules refused for a client named by a document URL and not found otherwise.
 */
function documentFailure(ctx: ProviderContext, error: ProviderError): ReturnType<typeof metadataDocumentFailure> {
  const failure = metadataDocumentFailure(error);
  if (failure || ctx.oidc?.client || namedClientId(ctx) === undefined) return failure;
  if (error.error === 'invalid_client_metadata' || error.error === 'invalid_redirect_uri') {
    return { reason: 'invalid_content', description: documentRefusalWords(descriptionOf(error, 'the document is not valid client metadata')) };
  }
  return undefined;
}

function routeLabel(ctx: ProviderContext): string {
  return PROVIDER_ROUTE_LABELS[ctx.oidc?.route ?? ''] ?? 'other';
}

/** Subscribes the event handlers to `provider`. */
export function deriveProviderEvents(provider: Provider, deps: ProviderEventDeps): void {
  const { diagnostics, metrics, revokedTokens, servedInGrace } = deps;
  const emit = (input: EventInput, ctx: ProviderContext | undefined) => diagnostics.emit(input, ctx);
  // oidc-provider's typings list its events; the model events (`access_token.destroyed`) are left out
  const emitter = provider as unknown as { on(name: string, listener: (...args: never[]) => void): void };
  const on = (name: string, handler: (...args: never[]) => void) => {
    emitter.on(name, (...args: never[]) => {
      if (!diagnostics.enabled) return;
      try {
        handler(...args);
      } catch {
        // deriving an event must never break the request that caused it
      }
    });
  };

  on('interaction.ended', (ctx: ProviderContext) => {
    const result = ctx.oidc?.result;
    const login = result?.login as { accountId?: string } | undefined;
    const accountId = login?.accountId ?? ctx.oidc?.session?.accountId;
    // a consent's result repeats the sign-in of the interaction before it (interactions/router.ts
    // merges it, `mergeWithLastSubmission`), which was reported when that interaction ended
    if (login && !result?.consent) emit({ name: 'signin.succeeded', ...who(ctx, accountId) }, ctx);
    if (result?.consent) emit({ name: 'consent.granted', ...who(ctx, accountId) }, ctx);
  });

  on('authorization.success', (ctx: ProviderContext) => {
    emit({ name: 'code.issued', ...who(ctx, ctx.oidc?.session?.accountId) }, ctx);
  });

  on('authorization.error', (ctx: ProviderContext, error: ProviderError) => {
    if (error.status === 503) return; // storage.unavailable, from the outage guards
    const failure = documentFailure(ctx, error);
    if (failure) {
      const clientId = ctx.oidc?.client?.clientId ?? namedClientId(ctx);
      emit({ name: 'metadata_document.failed', ...(clientId ? { clientId } : {}), ...failure }, ctx);
      return;
    }
    const code = error.error ?? 'server_error';
    const description = descriptionOf(error);
    const interaction = ctx.oidc?.entities?.Interaction?.result;
    // the person's Cancel or Deny, or a refusal: `consent.denied` was emitted where it was
    // decided (interactions/router.ts, interactions/host-sign-in.ts), not read from words here
    if (code === 'access_denied' && ctx.oidc?.route === 'resume' && interaction?.error === 'access_denied') return;
    const mismatch = code === 'invalid_redirect_uri' ? {
      ...(text(ctx.oidc?.params?.redirect_uri) ? { redirectUri: printable(text(ctx.oidc?.params?.redirect_uri)!, MAX_URI) } : {}),
      // registered by anyone (open registration, metadata documents): printable as the sent one is
      registeredRedirectUris: (ctx.oidc?.client?.redirectUris ?? []).slice(0, MAX_REGISTERED).map((uri) => printable(uri, MAX_URI)),
    } : {};
    emit({ name: 'authorization.failed', error: code, description, ...mismatch, ...who(ctx, ctx.oidc?.session?.accountId) }, ctx);
  });

  on('grant.success', (ctx: ProviderContext) => {
    const grantType = ctx.oidc?.params?.grant_type;
    const token = ctx.oidc?.entities?.AccessToken;
    const identity = who(ctx, ctx.oidc?.entities?.Account?.accountId ?? token?.accountId, token?.extra?.org_id);
    if (grantType === 'authorization_code') emit({ name: 'code.redeemed', ...identity }, ctx);
    else if (grantType === 'refresh_token') emit({ name: servedInGrace(ctx) ? 'refresh.grace_used' : 'refresh.rotated', ...identity }, ctx);
  });

  on('grant.error', (ctx: ProviderContext, error: ProviderError) => {
    if (error.status === 503) return;
    const failure = documentFailure(ctx, error);
    if (failure) {
      const clientId = ctx.oidc?.client?.clientId ?? namedClientId(ctx);
      emit({ name: 'metadata_document.failed', ...(clientId ? { clientId } : {}), ...failure }, ctx);
      return;
    }
    const entities = ctx.oidc?.entities;
    const source = entities?.RefreshToken ?? entities?.AuthorizationCode;
    // a refusal made where the token is read (the refresh rate) names the account itself
    const identity = who(ctx, entities?.Account?.accountId ?? source?.accountId ?? text((error as { accountId?: unknown }).accountId));
    if (error.error_detail === 'refresh token already used') {
      emit({ name: 'refresh.reuse_detected', reason: 'after_grace', ...identity }, ctx);
      return;
    }
    if (error.error_detail === 'authorization code already consumed') {
      emit({ name: 'code.replayed', ...identity }, ctx);
      return;
    }
    const grantType = text(ctx.oidc?.params?.grant_type);
    const detail = error.error_detail !== undefined && error.error_detail in GRANT_DETAILS ? error.error_detail : undefined;
    emit({
      name: 'token.failed',
      error: error.error ?? 'server_error',
      description: descriptionOf(error),
      ...(grantType && /^(authorization_code|refresh_token|client_credentials)$/.test(grantType) ? { grantType } : {}),
      ...(detail ? { detail } : {}),
      ...identity,
    }, ctx);
  });

  const revoked = (tokenType: 'access_token' | 'refresh_token') => (token: TokenModel) => {
    const ctx = Provider.ctx as ProviderContext | undefined;
    if (ctx?.oidc?.route !== 'revocation') return;
    const owner = {
      ...(token.clientId ? { clientId: token.clientId } : {}),
      ...(token.accountId ? { accountId: token.accountId } : {}),
      ...(text(token.extra?.org_id) ? { site: text(token.extra?.org_id) } : {}),
    };
    emit({ name: 'token.revoked', tokenType, ...owner }, ctx);
    if (tokenType === 'access_token' && revokedTokens && token.jti) {
      revokedTokens.remember(token.jti, owner, token.exp);
    }
  };
  on('access_token.destroyed', revoked('access_token'));
  on('refresh_token.destroyed', revoked('refresh_token'));

  on('registration_create.success', (ctx: ProviderContext, client: { clientId?: string }) => {
    emit({ name: 'registration.accepted', ...(client?.clientId ? { clientId: client.clientId } : {}) }, ctx);
  });
  on('registration_create.error', (ctx: ProviderContext, error: ProviderError) => {
    if (error.status === 503) return;
    emit({ name: 'registration.refused', error: error.error ?? 'server_error', description: descriptionOf(error) }, ctx);
  });

  on('server_error', (ctx: ProviderContext, error: unknown) => {
    emit({ name: 'server.error', route: routeLabel(ctx), error: error instanceof Error ? error.name : 'unknown', ...who(ctx) }, ctx);
  });

  // endpoints without an event of their own count in the error metric
  if (metrics) {
    for (const name of ['revocation.error', 'introspection.error', 'discovery.error', 'jwks.error', 'userinfo.error']) {
      // a storage outage is counted as storage.unavailable, as at the endpoints with events
      on(name, (ctx: ProviderContext, error: ProviderError) => {
        if (error.status !== 503) metrics.error(routeLabel(ctx), error.error);
      });
    }
  }
}
