/**
 * The code flow only, PKCE S256 required, exact redirect matching, `none` or
 * `client_secret_post`, ES256 ID tokens; every other provider feature off.
 */
import { PROTOCOL } from '../../lib/constants.ts';
import { codeFlowSettings, featuresOff } from '../../lib/policies/code-flow.ts';

describe('codeFlowSettings', () => {
  const settings = codeFlowSettings();

  it('offers the code response type and the two grants, and defaults clients to them', () => {
    expect(settings.responseTypes).toEqual(['code']);
    expect(settings.clientDefaults).toEqual({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256',
    });
  });

  it('requires PKCE on every request, whatever the client', () => {
    expect(settings.pkce.required()).toBe(true);
  });

  it('never infers a redirect_uri, even for a client with one', () => {
    expect(settings.allowOmittingSingleRegisteredRedirectUri).toBe(false);
  });

  it('accepts only none and client_secret_post, and signs ID tokens with ES256 only', () => {
    expect(settings.clientAuthMethods).toEqual(['none', 'client_secret_post']);
    expect(settings.enabledJWA).toEqual({ idTokenSigningAlgValues: ['ES256'] });
  });

  it('hands out copies, so the constants cannot be changed through the provider configuration', () => {
    (settings.clientAuthMethods as string[]).push('client_secret_basic');
    expect(PROTOCOL.tokenEndpointAuthMethods).toEqual(['none', 'client_secret_post']);
    expect(codeFlowSettings().clientAuthMethods).toEqual(['none', 'client_secret_post']);
  });
});

describe('featuresOff', () => {
  it('turns off every provider feature outside the interface', () => {
    const features = featuresOff();
    expect(Object.keys(features).sort()).toEqual(['dPoP', 'devInteractions', 'pushedAuthorizationRequests', 'rpInitiatedLogout', 'userinfo']);
    for (const feature of Object.values(features)) expect(feature).toEqual({ enabled: false });
  });
});
