/**
 * The storage contract: oidc-provider's adapter interface (one adapter instance per model
 * name), plus the two rules this library adds on top of it.
 *
 * - `consume(id)` is atomic: exactly one caller consumes a stored artefact. A second
 *   consumer (two requests racing with one authorization code or one rotating refresh
 *   token) is treated as replay: every other artefact of the grant and the grant itself
 *   are removed (the replayed one stays, consumed, so every later racer is refused too),
 *   and the call rejects with oidc-provider's `InvalidGrant`, so the losing
 *   request answers `invalid_grant` and the winner's tokens die with the grant (RFC 6749
 *   §4.1.2, RFC 9700 §4.14.2).
 * - Records expire after `expiresIn` seconds and are never evicted before that.
 *
 * @module
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

export type { Adapter, AdapterPayload };

/** What oidc-provider's `adapter` option accepts: a factory called once per model name. */
export type AdapterFactory = (modelName: string) => Adapter;

/** Storage that can also be shut down (timers, connections). */
export interface ClosableAdapterFactory extends AdapterFactory {
  close(): Promise<void>;
}

/** Models whose records belong to a grant and die with it (`revokeByGrantId`). */
export const GRANTABLE_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
  // this library's per-grant record (lib/grant-context.ts)
  'GrantContext',
]);
