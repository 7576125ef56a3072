/**
 * lib/policies/refresh.ts without HTTP: who gets a refresh token, rotation, and no
 * `id_token` in a refresh answer.
 */
import { expiresWithSession, issueRefreshToken, noIdTokenOnRefresh, rotateRefreshToken } from '../../lib/policies/refresh.ts';
import type { ProviderAnswer } from '../../lib/policies/provider-answer.ts';

function client(grantTypes: readonly string[]) {
  const asked: string[] = [];
  return {
    asked,
    grantTypeAllowed(type: string) { asked.push(type); return grantTypes.includes(type); },
  };
}

function answer(route: string | undefined, grantType: unknown): ProviderAnswer {
  return { route, grantType, status: 200, body: { access_token: 'at', id_token: 'idt', refresh_token: 'rt' } };
}

describe('issueRefreshToken', () => {
  it('issues one to a client allowed the refresh_token grant', async () => {
    const c = client(['authorization_code', 'refresh_token']);
    expect(await issueRefreshToken(undefined, c)).toBe(true);
    expect(c.asked).toEqual(['refresh_token']);
  });

  it('issues none to a client without it', async () => {
    const c = client(['authorization_code']);
    expect(await issueRefreshToken(undefined, c)).toBe(false);
    expect(c.asked).toEqual(['refresh_token']);
  });
});

it('rotates refresh tokens on every use', () => {
  expect(rotateRefreshToken()).toBe(true);
});

it('does not end refresh tokens with the browser session', async () => {
  expect(await expiresWithSession()).toBe(false);
});

describe('noIdTokenOnRefresh', () => {
  it('removes id_token from a refresh_token grant answer, and nothing else', () => {
    const a = answer('token', 'refresh_token');
    noIdTokenOnRefresh(a);
    expect(a.body).toEqual({ access_token: 'at', refresh_token: 'rt' });
    // what goes on the wire: the answer is serialised as JSON
    expect(JSON.parse(JSON.stringify(a.body))).toStrictEqual({ access_token: 'at', refresh_token: 'rt' });
  });

  it('keeps id_token in an authorization_code answer', () => {
    const a = answer('token', 'authorization_code');
    noIdTokenOnRefresh(a);
    expect(a.body).toEqual({ access_token: 'at', id_token: 'idt', refresh_token: 'rt' });
  });

  it.each([
    ['discovery', 'refresh_token'],
    ['registration', 'refresh_token'],
    [undefined, 'refresh_token'],
    ['token', undefined],
    ['token', ['refresh_token']],
  ])('leaves route %s with grant type %j untouched', (route, grantType) => {
    const a = answer(route, grantType);
    noIdTokenOnRefresh(a);
    expect(a.body).toHaveProperty('id_token', 'idt');
  });
});
