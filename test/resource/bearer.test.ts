/**
 * The bearer core: strict header syntax, the challenge header, and the refusals UserInfo
 * shows for tokens that are malformed, unknown, expired or bound to another origin.
 */
import { InvalidTokenError, extractBearerToken } from '../../lib/index.ts';
import { InsufficientScopeError } from '../../lib/errors.ts';
import { quoteParam } from '../../lib/http/error-response.ts';
import { buildChallenge } from '../../lib/resource/challenge.ts';
import { MEMBER, STUDENT, obtainTokens } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

describe('extractBearerToken', () => {
  it('accepts the Bearer scheme case-insensitively', () => {
    expect(extractBearerToken('Bearer abc.DEF-_~+/==')).toBe('abc.DEF-_~+/==');
    expect(extractBearerToken('bearer abc')).toBe('abc');
    expect(extractBearerToken('BEARER abc')).toBe('abc');
    expect(extractBearerToken(undefined)).toBeUndefined();
  });

  it.each(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a=b', 'Bearer "abc"', 'Basic abc', 'Token abc', 'Bearerabc'])('refuses %j', (header) => {
    expect(() => extractBearerToken(header)).toThrow(InvalidTokenError);
  });
});

describe('challenge', () => {
  it('escapes quoted-string values', () => {
    expect(quoteParam('a "quoted" \\ value')).toBe('"a \\"quoted\\" \\\\ value"');
    expect(quoteParam('line\r\nbreak')).toBe('"linebreak"');
  });

  it('names error, description, scope and resource_metadata', () => {
    const header = buildChallenge(new InsufficientScopeError('account:read'), 'https://x.example/.well-known/oauth-protected-resource');
    expect(header).toBe('Bearer error="insufficient_scope", error_description="the request requires the account:read scope", scope="account:read", resource_metadata="https://x.example/.well-known/oauth-protected-resource"');
  });
});

describe('userinfo refusals', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.stop());

  const userinfo = (authorization?: string) => fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: authorization ? { authorization } : {} });

  async function expectInvalidToken(res: Response) {
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_token');
    const header = res.headers.get('www-authenticate')!;
    expect(header).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/);
    expect(header).toContain(`resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
  }

  /** RFC 6750 §3.1: a request that sent no credentials this server takes gets a challenge without an error code. */
  async function expectChallenge(res: Response) {
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_token');
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
  }

  it('refuses a malformed or unknown token with invalid_token', async () => {
    await expectInvalidToken(await userinfo('Bearer not a token'));
    await expectInvalidToken(await userinfo(`Bearer ${'x'.repeat(43)}`));
  });

  it('challenges a request without credentials, or with another scheme, without an error code (RFC 6750 §3.1)', async () => {
    await expectChallenge(await userinfo());
    await expectChallenge(await userinfo('Basic dXNlcjpwYXNz'));
  });

  it('refuses a token bound to another origin and an expired one', async () => {
    const { provider } = app.auth;
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
    const original = await provider.AccessToken.find(tokens.access_token);
    expect(original).toBeDefined();

    const client = await provider.Client.find(MEMBER.clientId);
    const foreign = new provider.AccessToken({
      accountId: 'acc-student', client: client!, grantId: original!.grantId!, scope: 'openid account:read', gty: 'authorization_code',
    });
    foreign.aud = 'https://other.example';
    await expectInvalidToken(await userinfo(`Bearer ${await foreign.save()}`));

    const unbound = new provider.AccessToken({
      accountId: 'acc-student', client: client!, grantId: original!.grantId!, scope: 'openid account:read', gty: 'authorization_code',
    });
    await expectInvalidToken(await userinfo(`Bearer ${await unbound.save()}`));

    const expired = new provider.AccessToken({
      accountId: 'acc-student', client: client!, grantId: original!.grantId!, scope: 'openid account:read', gty: 'authorization_code', expiresIn: 3,
    });
    expired.aud = app.baseUrl;
    const value = await expired.save();
    // exp is whole seconds: a token of 3 s lives at least 2 s, time for the first request on a busy machine
    expect((await userinfo(`Bearer ${value}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3100));
    await expectInvalidToken(await userinfo(`Bearer ${value}`));
  });

  it('answers 403 insufficient_scope for a token without openid', async () => {
    const tokens = await obtainTokens(app.baseUrl, MEMBER, { scope: 'account:read' }, STUDENT);
    const res = await userinfo(`Bearer ${tokens.access_token}`);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="openid"');
  });
});
