/**
 * ID tokens (spec §2.3): ES256, ten minutes, named by `kid` at the `jwks_uri`
 * (lib/constants.ts holds the algorithm and lifetime). A deployment may turn them off
 * (`options.idTokens: false`); discovery then lists neither `jwks_uri` nor
 * `id_token_signing_alg_values_supported`, so clients use UserInfo, and no answer carries an
 * `id_token`. The provider has no such switch, so it is an answer rule (and the provider is
 * kept from making the tokens: {@link withholdsIdToken}).
 *
 * @module
 */
import { leaveOut } from './provider-answer.ts';
import type { AnswerKind, AnswerRule, ProviderAnswer } from './provider-answer.ts';
import { refreshWithholdsIdToken } from './refresh.ts';

function withoutIdTokens(answer: ProviderAnswer): void {
  if (answer.route === 'discovery') {
    leaveOut(answer.body, 'jwks_uri');
    leaveOut(answer.body, 'id_token_signing_alg_values_supported');
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
