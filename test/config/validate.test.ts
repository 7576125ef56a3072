/**
 * Start-up checks: bad options fail at construction with a message that says what to change;
 * production refuses generated keys and cookie secrets.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { exportJWK, generateKeyPair } from 'jose';

import { ConfigurationError, createPlatformAuth } from '../../lib/index.ts';
import type { PlatformAuthOptions } from '../../lib/index.ts';
import { validateOptions } from '../../lib/config/validate.ts';
import { createCookieKey } from '../../lib/keys/secrets.ts';
import { DEFAULT_TTL } from '../../lib/constants.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';

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

  it('never quotes the password of a baseUrl given with credentials', async () => {
    const message = await rejection({ baseUrl: 'https://admin:hunter2-secret@learn.example.com' });
    expect(message).not.toContain('hunter2-secret');
    expect(message).toContain('https://[redacted]@learn.example.com');
  });

  it.each([
    'https://user:p@ss@learn.example.com', 'https://user:pa#ss@learn.example.com', 'https://user:pa ss@learn.example.com',
  ])('never quotes a password holding @, # or a space: %s', async (baseUrl) => {
    expect(await rejection({ baseUrl })).toBe('options.baseUrl must be an absolute https origin without path, query or fragment (http is allowed for localhost only), e.g. "https://learn.example.com"; got "https://[redacted]@learn.example.com"');
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
    expect(message).toMatch(/options\.jwks is required in production: .*`npx --no-install platform-auth keys --out secrets\.json` makes them$/);
  });

  it('refuses missing cookie keys', async () => {
    const message = await rejection({ baseUrl: 'https://learn.example.com', production: true, jwks: await es256Jwks() });
    expect(message).toMatch(/options\.cookieKeys is required in production: .*`npx --no-install platform-auth keys --out secrets\.json` makes them$/);
  });

  it('refuses the default in-memory store, and takes one passed on purpose', async () => {
    const keys = { jwks: await es256Jwks(), cookieKeys: [createCookieKey()] };
    const message = await rejection({ baseUrl: 'https://learn.example.com', production: true, ...keys });
    expect(message).toMatch(/^options\.adapter is required in production: the default in-memory store loses every token, grant and sign-in on restart and is not shared between instances; pass createRedisAdapter\(/);
    expect(message).toContain('adapter: createMemoryAdapter()');
    const resolved = await validateOptions({ ...base, baseUrl: 'https://learn.example.com', production: true, ...keys, adapter: createMemoryAdapter() });
    expect(resolved.ownsAdapter).toBe(false);
    // outside production the default stays
    expect((await validateOptions({ ...base, ...keys })).ownsAdapter).toBe(true);
  });

  it('refuses http', async () => {
    expect(await rejection({ production: true })).toMatch(/https in production/);
  });

  it('starts with real keys and never enables dev interactions', async () => {
    const warnings: string[] = [];
    const auth = await createPlatformAuth({
      baseUrl: 'https://learn.example.com', accounts, production: true,
      jwks: await es256Jwks(), cookieKeys: [createCookieKey()], adapter: createMemoryAdapter(),
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

  it('refuses two signing keys that share a kid', async () => {
    const [first, second] = [(await es256Jwks()).keys[0]!, (await es256Jwks()).keys[0]!];
    expect(second.kid).toBe(first.kid);
    const message = await rejection({ jwks: { keys: [first, second] } });
    expect(message).toMatch(/options\.jwks\.keys\[1\]\.kid "k1" is used by an earlier key/);
    expect(message).not.toContain(first.d);
    expect(message).not.toContain(second.d);
  });

  it('refuses a signing key whose x and y are not the public key of its d', async () => {
    const [key, other] = [(await es256Jwks()).keys[0]!, (await es256Jwks()).keys[0]!];
    const message = await rejection({ jwks: { keys: [{ ...key, x: other.x, y: other.y }] } });
    expect(message).toMatch(/options\.jwks\.keys\[0\]: "x" and "y" are not the public key of its "d"/);
    expect(message).not.toContain(key.d);
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
      .toMatch(/not in the scope catalogue$/);
  });

  it('names the scope a misspelt one of a client was likely meant to be', async () => {
    expect(await rejection({ clients: [{ client_id: 'o', scope: 'openid course:read', redirect_uris: ['https://a.example/cb'] }] }))
      .toBe('options.clients[0].scope contains "course:read", which is not in the scope catalogue; did you mean "courses:read"?');
  });

  it('refuses unknown or non-positive lifetimes', async () => {
    expect(await rejection({ ttl: { forever: 1 } as never })).toMatch(/options\.ttl\.forever is not a known lifetime/);
    expect(await rejection({ ttl: { toString: 1 } as never })).toMatch(/options\.ttl\.toString is not a known lifetime/);
    expect(await rejection({ ttl: { accessToken: 0 } })).toMatch(/^options\.ttl\.accessToken must be a whole number of seconds from 1 to 86400; got 0\./);
  });
});

describe('registration, metadata documents and member clients', () => {
  const vendor = { client_id: 'v', client_name: 'Vendor', redirect_uris: ['https://v.example/cb'] };

  it('defaults to restricted registration with no vendors and no metadata documents', async () => {
    const resolved = await validateOptions(base);
    expect(resolved.registration.variant).toBe('restricted');
    expect(resolved.registration.vendors.size).toBe(0);
    expect(resolved.clientIdMetadataDocuments.enabled).toBe(false);
    expect(await resolved.betaEnabled('any-site')).toBe(false);
  });

  it('turns metadata documents on for open registration (any host) and for an allowlist', async () => {
    const open = await validateOptions({ ...base, registration: { variant: 'open' } });
    expect(open.clientIdMetadataDocuments).toMatchObject({ enabled: true, allowedHosts: null });
    const listed = await validateOptions({ ...base, clientIdMetadataDocuments: { allowedHosts: ['Tools.Example', 'a.example:8443'] } });
    expect(listed.clientIdMetadataDocuments.enabled).toBe(true);
    expect([...listed.clientIdMetadataDocuments.allowedHosts!]).toEqual(['tools.example', 'a.example:8443']);
  });

  it.each([
    [{ registration: { variant: 'closed' } }, /registration\.variant must be "restricted" \(Variant A\) or "open"/],
    [{ registration: { vendors: [{ clientId: 'missing' }] } }, /vendors\[0\]\.clientId "missing" must name a client in options\.clients/],
    [{ clients: [{ ...vendor, audience: 'member', org_id: 's', scope: 'openid' }], registration: { vendors: [{ clientId: 'v' }] } }, /is a member client; vendor platforms are operator clients/],
    [{ clients: [{ ...vendor, client_name: undefined }], registration: { vendors: [{ clientId: 'v' }] } }, /names must list the client_name values/],
    // names given, of the wrong shape: said so, not that the client has no client_name
    [{ clients: [vendor], registration: { vendors: [{ clientId: 'v', names: 'Vendor' }] } }, /^options\.registration\.vendors\[0\]\.names must be a non-empty array of the client_name values of this platform, e\.g\. \["Acme LMS"\] \(leave it out for the client's client_name\); got "Vendor"$/],
    [{ clients: [vendor], registration: { vendors: [{ clientId: 'v', names: [] }] } }, /^options\.registration\.vendors\[0\]\.names must be a non-empty array.*; got \[\]$/],
    [{ clients: [vendor, { ...vendor, client_id: 'w' }], registration: { vendors: [{ clientId: 'v' }, { clientId: 'w', names: [' VENDOR '] }] } }, /already names the vendor "v"/],
    [{ clientIdMetadataDocuments: { enabled: true } }, /accepted only from allowedHosts; list the hosts or set enabled: false/],
    [{ clientIdMetadataDocuments: { allowedHosts: ['https://tools.example'] } }, /allowedHosts entries must be host names/],
    [{ clientIdMetadataDocuments: { allowedHosts: ['tools.example'], reviewed: 'all' } }, /reviewed must be an array of client_id URLs or a function/],
    [{ clients: [{ ...vendor, client_id: 'https://v.example/client.json' }] }, /must not be an https URL: such client_ids name client ID metadata documents/],
    [{ memberClients: { betaEnabled: 'yes' } }, /betaEnabled must be a boolean, an array of site ids or a function/],
  ])('refuses %j', async (options, message) => {
    expect(await rejection(options as Partial<PlatformAuthOptions>)).toMatch(message);
  });

  it('refuses the test-only document fetch in production', async () => {
    const message = await rejection({
      baseUrl: 'https://learn.example.com', production: true, jwks: await es256Jwks(), cookieKeys: [createCookieKey()], adapter: createMemoryAdapter(),
      clientIdMetadataDocuments: { allowedHosts: ['tools.example'], fetch: async () => new Response('{}') },
    });
    expect(message).toMatch(/fetch is for tests only/);
  });

  it('resolves the beta flag from a list or a function', async () => {
    const list = await validateOptions({ ...base, memberClients: { betaEnabled: ['a'] } });
    expect([await list.betaEnabled('a'), await list.betaEnabled('b')]).toEqual([true, false]);
    const fn = await validateOptions({ ...base, memberClients: { betaEnabled: async (site) => site === 'b' } });
    expect([await fn.betaEnabled('a'), await fn.betaEnabled('b')]).toEqual([false, true]);
  });
});

describe('unknown top-level options', () => {
  it('refuses a misspelt option with a did-you-mean hint instead of ignoring it', async () => {
    expect(await rejection({ cookiekeys: ['x'.repeat(32)] } as Partial<PlatformAuthOptions>))
      .toMatch(/^options\.cookiekeys is not a known option; use one of baseUrl, .*; did you mean "cookieKeys"\?$/);
  });

  it('refuses an unrelated key without a guess', async () => {
    expect(await rejection({ colour: 'blue' } as Partial<PlatformAuthOptions>)).toMatch(/^options\.colour is not a known option; use one of [^;]*$/);
  });
});

describe('signInThrottle and proxyHops', () => {
  it('is on by default, with the defaults of the options table', async () => {
    const resolved = await validateOptions(base);
    expect(resolved.signInThrottle).toEqual({ accountFailures: 5, ipFailures: 50, windowSeconds: 900, maxDelaySeconds: 900 });
    expect(resolved.proxyHops).toBe(1);
  });

  it('takes false to turn it off, and settings one by one', async () => {
    expect((await validateOptions({ ...base, signInThrottle: false })).signInThrottle).toBe(false);
    expect((await validateOptions({ ...base, signInThrottle: { windowSeconds: 2 } })).signInThrottle)
      .toEqual({ accountFailures: 5, ipFailures: 50, windowSeconds: 2, maxDelaySeconds: 900 });
  });

  it('refuses what cannot work, naming the option and the fix', async () => {
    expect(await rejection({ signInThrottle: true as never })).toMatch(/^options\.signInThrottle must be false or an object like/);
    expect(await rejection({ signInThrottle: { accountFailures: 0 } })).toMatch(/^options\.signInThrottle\.accountFailures must be a whole number from 1 to 1000; got 0/);
    expect(await rejection({ signInThrottle: { maxDelaySecond: 5 } as never })).toMatch(/^options\.signInThrottle\.maxDelaySecond is not a known option; .*did you mean "maxDelaySeconds"\?/);
    expect(await rejection({ proxyHops: 0 })).toMatch(/^options\.proxyHops must be a whole number from 1 to 10/);
    expect(await rejection({ memberClients: { maxPerSite: 0 } })).toMatch(/^options\.memberClients\.maxPerSite must be a whole number from 1 to 10000; got 0\. Leave it out for the default, 100/);
  });
});

describe('authorizationRateLimit', () => {
  it('defaults to OPTION_DEFAULTS, takes false and settings one by one', async () => {
    const { perIp, windowSeconds } = OPTION_DEFAULTS.authorizationRateLimit;
    expect((await validateOptions(base)).authorizationRateLimit).toEqual({ perIp: perIp.default, windowSeconds: windowSeconds.default });
    expect((await validateOptions({ ...base, authorizationRateLimit: false })).authorizationRateLimit).toBe(false);
    expect((await validateOptions({ ...base, authorizationRateLimit: { perIp: 5000 } })).authorizationRateLimit).toEqual({ perIp: 5000, windowSeconds: windowSeconds.default });
  });

  it('refuses what cannot work, naming the option and the fix', async () => {
    expect(await rejection({ authorizationRateLimit: true as never })).toMatch(/^options\.authorizationRateLimit must be false or an object like \{ perIp, windowSeconds \}/);
    expect(await rejection({ authorizationRateLimit: { perIp: 0 } })).toMatch(/^options\.authorizationRateLimit\.perIp must be a whole number from 1 to 1000000; got 0\. Leave it out for the default, 600/);
    expect(await rejection({ authorizationRateLimit: { windowSecond: 60 } as never })).toMatch(/^options\.authorizationRateLimit\.windowSecond is not a known option; .*did you mean "windowSeconds"\?/);
  });
});

describe('refreshTokenRateLimit', () => {
  it('defaults to OPTION_DEFAULTS, takes false and settings one by one', async () => {
    const { perGrant, windowSeconds } = OPTION_DEFAULTS.refreshTokenRateLimit;
    expect((await validateOptions(base)).refreshTokenRateLimit).toEqual({ perGrant: perGrant.default, windowSeconds: windowSeconds.default });
    expect((await validateOptions({ ...base, refreshTokenRateLimit: false })).refreshTokenRateLimit).toBe(false);
    expect((await validateOptions({ ...base, refreshTokenRateLimit: { perGrant: 600 } })).refreshTokenRateLimit).toEqual({ perGrant: 600, windowSeconds: windowSeconds.default });
  });

  it('refuses what cannot work, naming the option and the fix', async () => {
    expect(await rejection({ refreshTokenRateLimit: true as never })).toMatch(/^options\.refreshTokenRateLimit must be false or an object like \{ perGrant, windowSeconds \}/);
    expect(await rejection({ refreshTokenRateLimit: { perGrant: 0 } })).toMatch(/^options\.refreshTokenRateLimit\.perGrant must be a whole number from 1 to 1000000; got 0\. Leave it out for the default, 60/);
    expect(await rejection({ refreshTokenRateLimit: { perIp: 60 } as never })).toMatch(/^options\.refreshTokenRateLimit\.perIp is not a known option; use one of perGrant, windowSeconds/);
  });

  it('perGrant left out allows two refreshes per access token, however short; given below that, refused', async () => {
    // one refresh every 60 s against access tokens of 60 s: two per lifetime needs 120 an hour
    expect((await validateOptions({ ...base, ttl: { accessToken: 60 } })).refreshTokenRateLimit).toEqual({ perGrant: 120, windowSeconds: 3600 });
    expect((await validateOptions({ ...base, ttl: { accessToken: 2 }, refreshTokenRateLimit: { windowSeconds: 60 } })).refreshTokenRateLimit).toEqual({ perGrant: 60, windowSeconds: 60 });
    expect((await validateOptions({ ...base, ttl: { accessToken: 120 } })).refreshTokenRateLimit).toEqual({ perGrant: 60, windowSeconds: 3600 });
    expect(await rejection({ ttl: { accessToken: 60 }, refreshTokenRateLimit: { perGrant: 100 } })).toBe(
      'options.refreshTokenRateLimit lets a grant refresh once every 36 s once its burst is spent, but options.ttl.accessToken is 60 s: '
      + 'a client refreshing each access token a little early would be refused. Raise options.refreshTokenRateLimit.perGrant to at least 120 '
      + '(for windowSeconds 3600), leave it out for that, or set options.refreshTokenRateLimit to false',
    );
    expect((await validateOptions({ ...base, ttl: { accessToken: 60 }, refreshTokenRateLimit: { perGrant: 120 } })).refreshTokenRateLimit).toEqual({ perGrant: 120, windowSeconds: 3600 });
    expect((await validateOptions({ ...base, ttl: { accessToken: 60 }, refreshTokenRateLimit: false })).refreshTokenRateLimit).toBe(false);
  });
});

describe('misspelt keys in nested options', () => {
  const vendor = { client_id: 'v', client_name: 'Vendor', client_secret: 's'.repeat(32), redirect_uris: ['https://v.example/cb'] };

  it.each([
    [{ registration: { varient: 'open' } }, /^options\.registration\.varient is not a known option; use one of variant, vendors, rateLimit, unusedClientExpiry; did you mean "variant"\?$/],
    [{ clients: [vendor], registration: { vendors: [{ clientId: 'v', name: ['Vendor'] }] } }, /^options\.registration\.vendors\[0\]\.name is not a known option; use one of clientId, names; did you mean "names"\?$/],
    [{ registration: { vendors: ['v'] } }, /^options\.registration\.vendors\[0\] must be an object like \{ clientId, names\? \}; got "v"$/],
    [{ clientIdMetadataDocuments: { allowedHost: ['tools.example'] } }, /^options\.clientIdMetadataDocuments\.allowedHost is not a known option; .*did you mean "allowedHosts"\?$/],
    [{ memberClients: { betaEnable: true } }, /^options\.memberClients\.betaEnable is not a known option; use one of betaEnabled, maxPerSite; did you mean "betaEnabled"\?$/],
  ])('refuses %j', async (options, message) => {
    expect(await rejection(options as Partial<PlatformAuthOptions>)).toMatch(message);
  });

  it.each([
    // read as left out, `audiance` would make this member client an operator client
    [{ client_id: 'c', audiance: 'member', org_id: 's1' }, /^options\.clients\[0\]\.audiance is not client metadata .* so it would be ignored; did you mean "audience"\?$/],
    [{ client_id: 'c', audience: 'member', orgId: 's1' }, /^options\.clients\[0\]\.orgId is not client metadata .*; did you mean "org_id"\?$/],
    [{ client_id: 'c', audience: 'member', 'org-id': 's1' }, /^options\.clients\[0\]\.org-id is not client metadata .*; did you mean "org_id"\?$/],
  ])('refuses the near miss of a client property of the library before reading the client: %j', async (client, message) => {
    expect(await rejection({ clients: [client as never] })).toMatch(message);
  });
});

describe('logger and memberData', () => {
  it.each([
    [{}, /^options\.logger\.info must be a function; got undefined\. options\.logger must be an object with info, warn and error methods/],
    [{ info() {}, warn() {} }, /^options\.logger\.error must be a function; got undefined/],
    ['console', /^options\.logger must be an object with info, warn and error methods .*; got "console"$/],
    [42, /^options\.logger must be an object .*; got 42$/],
  ])('refuses the logger %j', async (logger, message) => {
    expect(await rejection({ logger: logger as never })).toMatch(message);
  });

  it('takes console, and any object with the three methods', async () => {
    expect((await validateOptions({ ...base, logger: undefined })).logger).toBe(console);
    // null has always read as left out
    expect((await validateOptions({ ...base, logger: null as never })).logger).toBe(console);
    class Custom { info() {} warn() {} error() {} }
    const custom = new Custom();
    expect((await validateOptions({ ...base, logger: custom })).logger).toBe(custom);
  });

  const member = {
    findMember: async () => undefined,
    listEnrolments: async () => ({ items: [], totalCount: 0 }),
    findLastWatchedLectures: async () => [],
    listOrders: async () => ({ items: [], totalCount: 0 }),
    listEventRegistrations: async () => ({ items: [], totalCount: 0 }),
  };

  it.each([
    [{}, /^options\.memberData\.findMember must be a function; got undefined\. options\.memberData must be a MemberDataSource with the methods findMember, listEnrolments, findLastWatchedLectures, listOrders, listEventRegistrations/],
    [{ ...member, listOrders: undefined }, /^options\.memberData\.listOrders must be a function; got undefined/],
    [true, /^options\.memberData must be a MemberDataSource .*; got true$/],
    [{ ...member, catalogue: { searchCourses: async () => ({ items: [], totalCount: 0 }) } }, /^options\.memberData\.catalogue\.findCourseOutline must be a function; got undefined\. options\.memberData\.catalogue must be a PublicCatalogueSource/],
  ])('refuses the member data %j', async (memberData, message) => {
    expect(await rejection({ memberData: memberData as never })).toMatch(message);
  });

  it('takes a source with every method, with or without a catalogue; null reads as left out', async () => {
    expect((await validateOptions({ ...base, memberData: null as never })).memberData).toBeUndefined();
    expect((await validateOptions({ ...base, memberData: member })).memberData).toBe(member);
    const catalogue = { searchCourses: async () => ({ items: [], totalCount: 0 }), findCourseOutline: async () => undefined };
    expect((await validateOptions({ ...base, memberData: { ...member, catalogue } })).memberData?.catalogue).toBe(catalogue);
  });
});

describe('baseUrl as a URL object', () => {
  it('asks for a string, not for a different origin', async () => {
    expect(await rejection({ baseUrl: new URL('https://learn.example.com') as never }))
      .toBe('options.baseUrl must be a string, not a URL object; pass "https://learn.example.com" (its origin)');
  });
});

describe('secrets in start-up errors', () => {
  it('a single client given without [ ] is refused without quoting its client_secret', async () => {
    const secret = 'static-client-secret-value-0123456789abcdef';
    const message = await rejection({ clients: { client_id: 'svc', client_secret: secret } as unknown as PlatformAuthOptions['clients'] });
    expect(message).toMatch(/^options\.clients must be an array of client metadata objects/);
    expect(message).not.toContain(secret);
    expect(message).toContain('"client_id":"svc"');
  });

  it.each([
    ['the clients as JSON text (an environment variable not parsed)', (c: object) => JSON.stringify([c]), /^options\.clients must be an array of client metadata objects/],
    ['a client as JSON text', (c: object) => [JSON.stringify(c)], /^options\.clients\[0\] must be a client metadata object/],
  ])('%s is refused without quoting its client_secret', async (_label, given, refusal) => {
    const secret = 'static-client-secret-value-0123456789abcdef';
    const message = await rejection({ clients: given({ client_id: 'svc', client_secret: secret }) as unknown as PlatformAuthOptions['clients'] });
    expect(message).toMatch(refusal);
    expect(message).not.toContain(secret);
  });
});

describe('introspectionClients', () => {
  const spa = { client_id: 'spa', token_endpoint_auth_method: 'none' as const, redirect_uris: ['http://127.0.0.1/cb'] };
  const reporting = { client_id: 'reporting', client_secret: 'reporting-secret-0123456789abcdefghij', redirect_uris: ['https://r.example/cb'] };

  it('takes confidential clients of options.clients', async () => {
    const resolved = await validateOptions({ ...base, clients: [spa, reporting], introspectionClients: ['reporting'] });
    expect(resolved.introspectionClients).toEqual(['reporting']);
  });

  it('refuses a public client: anyone knowing its client_id would introspect every token without a secret', async () => {
    expect(await rejection({ clients: [spa, reporting], introspectionClients: ['spa'] }))
      .toMatch(/^options\.introspectionClients\[0\] names the public client "spa" \(token_endpoint_auth_method "none"\): anyone who knows its client_id could introspect every token/);
  });

  it('refuses an id that names no client, which would never match, with a did-you-mean', async () => {
    expect(await rejection({ clients: [spa, reporting], introspectionClients: ['reportng'] }))
      .toMatch(/^options\.introspectionClients\[0\] is "reportng", which names no client of options\.clients.*; did you mean "reporting"\?$/);
  });
});

describe('a static client\'s scope', () => {
  const client = { client_id: 'svc', client_secret: 'svc-secret-0123456789abcdefghijklmn', redirect_uris: ['https://svc.example/cb'] };

  it.each([[['openid', 'courses:read']], [5], [null]])('refuses %p, which was read as every scope of the audience', async (scope) => {
    expect(await rejection({ clients: [{ ...client, scope } as never] }))
      .toMatch(/^options\.clients\[0\]\.scope must be a string of space-separated scope names, e\.g\. "openid courses:read"/);
  });

  it('takes a string, and gives a client without one its audience\'s default', async () => {
    const resolved = await validateOptions({ ...base, clients: [{ ...client, scope: 'openid courses:read' }, { ...client, client_id: 'all' }] });
    expect(resolved.clients[0]!.scope).toBe('openid courses:read');
    expect(resolved.clients[1]!.scope!.split(' ')).toContain('courses:write');
  });
});

describe('ttl: tokens end with their grant', () => {
  it.each([
    [{ grant: 600 }, 'options.ttl.accessToken (3600 s) is longer than options.ttl.grant (600 s)'],
    [{ refreshToken: 30 * 86_400 }, 'options.ttl.refreshToken (2592000 s) is longer than options.ttl.grant (1209600 s)'],
  ])('refuses %p: the token would stop working before its expires_in said', async (ttl, words) => {
    expect(await rejection({ ttl })).toBe(`${words}: tokens end with their grant, so it would stop working early; raise ttl.grant or lower ttl.${words.slice('options.ttl.'.length).split(' ')[0]}`);
  });

  it('takes tokens as long as the grant', async () => {
    const resolved = await validateOptions({ ...base, ttl: { refreshToken: 30 * 86_400, grant: 30 * 86_400, accessToken: 86_400 } });
    expect(resolved.ttl.refreshToken).toBe(30 * 86_400);
    const day = await validateOptions({ ...base, ttl: { refreshToken: 86_400, grant: 86_400, accessToken: 86_400 } });
    expect(day.ttl.accessToken).toBe(day.ttl.grant);
  });
});

describe('ttl: each lifetime has an upper bound', () => {
  const YEAR = 365 * 86_400;
  const BOUNDS = { accessToken: 86_400, refreshToken: YEAR, authorizationCode: 600, interaction: 86_400, session: YEAR, grant: YEAR } as const;
  const fix = (name: keyof typeof BOUNDS) => `Leave it out for the default, ${DEFAULT_TTL[name]}`;

  it('keeps every default within its bounds, and the README table prints them', () => {
    for (const [name, max] of Object.entries(BOUNDS) as [keyof typeof BOUNDS, number][]) {
      expect(OPTION_DEFAULTS.ttl[name]).toEqual({ min: 1, max, default: DEFAULT_TTL[name], unit: 'seconds' });
    }
  });

  it('takes each lifetime at its bound (grant raised to cover the tokens)', async () => {
    const resolved = await validateOptions({ ...base, ttl: { ...BOUNDS } });
    expect(resolved.ttl).toEqual(BOUNDS);
  });

  it.each([
    ['authorizationCode', 601], ['accessToken', 86_401], ['interaction', 86_401],
    ['refreshToken', YEAR + 1], ['session', YEAR + 1], ['grant', YEAR + 1], ['accessToken', 9_000_000_000_000],
  ] as const)('refuses %s: %p, above its bound', async (name, seconds) => {
    expect(await rejection({ ttl: { [name]: seconds, grant: name === 'grant' ? seconds : YEAR } }))
      .toBe(`options.ttl.${name} must be a whole number of seconds from 1 to ${BOUNDS[name]}; got ${seconds}. ${fix(name)}`);
  });

  it.each([
    ['authorizationCode', 60_000, 60], ['accessToken', 3_600_000, 3600], ['interaction', 3_600_000, 3600],
    ['refreshToken', 1_209_600_000, 1_209_600], ['session', 1_209_600_000, 1_209_600], ['grant', 1_209_600_000, 1_209_600],
  ] as const)('refuses %s: %p, written in milliseconds, saying what to write', async (name, ms, seconds) => {
    expect(await rejection({ ttl: { [name]: ms } }))
      .toBe(`options.ttl.${name} must be a whole number of seconds from 1 to ${BOUNDS[name]}; got ${ms}; it counts seconds, not milliseconds: write ${seconds}. ${fix(name)}`);
  });

  it('refuses a lifetime that is not a whole number, without the milliseconds hint', async () => {
    expect(await rejection({ ttl: { accessToken: 2.5 } })).toBe(`options.ttl.accessToken must be a whole number of seconds from 1 to 86400; got 2.5. ${fix('accessToken')}`);
    expect(await rejection({ ttl: { accessToken: '3600' as never } })).toBe(`options.ttl.accessToken must be a whole number of seconds from 1 to 86400; got "3600". ${fix('accessToken')}`);
  });
});

describe('clientIdMetadataDocuments.reviewed', () => {
  it.each(['tools.example', 'http://tools.example/client.json', 'Tools'])('refuses %p, which no document client_id can be', async (entry) => {
    expect(await rejection({ clientIdMetadataDocuments: { allowedHosts: ['tools.example'], reviewed: [entry] } }))
      .toMatch(/^options\.clientIdMetadataDocuments\.reviewed\[0\] must be the client_id of a document, its https URL/);
  });

  it('takes https client_id URLs', async () => {
    const resolved = await validateOptions({ ...base, clientIdMetadataDocuments: { allowedHosts: ['tools.example'], reviewed: ['https://tools.example/client.json'] } });
    expect(await resolved.clientIdMetadataDocuments.isReviewed('https://tools.example/client.json')).toBe(true);
  });
});

describe('clientIdMetadataDocuments.allowedHosts: each host by its full name', () => {
  const at = 'options.clientIdMetadataDocuments.allowedHosts';
  const listEach = 'list each host by its full name, e.g. "app.example.com", "tools.example.com"';
  const hosts = (allowedHosts: unknown[]) => ({ clientIdMetadataDocuments: { allowedHosts: allowedHosts as string[] } });

  it.each(['*.example.com', '*', 'app.*.example.com', '*.example.com:8443'])('refuses the wildcard %p, which no host would match', async (host) => {
    expect(await rejection(hosts([host]))).toBe(`${at}: ${JSON.stringify(host)} is a wildcard, and wildcards are not supported: ${listEach}`);
  });

  it.each(['.example.com', 'app.example.com.', 'example..com', 'app.example.com.:8443'])('refuses %p, which has an empty label', async (host) => {
    expect(await rejection(hosts([host]))).toBe(`${at}: ${JSON.stringify(host)} has an empty label (a leading, trailing or doubled dot), so no client_id's host would ever match it; a leading dot does not mean "and its subdomains": wildcards are not supported, ${listEach}`);
  });

  it.each(['-bad-.example.com', '-app.example.com', 'app.example-.com', 'app.example.com-'])('refuses %p, which has a label starting or ending with "-"', async (host) => {
    expect(await rejection(hosts([host]))).toBe(`${at}: ${JSON.stringify(host)} has a label that starts or ends with "-", which a host name cannot (RFC 1123 §2.1), so it would never match; ${listEach}`);
  });

  it('refuses an entry that is not a string with a ConfigurationError, whatever the object', async () => {
    const form = `${at} entries must be host names, optionally with a port ("app.example.com", "app.example.com:8443")`;
    expect(await rejection(hosts([Object.create(null)]))).toBe(`${form}; got {}`);
    expect(await rejection(hosts([{ toString() { throw new Error('no'); } }]))).toBe(`${form}; got {}`);
    expect(await rejection(hosts([42]))).toBe(`${form}; got 42`);
    expect(await rejection(hosts([null]))).toBe(`${form}; got null`);
  });

  it('keeps full host names, IDNA names, hyphens inside labels and public addresses', async () => {
    const allowedHosts = ['app.example.com', 'xn--bcher-kva.example', 'my-app.example.com:8443', '8.8.8.8', '[2001:4860:4860::8888]'];
    const resolved = await validateOptions({ ...base, ...hosts(allowedHosts) });
    expect([...resolved.clientIdMetadataDocuments.allowedHosts!]).toEqual(allowedHosts);
  });
});

it('takes a metadata-document host with the default port :443 (documents are fetched over https)', async () => {
  const resolved = await validateOptions({ ...base, clientIdMetadataDocuments: { allowedHosts: ['A.example:443', 'b.example:8443'] } });
  expect([...resolved.clientIdMetadataDocuments.allowedHosts!]).toEqual(['a.example', 'b.example:8443']);
});
