/** Discovery names what is served beside the provider and the auth methods it does not publish. */
import { MEMBER, obtainCode, exchangeCode, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import { discoveryAdditions, onlyIssuedClaims } from '../../lib/policies/discovery.ts';

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

describe('onlyIssuedClaims', () => {
  it('drops sid from discovery\'s claims_supported and leaves other answers alone', () => {
    const body = { claims_supported: ['sub', 'sid', 'email'] };
    onlyIssuedClaims({ route: 'discovery', grantType: undefined, status: 200, body });
    expect(body.claims_supported).toEqual(['sub', 'email']);
    const other = { claims_supported: ['sid'] };
    onlyIssuedClaims({ route: 'token', grantType: undefined, status: 200, body: other });
    expect(other.claims_supported).toEqual(['sid']);
  });

  it('over HTTP: every claim both discovery documents list is one the ID token or UserInfo carries', async () => {
    const app = await startApp();
    try {
      const documents = await Promise.all(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']
        .map(async (path) => (await (await fetch(`${app.baseUrl}${path}`)).json()) as { claims_supported: string[] }));
      const { code, verifier } = await obtainCode(app.baseUrl, MEMBER, { scope: 'openid profile email account:read', resource: app.baseUrl, extra: { max_age: '3600', nonce: 'n' } }, STUDENT);
      const tokens = await (await exchangeCode(app.baseUrl, MEMBER, code, verifier, app.baseUrl)).json() as { id_token: string; access_token: string };
      const idToken = JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
      const userinfo = await (await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json() as Record<string, unknown>;
      const issued = new Set([...Object.keys(idToken), ...Object.keys(userinfo)]);
      expect(idToken).not.toHaveProperty('sid');
      // the second GET is answered from the discovery cache (lib/policies/discovery-cache.ts): the rule ran before it kept the document
      const again = await (await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).json() as { claims_supported: string[] };
      for (const document of [...documents, again]) {
        expect(document.claims_supported).not.toContain('sid');
        expect(document.claims_supported.filter((claim) => !issued.has(claim))).toEqual([]);
      }
    } finally {
      await app.stop();
    }
  });
});
