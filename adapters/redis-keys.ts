/**
 * What a Redis key and a stored record may say of a credential.
 *
 * oidc-provider names the record of an opaque access token, refresh token or code by the
 * token itself (`jti`), and stores that id again in the record. Keys are what `SCAN`,
 * `MONITOR`, `SLOWLOG`, keyspace notifications, key browsers of managed Redis services and
 * memory reports show to whoever may look at the keyspace, often more people than may use a
 * member's tokens: a refresh token of a public client works alone. So a record of these models
 * is kept under the SHA-256 of its id, `<prefix><Model>:{sha256:<base64url>}`, and its JSON
 * holds `"jti":true` for the id, given back on read from the id the caller asked for: neither
 * the key, nor the value, nor the commands that write them hold the token.
 *
 * Not hashed: records whose id is no bearer credential (a Grant's, a Client's), and `Session`
 * and `Interaction`, whose ids are the values of oidc-provider's cookies: those cookies are
 * signed with the cookie keys, so their value alone opens nothing, and oidc-provider reads a
 * session by its `uid` index, which must name the record's id.
 *
 * Records written by 0.1.0 are under their raw id: `migrateRedisKeys` (./redis-migrate.ts)
 * moves them once. The adapter never reads a raw key itself: a lookup there would send the
 * token it looks for, any token (introspection looks an access token up as a refresh token
 * too), in a command that MONITOR and SLOWLOG show.
 *
 * @module
 */
import { hash } from 'node:crypto';

import type { AdapterPayload } from './types.ts';

/** The models whose record id is a bearer credential. */
export const CREDENTIAL_MODELS: ReadonlySet<string> = new Set([
  'AccessToken', 'RefreshToken', 'AuthorizationCode', 'ClientCredentials', 'RegistrationAccessToken', 'InitialAccessToken',
]);

/** Whether `model`'s records are kept under the hash of their id. */
export function isCredentialModel(model: string): boolean {
  return CREDENTIAL_MODELS.has(model);
}

/** The id as the record's key holds it: the SHA-256 of a credential, any other id as it is. */
export function keyIdOf(model: string, id: string): string {
  // crypto.hash, one call: no Hash object per key (every token read and write passes here)
  return CREDENTIAL_MODELS.has(model) ? `sha256:${hash('sha256', id, 'base64url')}` : id;
}

/**
 * The JSON a record is stored as: a credential's `jti` (the id itself) written as `true`,
 * "the id this record was found by", so that a read gives back exactly what was written.
 */
export function storedJson(model: string, id: string, payload: AdapterPayload): string {
  if (payload.jti !== id || !CREDENTIAL_MODELS.has(model)) return JSON.stringify(payload);
  return JSON.stringify({ ...payload, jti: true });
}

/** A record as read: a credential's `jti` given back from the id it was found by. */
export function withId(id: string, payload: AdapterPayload | undefined): AdapterPayload | undefined {
  // as stored, `jti` is `true` (oidc-provider's type says string: it never sees it so)
  if (payload !== undefined && (payload as { jti?: unknown }).jti === true) payload.jti = id;
  return payload;
}

/** The key of the record of `model` whose key holds `keyId` (keyIdOf, or an index entry's id). */
export function recordKeyOf(prefix: string, model: string, keyId: string): string {
  return `${prefix}${model}:{${keyId}}`;
}

/** The set of the full keys of a grant's records. */
export function grantIndexKeyOf(prefix: string, grantId: string): string {
  return `${prefix}index:grant:{${grantId}}`;
}
