/**
 * Token and session lifetimes: the ID token's is fixed by the interface (ten minutes, spec
 * §2.3, lib/constants.ts); every other one comes from `options.ttl` (defaults in
 * lib/constants.ts `DEFAULT_TTL`).
 *
 * @module
 */
import { PROTOCOL } from '../constants.ts';

export interface Lifetimes {
  readonly accessToken: number;
  readonly authorizationCode: number;
  readonly refreshToken: number;
  readonly interaction: number;
  readonly session: number;
  readonly grant: number;
}

/** oidc-provider's `ttl` configuration, in seconds. */
export function providerTtl(ttl: Lifetimes) {
  return {
    AccessToken: () => ttl.accessToken,
    AuthorizationCode: () => ttl.authorizationCode,
    IdToken: () => PROTOCOL.idTokenLifetime,
    RefreshToken: () => ttl.refreshToken,
    Interaction: () => ttl.interaction,
    Session: () => ttl.session,
    Grant: () => ttl.grant,
  };
}
