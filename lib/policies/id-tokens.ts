/**
 * ID tokens (spec §2.3): ES256, ten minutes, named by `kid` at the `jwks_uri`
 * (lib/constants.ts holds the algorithm and lifetime). A deployment may turn them off
 * (`options.idTokens: false`); discovery then lists neither `jwks_uri` nor
 * `id_token_signing_alg_values_supported`, so clients use UserInfo, and no answer carries an
 * `id_token`. The provider has no such switch, so it is an answer rule.
 *
 * @module
 */
import { leaveOut } from './provider-answer.ts';
import type { AnswerRule, ProviderAnswer } from './provider-answer.ts';

function withoutIdTokens(answer: ProviderAnswer): void {
  if (answer.route === 'discovery') {
    leaveOut(answer.body, 'jwks_uri');
    leaveOut(answer.body, 'id_token_signing_alg_values_supported');
  } else if (answer.route === 'token') {
    leaveOut(answer.body, 'id_token');
  }
}

/** The answer rules for `options.idTokens`: none when they are on. */
export function idTokenAnswerRules(idTokens: boolean): AnswerRule[] {
  return idTokens ? [] : [withoutIdTokens];
}

/** The ID token carries the same claims as UserInfo (spec §2.3), not just `sub`. */
export function idTokenSettings() {
  return { conformIdTokenClaims: false } as const;
}
