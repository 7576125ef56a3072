/**
 * The only way to a credential is the authorization code flow with PKCE S256 (spec §1):
 * response type `code`, the `authorization_code` and `refresh_token` grants, PKCE required on
 * every request, `redirect_uri` always sent and matched exactly, `none` or
 * `client_secret_post` client authentication, ES256 ID tokens (lib/constants.ts).
 *
 * @module
 */
import { PROTOCOL } from '../constants.ts';

/** The oidc-provider settings of the flow. */
export function codeFlowSettings() {
  return {
    clientDefaults: {
      grant_types: [...PROTOCOL.grantTypes],
      response_types: [...PROTOCOL.responseTypes],
      token_endpoint_auth_method: PROTOCOL.defaultTokenEndpointAuthMethod,
      id_token_signed_response_alg: PROTOCOL.idTokenSigningAlg,
    },
    clientAuthMethods: [...PROTOCOL.tokenEndpointAuthMethods],
    responseTypes: [...PROTOCOL.responseTypes],
    // exact redirect_uri matching: the parameter is always required, never inferred
    allowOmittingSingleRegisteredRedirectUri: false,
    // oidc-provider accepts only S256 as the method; this makes the challenge mandatory
    pkce: { required: () => true },
    enabledJWA: { idTokenSigningAlgValues: [PROTOCOL.idTokenSigningAlg] },
  };
}

/**
 * The provider features outside the flow, off: no development sign-in pages, no DPoP, no
 * pushed authorization requests, no RP-initiated logout (none is in the interface), and
 * the provider's own UserInfo (it refuses resource-bound tokens; ours is served beside it).
 */
export function featuresOff() {
  return {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    dPoP: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
  } as const;
}
