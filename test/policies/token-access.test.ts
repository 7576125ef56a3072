/**
 * lib/policies/token-access.ts without HTTP: who may revoke (RFC 7009 §2.1) or introspect
 * (RFC 7662 §2.1) a token; a token of a deleted client is inactive and its grant revoked.
 */
import { errors } from 'oidc-provider';

import { introspectionAllowed, revocationAllowed } from '../../lib/policies/token-access.ts';
import type { IntrospectionPolicy } from '../../lib/policies/token-access.ts';
import { fakeProvider } from './fake-provider.ts';

describe('revocationAllowed', () => {
  it('lets a client revoke its own token', async () => {
    expect(await revocationAllowed({ clientId: 'app', clientAuthMethod: 'none' }, { clientId: 'app' })).toBe(true);
    expect(await revocationAllowed({ clientId: 'app', clientAuthMethod: 'client_secret_post' }, { clientId: 'app' })).toBe(true);
  });

  it("tells a public client nothing about another client's token", async () => {
    expect(await revocationAllowed({ clientId: 'app', clientAuthMethod: 'none' }, { clientId: 'other' })).toBe(false);
  });

  it("refuses a confidential client another client's token with invalid_request", async () => {
    const promise = revocationAllowed({ clientId: 'app', clientAuthMethod: 'client_secret_post' }, { clientId: 'other' });
    await expect(promise).rejects.toBeInstanceOf(errors.InvalidRequest);
    await expect(promise).rejects.toMatchObject({ error: 'invalid_request', status: 400, error_description: expect.stringMatching(/not authorized to revoke/) });
  });

  it('does not treat a token without a client as the caller\'s', async () => {
    expect(await revocationAllowed({ clientId: 'app', clientAuthMethod: 'none' }, {})).toBe(false);
  });
});

describe('introspectionAllowed', () => {
  function setup(existing: readonly string[], introspectionClients: readonly string[] = ['rs'], refused: readonly string[] = []) {
    const fake = fakeProvider();
    const looked: string[] = [];
    let providerCalls = 0;
    const policy: IntrospectionPolicy = {
      introspectionClients,
      async tokenClient(id) {
        looked.push(id);
        if (refused.includes(id)) return 'refused';
        return existing.includes(id) ? 'live' : 'deleted';
      },
      provider: () => { providerCalls += 1; return fake.provider; },
    };
    return { policy, fake, looked, providerCalls: () => providerCalls };
  }

  it('lets a client introspect its own token without further lookups', async () => {
    const s = setup([]);
    expect(await introspectionAllowed(s.policy, { clientId: 'app' }, { clientId: 'app', grantId: 'g' })).toBe(true);
    expect(s.looked).toEqual([]);
    expect(s.providerCalls()).toBe(0);
  });

  it("refuses an untrusted client another client's token, revoking nothing", async () => {
    const s = setup(['other']);
    expect(await introspectionAllowed(s.policy, { clientId: 'app' }, { clientId: 'other', grantId: 'g' })).toBe(false);
    expect(s.looked).toEqual([]);
    expect(s.fake.revoked.AccessToken).toEqual([]);
  });

  it('lets a trusted resource server introspect the token of an existing client', async () => {
    const s = setup(['other']);
    expect(await introspectionAllowed(s.policy, { clientId: 'rs' }, { clientId: 'other', grantId: 'g' })).toBe(true);
    expect(s.looked).toEqual(['other']);
    expect(s.fake.revoked.AccessToken).toEqual([]);
    expect(s.fake.destroyed).toBe(0);
  });

  it('answers inactive for the token of a deleted client, and revokes its grant', async () => {
    const s = setup([]);
    expect(await introspectionAllowed(s.policy, { clientId: 'rs' }, { clientId: 'gone', grantId: 'g-9' })).toBe(false);
    expect(s.looked).toEqual(['gone']);
    expect(s.fake.revoked).toEqual({ AccessToken: ['g-9'], RefreshToken: ['g-9'], AuthorizationCode: ['g-9'] });
    expect(s.fake.found).toEqual(['g-9']);
    expect(s.fake.destroyed).toBe(1);
  });

  it('answers inactive for a deleted client\'s token without a grant, revoking nothing', async () => {
    const s = setup([]);
    expect(await introspectionAllowed(s.policy, { clientId: 'rs' }, { clientId: 'gone' })).toBe(false);
    expect(s.providerCalls()).toBe(0);
  });

  it('answers inactive for the token of a metadata-document client whose document is now refused, keeping its grant', async () => {
    const s = setup([], ['rs'], ['https://tools.example/gone.json']);
    expect(await introspectionAllowed(s.policy, { clientId: 'rs' }, { clientId: 'https://tools.example/gone.json', grantId: 'g-1' })).toBe(false);
    expect(s.providerCalls()).toBe(0);
    expect(s.fake.destroyed).toBe(0);
  });

  it('honours only the listed resource servers', async () => {
    const s = setup(['other'], []);
    expect(await introspectionAllowed(s.policy, { clientId: 'rs' }, { clientId: 'other' })).toBe(false);
  });
});
