/** Lifetimes: the ID token's is the interface's ten minutes; every other one is the option's. */
import { DEFAULT_TTL, PROTOCOL } from '../../lib/constants.ts';
import { providerTtl } from '../../lib/policies/lifetimes.ts';

describe('providerTtl', () => {
  const custom = { accessToken: 11, authorizationCode: 22, refreshToken: 33, interaction: 44, session: 55, grant: 66 };

  it('maps every option to its provider model', () => {
    const ttl = providerTtl(custom);
    expect({
      AccessToken: ttl.AccessToken(), AuthorizationCode: ttl.AuthorizationCode(), RefreshToken: ttl.RefreshToken(),
      Interaction: ttl.Interaction(), Session: ttl.Session(), Grant: ttl.Grant(),
    }).toEqual({ AccessToken: 11, AuthorizationCode: 22, RefreshToken: 33, Interaction: 44, Session: 55, Grant: 66 });
  });

  it('keeps the ID token at ten minutes whatever the options say', () => {
    expect(providerTtl(custom).IdToken()).toBe(600);
    expect(providerTtl(DEFAULT_TTL).IdToken()).toBe(PROTOCOL.idTokenLifetime);
  });
});
