/**
 * The whole Authorization Code + PKCE flow with openid-client as the client, through the
 * real sign-in and consent pages; ID token checked with jose against jwks_uri.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';

import { Browser, signIn } from '../support/browser.ts';
import { MEMBER, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

let app: RunningApp;
let config: oidc.Configuration;

beforeAll(async () => {
  app = await startApp();
  config = await oidc.discovery(new URL(app.baseUrl), MEMBER.clientId, { token_endpoint_auth_method: 'none' }, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
});
afterAll(() => app.stop());

async function runFlow(resource: string | undefined) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const params: Record<string, string> = {
    redirect_uri: MEMBER.redirectUri,
    scope: 'openid profile email account:read',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  };
  if (resource) params.resource = resource;
  const url = oidc.buildAuthorizationUrl(config, params);
  const redirect = await signIn(new Browser(app.baseUrl), url.href, STUDENT);
  const callback = new URL(redirect);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce,
  }, resource ? { resource } : undefined);
  return { tokens, callback, state, nonce };
}

describe('authorization code flow with openid-client', () => {
  let flow: Awaited<ReturnType<typeof runFlow>>;
  beforeAll(async () => {
    flow = await runFlow(app.baseUrl);
  });

  it('returns state unchanged and iss equal to the issuer (RFC 9207)', () => {
    expect(flow.callback.searchParams.get('state')).toBe(flow.state);
    expect(flow.callback.searchParams.get('iss')).toBe(app.baseUrl);
  });

  it('answers with access, refresh and ID tokens and the granted scope', () => {
    const { tokens } = flow;
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.expires_in).toBeGreaterThan(0);
    expect(tokens.scope?.split(' ').sort()).toEqual(['account:read', 'email', 'openid', 'profile']);
    expect(tokens.id_token).toEqual(expect.any(String));
  });

  it('signs the ID token with ES256 under a key of jwks_uri, with the claims of UserInfo', async () => {
    const discovery = await (await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).json();
    const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const idToken = flow.tokens.id_token!;
    const header = decodeProtectedHeader(idToken);
    expect(header.alg).toBe('ES256');
    const keys = (await (await fetch(discovery.jwks_uri)).json()).keys as { kid: string; d?: string }[];
    expect(keys.map((k) => k.kid)).toContain(header.kid);
    expect(keys.every((k) => k.d === undefined)).toBe(true);

    const { payload } = await jwtVerify(idToken, jwks, {
      issuer: app.baseUrl, audience: MEMBER.clientId, algorithms: ['ES256'],
    });
    expect(payload.nonce).toBe(flow.nonce);
    expect(payload.exp! - payload.iat!).toBe(600);

    const userinfo = await oidc.fetchUserInfo(config, flow.tokens.access_token, payload.sub!);
    expect(userinfo).toEqual({
      sub: 'acc-student', email: 'student@example.com', name: 'Sam Student', org_id: 'demo-school', roles: ['student'],
    });
    for (const claim of ['sub', 'email', 'name', 'org_id', 'roles'] as const) {
      expect(payload[claim]).toEqual(userinfo[claim]);
    }
  });

  it('introspects the token as active and bound to this origin', async () => {
    const result = await oidc.tokenIntrospection(config, flow.tokens.access_token);
    expect(result.active).toBe(true);
    expect(result.aud).toBe(app.baseUrl);
    expect(result.client_id).toBe(MEMBER.clientId);
    expect(result.sub).toBe('acc-student');
  });

  it('refreshes without an ID token, then revocation kills the new access token', async () => {
    const refreshed = await oidc.refreshTokenGrant(config, flow.tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(flow.tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(flow.tokens.refresh_token);
    expect(refreshed.id_token).toBeUndefined();
    expect(refreshed.scope?.split(' ').sort()).toEqual(['account:read', 'email', 'openid', 'profile']);

    await oidc.tokenRevocation(config, refreshed.access_token);
    const introspected = await oidc.tokenIntrospection(config, refreshed.access_token);
    expect(introspected.active).toBe(false);

    const res = await fetch(`${app.baseUrl}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('invalid_token');
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(challenge).toContain(`resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource"`);
  });

  it('binds the token to this origin also when the client sends no resource', async () => {
    const { tokens } = await runFlow(undefined);
    const result = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(result.aud).toBe(app.baseUrl);
    const info = await oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck);
    expect(info.org_id).toBe('demo-school');
  });

  it('treats the resource with a trailing slash as the same resource', async () => {
    const { tokens } = await runFlow(`${app.baseUrl}/`);
    const result = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(result.aud).toBe(app.baseUrl);
  });
});
