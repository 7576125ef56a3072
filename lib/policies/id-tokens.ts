/**
 * ID tokens (spec §2.3): ES256, ten minutes, named by `kid` at the `jwks_uri`
 * (lib/constants.ts holds the algorithm and lifetime). A deployment may turn them off
 * (`options.idTokens: false`); discovery then lists neither `jwks_uri` nor
 * `id_token_signing_alg_values_supported`, nor the claims only an ID token carries among its
 * `claims_supported`, so clients use UserInfo, and no answer carries an `id_token`. The provider has no such switch, so it is an answer rule (and the provider is
 * kept from making the tokens: {@link withholdsIdToken}).
 *
 * @module
 */
import { leaveOut } from './provider-answer.ts';
import type { AnswerKind, AnswerRule, ProviderAnswer } from './provider-answer.ts';
import { refreshWithholdsIdToken } from './refresh.ts';

/**
 * Claims of oidc-provider's `claims_supported` that only an ID token carries: UserInfo answers
 * the scopes' claims (lib/claims.ts) and `sub`, never the time, methods or context class of
 * the sign-in, nor the issuer.
 */
export const ID_TOKEN_ONLY_CLAIMS: ReadonlySet<string> = new Set(['auth_time', 'iss', 'amr', 'acr']);

function withoutIdTokens(answer: ProviderAnswer): void {
  if (answer.route === 'discovery') {
    leaveOut(answer.body, 'jwks_uri');
    leaveOut(answer.body, 'id_token_signing_alg_values_supported');
    const claims = answer.body.claims_supported;
    if (Array.isArray(claims)) answer.body.claims_supported = claims.filter((claim) => typeof claim !== 'string' || !ID_TOKEN_ONLY_CLAIMS.has(claim));
  } else if (answer.route === 'token') {
    leaveOut(answer.body, 'id_token');
  }
}

/**
 * Which token answers go out without an `id_token`: a refresh's always (./refresh.ts), every
 * one with `options.idTokens: false`. lib/provider/id-token-issuance.ts keeps the provider from
 * making those; the answer rules guarantee none is sent.
 */
export function withholdsIdToken(idTokens: boolean): (answer: AnswerKind) => boolean {
  return idTokens ? refreshWithholdsIdToken : (answer) => answer.route === 'token';
}

/** The answer rules for `options.idTokens`: none when they are on. */
export function idTokenAnswerRules(idTokens: boolean): AnswerRule[] {
  return idTokens ? [] : [withoutIdTokens];
}

/** The ID token carries the same claims as UserInfo (spec §2.3), not just `sub`. */
export function idTokenSettings() {
  return { conformIdTokenClaims: false } as const;
}
