/**
 * ID tokens (spec §2.3): ES256, ten minutes, named by `kid` at the `jwks_uri`
 * (lib/constants.ts holds the algorithm and lifetime). A deployment may turn them off
 * (`options.idTokens: false`); discovery then lists neither `jwks_uri` nor
 * `id_token_signing_alg_values_supported`, nor the claims only an ID token carries among its
 * `claims_supported`, so clients use UserInfo, no answer carries an `id_token`, and a
 * registration answer carries no ID-token metadata ({@link ID_TOKEN_CLIENT_METADATA}). The
 * provider has no such switch, so it is an answer rule (and the provider is kept from making
 * the tokens: {@link withholdsIdToken}).
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

/**
 * Client metadata (RFC 7591, OpenID Connect Dynamic Client Registration §2) that is about ID
 * tokens only: how they are signed, and whether they carry `auth_time`. oidc-provider fills
 * them into every registration answer; without ID tokens they describe nothing, so the
 * answer and `/openapi.json`'s `ClientRegistrationResponse` leave them out.
 */
export const ID_TOKEN_CLIENT_METADATA = ['id_token_signed_response_alg', 'require_auth_time'] as const;

function withoutIdTokens(answer: ProviderAnswer): void {
  if (answer.route === 'discovery') {
    leaveOut(answer.body, 'jwks_uri');
    leaveOut(answer.body, 'id_token_signing_alg_values_supported');
    const claims = answer.body.claims_supported;
    if (Array.isArray(claims)) answer.body.claims_supported = claims.filter((claim) => typeof claim !== 'string' || !ID_TOKEN_ONLY_CLAIMS.has(claim));
  } else if (answer.route === 'token') {
    leaveOut(answer.body, 'id_token');
  } else if (answer.route === 'registration') {
    for (const name of ID_TOKEN_CLIENT_METADATA) leaveOut(answer.body, name);
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
