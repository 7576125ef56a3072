/**
 * What the discovery document says beyond what oidc-provider derives by itself: the
 * endpoints this library serves beside the provider (UserInfo; Variant A registration), and
 * the client authentication methods of revocation and introspection, which the provider
 * does not publish (RFC 8414 §2 would then default them to `client_secret_basic`, which is
 * refused: lib/policies/client-auth.ts).
 *
 * @module
 */
import { PROTOCOL } from '../constants.ts';
import { ENDPOINTS } from '../endpoints.ts';

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
