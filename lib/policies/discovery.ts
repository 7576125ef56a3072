/**
 * What the discovery document says beyond what oidc-provider derives by itself: the
 * endpoints this library serves beside the provider (UserInfo; Variant A registration), and
 * the client authentication methods of revocation and introspection, which the provider
 * does not publish (RFC 8414 §2 would then default them to `client_secret_basic`, which is
 * refused: lib/policies/client-auth.ts). And what it should not say: a claim no token or
 * UserInfo answer of this server carries ({@link onlyIssuedClaims}).
 *
 * @module
 */
import { PROTOCOL } from '../constants.ts';
import { ENDPOINTS } from '../endpoints.ts';
import type { ProviderAnswer } from './provider-answer.ts';

/**
 * Claims oidc-provider lists in `claims_supported` by default that this server never issues:
 * `sid` goes into ID tokens only for front- and back-channel logout, which are off, and a
 * client cannot ask for it (`claims_parameter_supported` is false).
 */
export const NEVER_ISSUED_CLAIMS: ReadonlySet<string> = new Set(['sid']);

/** Answer rule: discovery's `claims_supported` without the claims this server never issues. */
export function onlyIssuedClaims(answer: ProviderAnswer): void {
  if (answer.route !== 'discovery' || !Array.isArray(answer.body.claims_supported)) return;
  answer.body.claims_supported = (answer.body.claims_supported as unknown[]).filter((claim) => typeof claim !== 'string' || !NEVER_ISSUED_CLAIMS.has(claim));
}

/** oidc-provider's `discovery` additions for `baseUrl`. */
export function discoveryAdditions(baseUrl: string) {
  return {
    userinfo_endpoint: `${baseUrl}${ENDPOINTS.userinfo.path}`,
    registration_endpoint: `${baseUrl}${ENDPOINTS.registration.path}`,
    // the provider sets it to true itself when the feature is on
    client_id_metadata_document_supported: false,
    revocation_endpoint_auth_methods_supported: [...PROTOCOL.tokenEndpointAuthMethods],
    introspection_endpoint_auth_methods_supported: [...PROTOCOL.tokenEndpointAuthMethods],
  };
}
