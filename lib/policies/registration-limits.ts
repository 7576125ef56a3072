/**
 * The limits of open registration (Variant B, RFC 7591), so that anonymous callers cannot
 * grow storage without bound:
 *
 * - **Rate, per client address** (IPv6: per /64, as the sign-in throttle counts it): a
 *   bucket of `perIp` registrations, refilled at `perIp` per `windowSeconds`. So a burst of
 *   `perIp` is served, then one registration every `windowSeconds / perIp` seconds; the
 *   excess is answered 429 with `Retry-After` (when the next one would be served). Every
 *   request let through counts, whether its metadata is then accepted or not, so the budget
 *   also bounds the work an address causes.
 *   The state is one timestamp per address (GCRA, the "generic cell rate algorithm" of
 *   ATM networks), shared by every instance through the adapter; addresses are stored
 *   hashed (SHA-256).
 * - **Size of what is stored** ({@link REGISTRATION_LIMITS}): `client_name` length, the
 *   number and length of `redirect_uris`, the length of the other URIs, and the whole client
 *   as stored; the request body's size is capped before it is read (lib/registration/open.ts).
 * - **https only** for the URIs a consent page may show or link ({@link HTTPS_ONLY_METADATA}):
 *   an http logo or terms page could be swapped in transit and is mixed content on an https
 *   page.
 * - **Shape**: nested at most 8 levels, and UTF-8 text only ({@link checkMetadataShape}).
 *
 * The metadata rules run for registrations only: clients already stored, static, member and
 * metadata-document clients keep loading as before.
 *
 * @module
 */
import { errors } from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import type { AdapterFactory } from '../../adapters/types.ts';
import { scopesForAudience } from '../scopes/catalogue.ts';
import { AddressRateLimiter } from './address-rate.ts';
import type { AddressRateSettings, RateAdmission } from './address-rate.ts';
import { EXTRA_CLIENT_METADATA } from './client-metadata.ts';

/**
 * What a registration may store. Real registrations are far below each (an MCP client
 * sends a name, one or two redirect URIs and a few enums: well under 1 KB); the probe that
 * prompted these stored 45 KB per client.
 */
export const REGISTRATION_LIMITS = Object.freeze({
  /** characters of `client_name`, as for member clients (lib/member-clients/manager.ts) */
  clientNameLength: 100,
  /** entries of `redirect_uris`, as for member clients */
  redirectUris: 10,
  /** characters of each redirect URI and of each URI in {@link HTTPS_ONLY_METADATA} */
  uriLength: 2000,
  /** bytes of the client as stored (its metadata as JSON) */
  metadataBytes: 8 * 1024,
  /**
   * bytes of the request body, refused (413) before it is read when `Content-Length` says
   * more; the same cap as Variant A's registration body
   */
  bodyBytes: 16 * 1024,
});

/** The client URIs a registration may set only with https. */
export const HTTPS_ONLY_METADATA = Object.freeze(['logo_uri', 'policy_uri', 'tos_uri', 'client_uri'] as const);

type Metadata = Record<string, unknown>;

function refuse(description: string): never {
  // never a description starting with `redirect_uris`: oidc-provider would answer it as
  // invalid_redirect_uri, and these are limits on the metadata as a whole
  throw new errors.InvalidClientMetadata(description);
}

/** Characters of `text` as a person counts them (code points, not UTF-16 units): how every size limit here counts. */
export const characters = (text: string) => [...text].length;

/** The scope every registered client is stored with (./client-metadata.ts, checkAudience). */
const OPERATOR_SCOPE = scopesForAudience('operator').join(' ');

/**
 * How deep a registration's metadata may nest. RFC 7591's values are strings, numbers,
 * arrays of them and a JWKS (`jwks.keys[i].x5c[j]`: five levels); far deeper JSON parses
 * fine but overflows the stack of anything that walks it recursively (`JSON.stringify`, the
 * provider's own checks): a 500 for any caller.
 */
const MAX_METADATA_DEPTH = 8;

/** U+FFFD, what oidc-provider's reading of the body (UTF-8, not fatal) makes of bytes that are not UTF-8. */
const REPLACEMENT_CHARACTER = '\uFFFD';

/**
 * The shape every value must have before anything else reads the metadata: nested at most
 * {@link MAX_METADATA_DEPTH} levels, walked without recursion; and no U+FFFD in a name or
 * a string, which is what a body not in UTF-8 decodes to (oidc-provider reads the JSON body
 * as UTF-8 without refusing bad bytes, so "café" sent in Latin-1 would be stored as
 * "caf\uFFFD"). No real metadata holds the replacement character itself.
 */
function checkMetadataShape(metadata: Metadata): void {
  const pending: [unknown, number][] = [[metadata, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value === 'string') {
      if (value.includes(REPLACEMENT_CHARACTER)) refuse('the client metadata must be UTF-8 text: it holds U+FFFD, what bytes that are not UTF-8 decode to');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_METADATA_DEPTH) refuse(`the client metadata must not nest deeper than ${MAX_METADATA_DEPTH} levels`);
    for (const [key, item] of Object.entries(value)) pending.push([key, depth + 1], [item, depth + 1]);
  }
}

/**
 * The size and scheme rules on a registration's metadata; throws oidc-provider's
 * `InvalidClientMetadata` (400 `invalid_client_metadata`). Values of the wrong type are left
 * to the provider's own checks.
 */
export function checkRegistrationMetadata(metadata: Metadata): void {
  checkMetadataShape(metadata);
  const limits = REGISTRATION_LIMITS;
  const name = metadata.client_name;
  if (typeof name === 'string' && characters(name) > limits.clientNameLength) {
    refuse(`client_name must be at most ${limits.clientNameLength} characters; got ${characters(name)}`);
  }
  const redirects = metadata.redirect_uris;
  if (Array.isArray(redirects)) {
    if (redirects.length > limits.redirectUris) {
      refuse(`at most ${limits.redirectUris} redirect_uris may be registered; got ${redirects.length}`);
    }
    if (redirects.some((uri) => typeof uri === 'string' && characters(uri) > limits.uriLength)) {
      refuse(`each of redirect_uris must be at most ${limits.uriLength} characters`);
    }
  }
  for (const field of HTTPS_ONLY_METADATA) {
    const uri = metadata[field];
    if (typeof uri !== 'string') continue;
    if (characters(uri) > limits.uriLength) refuse(`${field} must be at most ${limits.uriLength} characters`);
    if (URL.parse(uri)?.protocol !== 'https:') refuse(`${field} must be an https URL`);
  }
  // as it will be stored: registration gives every registered client the operator audience and
  // every operator scope (./client-metadata.ts, checkAudience), after this check runs
  const bytes = Buffer.byteLength(JSON.stringify({ ...metadata, audience: 'operator', scope: OPERATOR_SCOPE }));
  if (bytes > limits.metadataBytes) {
    refuse(`the client metadata must be at most ${limits.metadataBytes} bytes as JSON; got ${bytes}`);
  }
}

/**
 * `extraClientMetadata.validator` step: {@link checkRegistrationMetadata} for registrations.
 * The provider calls the validator once per extra property; the rules run on the first.
 */
export function checkRegistrationLimits(ctx: KoaContextWithOIDC | undefined, key: string, metadata: Metadata): void {
  if (key !== EXTRA_CLIENT_METADATA[0] || ctx?.oidc?.route !== 'registration') return;
  checkRegistrationMetadata(metadata);
}

/** The storage model of the per-address rate state. */
export const REGISTRATION_RATE_MODEL = 'RegistrationRate';

/** The resolved settings (`options.registration.rateLimit`): `perIp` registrations per `windowSeconds`. */
export type RegistrationRateSettings = AddressRateSettings;

/** What a registration attempt may do. */
export type RegistrationAdmission = RateAdmission;

/** The per-address registration rate over the storage adapter (./address-rate.ts); one per `createPlatformAuth`. */
export class RegistrationRateLimiter extends AddressRateLimiter {
  constructor(adapter: AdapterFactory, settings: RegistrationRateSettings | false, now: () => number = Date.now) {
    super(adapter, REGISTRATION_RATE_MODEL, settings, now);
  }
}
