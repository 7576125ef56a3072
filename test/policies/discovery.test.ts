/** Discovery names what is served beside the provider and the auth methods it does not publish. */
import { discoveryAdditions } from '../../lib/policies/discovery.ts';

describe('discoveryAdditions', () => {
  const additions = discoveryAdditions('https://learn.example.com');

  it('points at UserInfo and registration, which the library serves beside the provider', () => {
    expect(additions.userinfo_endpoint).toBe('https://learn.example.com/api/oauth/userinfo');
    expect(additions.registration_endpoint).toBe('https://learn.example.com/api/oauth/register');
  });

  it('says which client authentication revocation and introspection take, so RFC 8414 does not default to client_secret_basic', () => {
    expect(additions.revocation_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
    expect(additions.introspection_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
  });

  it('leaves metadata-document support to the provider, which sets it when the feature is on', () => {
    expect(additions.client_id_metadata_document_supported).toBe(false);
  });
});
