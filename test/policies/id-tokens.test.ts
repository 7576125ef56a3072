/**
 * lib/policies/id-tokens.ts without HTTP: with `idTokens: false`, discovery names no
 * `jwks_uri` or signing algorithms and no token answer carries an `id_token`.
 */
import { idTokenAnswerRules, idTokenSettings, withholdsIdToken } from '../../lib/policies/id-tokens.ts';
import type { ProviderAnswer } from '../../lib/policies/provider-answer.ts';

function run(idTokens: boolean, answer: ProviderAnswer): Record<string, unknown> {
  for (const rule of idTokenAnswerRules(idTokens)) rule(answer);
  return answer.body;
}

const discovery = () => ({
  issuer: 'https://learn.example',
  jwks_uri: 'https://learn.example/api/oauth/jwks',
  id_token_signing_alg_values_supported: ['ES256'],
  scopes_supported: ['openid'],
});
const tokenBody = () => ({ access_token: 'at', id_token: 'idt', refresh_token: 'rt', token_type: 'Bearer' });

describe('idTokens on', () => {
  it('has no rules', () => {
    expect(idTokenAnswerRules(true)).toEqual([]);
  });
});

describe('idTokens off', () => {
  it('has one rule', () => {
    expect(idTokenAnswerRules(false)).toHaveLength(1);
  });

  it('strips jwks_uri and id_token_signing_alg_values_supported from discovery, keeping the rest', () => {
    const body = run(false, { route: 'discovery', grantType: undefined, status: 200, body: discovery() });
    expect(body).toEqual({ issuer: 'https://learn.example', scopes_supported: ['openid'] });
  });

  it.each(['authorization_code', 'refresh_token'])('strips id_token from a %s token answer, keeping the rest', (grantType) => {
    const body = run(false, { route: 'token', grantType, status: 200, body: tokenBody() });
    expect(body).toEqual({ access_token: 'at', refresh_token: 'rt', token_type: 'Bearer' });
  });

  it('leaves other routes alone', () => {
    const body = { id_token: 'idt', jwks_uri: 'x', id_token_signing_alg_values_supported: ['ES256'] };
    run(false, { route: 'registration', grantType: undefined, status: 201, body });
    expect(body).toEqual({ id_token: 'idt', jwks_uri: 'x', id_token_signing_alg_values_supported: ['ES256'] });
  });

  it('does not touch token fields in discovery or discovery fields in a token answer', () => {
    const d = { ...discovery(), id_token: 'stays' };
    run(false, { route: 'discovery', grantType: undefined, status: 200, body: d });
    expect(d).toHaveProperty('id_token', 'stays');
    const t = { ...tokenBody(), jwks_uri: 'stays' };
    run(false, { route: 'token', grantType: 'authorization_code', status: 200, body: t });
    expect(t).toHaveProperty('jwks_uri', 'stays');
  });
});

describe('idTokenSettings', () => {
  it('makes the ID token carry the UserInfo claims, not just sub (spec §2.3)', () => {
    expect(idTokenSettings()).toEqual({ conformIdTokenClaims: false });
  });
});

describe('withholdsIdToken', () => {
  const kinds = [
    ['token', 'authorization_code'],
    ['token', 'refresh_token'],
    ['userinfo', undefined],
    ['discovery', undefined],
  ] as const;

  it('with ID tokens on, withholds only a refresh\'s', () => {
    const withheld = withholdsIdToken(true);
    expect(kinds.map(([route, grantType]) => withheld({ route, grantType }))).toEqual([false, true, false, false]);
  });

  it('with ID tokens off, withholds every token answer\'s', () => {
    const withheld = withholdsIdToken(false);
    expect(kinds.map(([route, grantType]) => withheld({ route, grantType }))).toEqual([true, true, false, false]);
  });
});
