/**
 * lib/constants.ts: the loopback rules (RFC 8252 §7.3) and the protocol facts.
 */
import { DEFAULT_TTL, isLoopbackHost, isLoopbackUri, LOOPBACK_HOSTS, PROTOCOL } from '../lib/constants.ts';

describe('isLoopbackHost', () => {
  it.each(['localhost', '127.0.0.1', '[::1]'])('is true for %s', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['127.0.0.2', '::1', 'LOCALHOST', 'localhost.', 'app.localhost', '0.0.0.0', 'example.com', ''])('is false for %s', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });

  it('has exactly three hosts', () => {
    expect([...LOOPBACK_HOSTS].sort()).toEqual(['127.0.0.1', '[::1]', 'localhost']);
  });
});

describe('isLoopbackUri', () => {
  it.each([
    'http://127.0.0.1/cb',
    'http://127.0.0.1:49152/cb',
    'http://[::1]:8080/cb',
    'http://localhost/cb',
    'http://LOCALHOST:3000/cb',
    'HTTP://localhost/cb',
    'http://[0:0:0:0:0:0:0:1]/cb',
  ])('is true for %s', (uri) => {
    expect(isLoopbackUri(uri)).toBe(true);
  });

  it.each([
    ['https on 127.0.0.1', 'https://127.0.0.1/cb'],
    ['https on localhost', 'https://localhost:3000/cb'],
    ['https on [::1]', 'https://[::1]/cb'],
    ['127.0.0.2', 'http://127.0.0.2/cb'],
    ['a public host', 'http://app.example/cb'],
    ['a subdomain of localhost', 'http://app.localhost/cb'],
    ['loopback only in userinfo', 'http://localhost@app.example/cb'],
    ['a custom scheme', 'com.example.app://localhost/cb'],
    ['a relative URI', '/cb'],
    ['garbage', 'not a url'],
  ])('is false for %s', (_label, uri) => {
    expect(isLoopbackUri(uri)).toBe(false);
  });
});

describe('PROTOCOL', () => {
  it('fixes the code flow with PKCE S256, ES256 ID tokens of ten minutes', () => {
    expect(PROTOCOL).toEqual({
      responseTypes: ['code'],
      responseModes: ['form_post', 'fragment', 'query'],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethods: ['none', 'client_secret_post'],
      defaultTokenEndpointAuthMethod: 'client_secret_post',
      codeChallengeMethods: ['S256'],
      idTokenSigningAlg: 'ES256',
      idTokenLifetime: 600,
    });
  });

  it('offers its default auth method', () => {
    expect(PROTOCOL.tokenEndpointAuthMethods).toContain(PROTOCOL.defaultTokenEndpointAuthMethod);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(PROTOCOL)).toBe(true);
    expect(() => { (PROTOCOL as { idTokenLifetime: number }).idTokenLifetime = 1; }).toThrow(TypeError);
    expect(PROTOCOL.idTokenLifetime).toBe(600);
  });
});

describe('DEFAULT_TTL', () => {
  it('is frozen, with positive lifetimes', () => {
    expect(Object.isFrozen(DEFAULT_TTL)).toBe(true);
    for (const seconds of Object.values(DEFAULT_TTL)) expect(seconds).toBeGreaterThan(0);
    expect(DEFAULT_TTL.authorizationCode).toBeLessThanOrEqual(600);
  });
});
