/**
 * The audience and redirect rules for client metadata, run by oidc-provider for every
 * client it builds (`extraClientMetadata.validator`): static clients at start-up, clients
 * loaded from storage, RFC 7591 registrations (Variant B) and client ID metadata documents.
 *
 * - Registration creates operator clients only: `audience: "member"`, `org_id` and
 *   member-only scopes are refused; member clients come from a site operator (lib/member-clients).
 *   A registered client may request every operator scope, whatever `scope` it registered.
 * - A metadata document cannot make itself a member client either, and its redirect URIs
 *   must be on the document's own host name (any port) or a loopback address.
 * - Neither may name a `sector_identifier_uri` (no pairwise subjects here; see checkAudience).
 * - Registered and document clients may redirect only to https or to http on a loopback
 *   address. With a loopback redirect they are treated as native apps, so the port is not
 *   compared (RFC 8252 §7.3) even when the document omits `application_type`, as real MCP
 *   clients do.
 *
 * The validator is synchronous (oidc-provider requires it); it sees the whole metadata
 * object and may default fields on it.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

import { errors } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import { isLoopbackUri, LOOPBACK_HOSTS } from '../constants.ts';
import { parseScope, scopesForAudience } from '../scopes/catalogue.ts';
import type { ProviderAnswer } from './provider-answer.ts';

/** The extra metadata properties this library keeps on clients. */
export const EXTRA_CLIENT_METADATA = ['audience', 'org_id'] as const;

export function isMetadataDocumentId(clientId: unknown): clientId is string {
  return typeof clientId === 'string' && /^https:\/\//i.test(clientId);
}

/**
 * The prefix of the ids open registration (RFC 7591) gives: anyone can register a client
 * (within the registration limits), so, like a metadata document's client, one counts as
 * known to the traces only once it is used (lib/trace/store.ts). Clients registered by an
 * earlier version, without it, are not told apart.
 */
export const SELF_REGISTERED_PREFIX = 'dcr_';

/** A new self-registered client's id (oidc-provider's `registration.idFactory`): the prefix and 128 random bits. */
export function selfRegisteredId(): string {
  return `${SELF_REGISTERED_PREFIX}${randomBytes(16).toString('base64url')}`;
}

export function isSelfRegisteredId(clientId: unknown): clientId is string {
  return typeof clientId === 'string' && clientId.startsWith(SELF_REGISTERED_PREFIX);
}

type Metadata = Record<string, unknown>;

type ClientOrigin = 'registration' | 'metadata-document' | 'configured';

function originOf(ctx: KoaContextWithOIDC | undefined, metadata: Metadata): ClientOrigin {
  if (ctx?.oidc?.route === 'registration') return 'registration';
  if (isMetadataDocumentId(metadata.client_id)) return 'metadata-document';
  return 'configured';
}

function redirectUris(metadata: Metadata): string[] {
  return Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris.filter((u): u is string => typeof u === 'string') : [];
}

/**
 * Where a member or registered client may send the browser back to: https anywhere, or http
 * on a loopback address (RFC 8252 §7.3). The fragment is not looked at; see
 * {@link isAcceptableRedirect} for the whole rule.
 */
export function isAcceptableRedirectTarget(uri: string): boolean {
  return URL.parse(uri)?.protocol === 'https:' || isLoopbackUri(uri);
}

/**
 * Whitespace, control characters and backslashes, which no URI holds (RFC 3986 §2). The URL
 * parser drops tabs and line breaks and reads `\` as `/` without a word, so such a redirect
 * URI would be accepted as the URL it parses to while its raw string is stored and matched
 * exactly (`https://trusted.example\@evil.example/` reads as trusted.example).
 */
const NOT_IN_A_URI = /[\s\p{Cc}\\]/u;

/**
 * An http(s) URI whose authority is empty (`https:///trusted.example/`): RFC 3986 wants a host
 * there, and the URL parser skips the extra slashes to find one, a rewrite like those above.
 */
const EMPTY_AUTHORITY = /^https?:\/\/(?:[/?#]|$)/i;

/** Whether `uri` holds what no URI does, or is one the URL parser would rewrite (see above). */
function isMalformedUri(uri: string): boolean {
  return NOT_IN_A_URI.test(uri) || EMPTY_AUTHORITY.test(uri);
}

/**
 * Control and text-direction characters (bidi overrides, embeddings, isolates, marks): a
 * client's name is shown on the consent page and must read as the characters it holds, not
 * be turned around to look like another name.
 */
export const NOT_IN_A_NAME = /[\p{Cc}\p{Bidi_Control}]/u;

/** Whether `uri` names a user or password (`https://trusted.example@evil.example/`): a redirect URI never needs one. */
function hasUserInfo(uri: string): boolean {
  const url = URL.parse(uri);
  return url !== null && (url.username !== '' || url.password !== '');
}

/**
 * The redirect rule of member and registered clients: an acceptable target
 * ({@link isAcceptableRedirectTarget}) without a fragment (RFC 6749 §3.1.2), whitespace,
 * control characters or backslashes, with a host after `//`.
 */
export function isAcceptableRedirect(uri: unknown): uri is string {
  if (typeof uri !== 'string' || isMalformedUri(uri) || hasUserInfo(uri)) return false;
  const url = URL.parse(uri);
  return url !== null && !url.hash && isAcceptableRedirectTarget(uri);
}

/**
 * `native` when any redirect URI is a loopback one, else `web`: oidc-provider matches a
 * redirect URI on any port only for native apps, as RFC 8252 §7.3 wants for loopback ones.
 */
export function applicationTypeFor(uris: readonly string[]): 'native' | 'web' {
  return uris.some(isLoopbackUri) ? 'native' : 'web';
}

/** https anywhere, or http on a loopback address; anything else is refused. */
function checkDynamicRedirects(metadata: Metadata, origin: 'registration' | 'metadata-document'): void {
  const documentHost = origin === 'metadata-document' ? URL.parse(String(metadata.client_id))?.hostname : undefined;
  for (const uri of redirectUris(metadata)) {
    if (isMalformedUri(uri)) throw new errors.InvalidClientMetadata('redirect_uris must be URIs as RFC 3986 writes them: no whitespace, control characters or backslashes, and a host after "//"');
    if (hasUserInfo(uri)) throw new errors.InvalidClientMetadata('redirect_uris must not name a user or password');
    if (isLoopbackUri(uri)) continue;
    if (origin === 'registration') {
      // The target only: a fragment is refused by oidc-provider itself, after this validator.
      if (!isAcceptableRedirectTarget(uri)) {
        // InvalidClientMetadata, not InvalidRedirectUri (whose constructor drops the text):
        // oidc-provider answers a description starting with `redirect_uris` as invalid_redirect_uri
        throw new errors.InvalidClientMetadata(`redirect_uris must use https, or http on a loopback address (${[...LOOPBACK_HOSTS].join(', ')})`);
      }
    } else {
      const url = URL.parse(uri);
      if (url?.protocol !== 'https:' || url.hostname !== documentHost) {
        throw new errors.InvalidClientMetadata(`redirect_uris of a client ID metadata document must be on its own host (${documentHost}) or a loopback address`);
      }
    }
  }
  // loopback redirects force `native`; otherwise the client's own `application_type` stands
  if (applicationTypeFor(redirectUris(metadata)) === 'native') metadata.application_type = 'native';
}

function checkAudience(ctx: KoaContextWithOIDC | undefined, metadata: Metadata): void {
  const origin = originOf(ctx, metadata);
  const { audience } = metadata;
  if (origin === 'configured') {
    if (audience === undefined) metadata.audience = 'operator';
    else if (audience !== 'member' && audience !== 'operator') {
      throw new errors.InvalidClientMetadata('audience must be "member" or "operator"');
    }
    return;
  }

  // pairwise subjects are not offered, so a sector identifier has no use here, and oidc-provider
  // would fetch it from any host, past the metadata documents' allowlist and budgets
  if (metadata.sector_identifier_uri !== undefined) {
    throw new errors.InvalidClientMetadata('sector_identifier_uri is not supported: subject identifiers are public, never pairwise');
  }
  if (typeof metadata.client_name === 'string' && NOT_IN_A_NAME.test(metadata.client_name)) {
    throw new errors.InvalidClientMetadata('client_name must not contain control or text-direction characters');
  }
  const who = origin === 'registration' ? 'registration creates operator clients only' : 'a client ID metadata document describes an operator client';
  if (audience !== undefined && audience !== 'operator') {
    throw new errors.InvalidClientMetadata(`audience cannot be ${JSON.stringify(audience)}: ${who}; member clients are created by a site operator`);
  }
  if (metadata.org_id !== undefined) {
    throw new errors.InvalidClientMetadata(`org_id cannot be set: ${who}; the site is chosen when an operator signs in`);
  }
  metadata.audience = 'operator';

  // RFC 7591 §2: a string of space-separated scope values. Read as '' before, an array (even
  // `["account:read"]`) passed the eligibility check below unread
  if (metadata.scope !== undefined && typeof metadata.scope !== 'string') {
    throw new errors.InvalidClientMetadata('scope must be a string of space-separated scope names');
  }
  const eligible = new Set(scopesForAudience('operator'));
  if (origin === 'registration') {
    const notEligible = parseScope(metadata.scope ?? '').filter((s) => !eligible.has(s));
    if (notEligible.length > 0) {
      throw new errors.InvalidClientMetadata(`scope ${notEligible.join(' ')} is not available to registered clients (operator audience); account:* scopes belong to member clients`);
    }
    // The registered scope is what the client asks for first, not a ceiling: MCP clients
    // register with the protected-resource `scopes_supported` (identity only) and then step
    // up to data scopes on 403 insufficient_scope hints, which a ceiling would refuse. Every
    // operator scope is allowed, and the answer says so (RFC 7591 §3.2.1 lets the server
    // replace a requested value).
    metadata.scope = [...eligible].join(' ');
  }
  checkDynamicRedirects(metadata, origin);
}

export function validateClientMetadata(ctx: KoaContextWithOIDC | undefined, key: string, value: unknown, metadata: Metadata): void {
  if (key === 'audience') checkAudience(ctx, metadata);
  if (key === 'org_id' && value !== undefined && (typeof value !== 'string' || !value)) {
    throw new errors.InvalidClientMetadata('org_id must be a non-empty string');
  }
}

/**
 * Answer rule: a registration body the provider refuses as `invalid_request` (not a JSON
 * object) is `invalid_client_metadata`, the code RFC 7591 §3.2.2 gives for any metadata the
 * server cannot accept.
 */
export function registrationRefusalCode(answer: ProviderAnswer): void {
  if (answer.route === 'registration' && answer.status === 400 && answer.body.error === 'invalid_request') {
    answer.body.error = 'invalid_client_metadata';
  }
}
