/**
 * Start-up checks: bad options fail at construction with a message that says what to change;
 * production refuses generated keys and cookie secrets.
 */
import { exportJWK, generateKeyPair } from 'jose';

import { ConfigurationError, createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { validateOptions } from '../../lib/config/validate.ts';

const accounts = { authenticate: async () => undefined, findById: async () => undefined };
const quiet = { info() {}, warn() {}, error() {} };
const base: PlatformAuthOptions = { baseUrl: 'http://localhost:3000', accounts, logger: quiet };

async function es256Jwks() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1' }] };
}

async function rejection(options: Partial<PlatformAuthOptions>): Promise<string> {
  try {
    await validateOptions({ ...base, ...options } as PlatformAuthOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigurationError);
    return (err as Error).message;
  }
  throw new Error('expected the options to be refused');
}

describe('baseUrl', () => {
  it.each([
    'learn.example.com', 'ftp://learn.example.com', 'https://learn.example.com/path',
    'https://learn.example.com?x=1', 'https://learn.example.com#f', 'http://learn.example.com', 'https://u:p@learn.example.com',
  ])('refuses %s', async (baseUrl) => {
    expect(await rejection({ baseUrl })).toMatch(/^options\.baseUrl must be an absolute https origin/);
  });

  it('canonicalises a trailing slash away', async () => {
    const resolved = await validateOptions({ ...base, baseUrl: 'https://learn.example.com/' });
    expect(resolved.baseUrl).toBe('https://learn.example.com');
    expect(resolved.issuer).toBe('https://learn.example.com');
  });
});

describe('production', () => {
  it('refuses generated signing keys', async () => {
    const message = await rejection({ baseUrl: 'https://learn.example.com', production: true, cookieKeys: ['x'.repeat(32)] });
    expect(message).toMatch(/options\.jwks is required in production/);
  });

  it('refuses missing cookie keys', async () => {
    const message = await rejection({ baseUrl: 'https://learn.example.com', production: true, jwks: await es256Jwks() });
    expect(message).toMatch(/options\.cookieKeys is required in production/);
  });

  it('refuses http', async () => {
    expect(await rejection({ production: true })).toMatch(/https in production/);
  });

  it('starts with real keys and never enables dev interactions', async () => {
    const warnings: string[] = [];
    const auth = await createPlatformAuth({
      baseUrl: 'https://learn.example.com', accounts, production: true,
      jwks: await es256Jwks(), cookieKeys: ['c'.repeat(40)],
      logger: { ...quiet, warn: (m) => warnings.push(m) },
    });
    expect(warnings).toEqual([]);
    await auth.close();
  });
});

describe('development', () => {
  it('generates keys and warns once about each', async () => {
    const warnings: string[] = [];
    const resolved = await validateOptions({ ...base, logger: { ...quiet, warn: (m) => warnings.push(m) } });
    expect(resolved.generated).toEqual(['jwks', 'cookieKeys']);
    expect(resolved.jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.any(String) });
    const auth = await createPlatformAuth({ ...base, logger: { ...quiet, warn: (m) => warnings.push(m) } });
    expect(warnings.filter((w) => w.includes('options.jwks'))).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('options.cookieKeys'))).toHaveLength(1);
    await auth.close();
  });
});

describe('other options', () => {
  it('refuses non-ES256 keys', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const message = await rejection({ jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'r' }] } });
    expect(message).toMatch(/options\.jwks\.keys\[0\] must be a private EC P-256 key/);
  });

  it('refuses short cookie keys', async () => {
    expect(await rejection({ cookieKeys: ['short'] })).toMatch(/options\.cookieKeys/);
  });

  it('refuses accounts without the two methods', async () => {
    expect(await rejection({ accounts: {} as never })).toMatch(/options\.accounts must be an object with authenticate/);
  });

  it('refuses a member client without a site, and account scopes on an operator client', async () => {
    expect(await rejection({ clients: [{ client_id: 'm', audience: 'member', redirect_uris: ['https://a.example/cb'] }] }))
      .toMatch(/options\.clients\[0\]\.org_id must name the site/);
    expect(await rejection({ clients: [{ client_id: 'o', scope: 'openid account:read', redirect_uris: ['https://a.example/cb'] }] }))
      .toMatch(/"account:read", which operator clients may not hold/);
    expect(await rejection({ clients: [{ client_id: 'o', scope: 'openid teleport', redirect_uris: ['https://a.example/cb'] }] }))
      .toMatch(/not in the scope catalogue/);
  });

  it('refuses unknown or non-positive lifetimes', async () => {
    expect(await rejection({ ttl: { forever: 1 } as never })).toMatch(/options\.ttl\.forever is not a known lifetime/);
    expect(await rejection({ ttl: { accessToken: 0 } })).toMatch(/options\.ttl\.accessToken must be a positive whole number/);
  });
});
