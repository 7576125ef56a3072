/**
 * The limits of open registration without HTTP: the metadata caps and the https rule, when
 * they apply, the rate (GCRA) and the rate limiter over the memory adapter (with and without
 * compare-and-set, and two limiters racing on one store).
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { AdapterFactory } from '../../adapters/types.ts';
import {
  HTTPS_ONLY_METADATA, REGISTRATION_LIMITS, REGISTRATION_RATE_MODEL, RegistrationRateLimiter, checkRegistrationLimits,
  checkRegistrationMetadata,
} from '../../lib/policies/registration-limits.ts';
import type { RegistrationRateSettings } from '../../lib/policies/registration-limits.ts';
import { admit } from '../../lib/policies/address-rate.ts';
import type { RateRecord } from '../../lib/policies/address-rate.ts';

const BASE = { client_name: 'Desk Agent', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' };

/** The error oidc-provider would answer for `metadata`, or undefined when accepted. */
function refusal(metadata: Record<string, unknown>): { error: string; error_description: string } | undefined {
  try {
    checkRegistrationMetadata(metadata);
    return undefined;
  } catch (err) {
    const { error, error_description } = err as { error: string; error_description: string };
    return { error, error_description };
  }
}

describe('the metadata caps', () => {
  it('accepts a real registration and values right at each cap', () => {
    expect(refusal(BASE)).toBeUndefined();
    expect(refusal({
      ...BASE,
      client_name: 'é'.repeat(REGISTRATION_LIMITS.clientNameLength),
      redirect_uris: Array.from({ length: REGISTRATION_LIMITS.redirectUris }, (_, i) => `https://app.example/cb/${i}`),
      logo_uri: `https://app.example/${'l'.repeat(REGISTRATION_LIMITS.uriLength - 'https://app.example/'.length)}`,
    })).toBeUndefined();
  });

  it.each([
    ['a client_name over the cap', { ...BASE, client_name: 'x'.repeat(REGISTRATION_LIMITS.clientNameLength + 1) }, /client_name must be at most 100 characters; got 101/],
    ['too many redirect_uris', { ...BASE, redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`) }, /at most 10 redirect_uris may be registered; got 11/],
    ['a redirect URI over the cap', { ...BASE, redirect_uris: [`https://app.example/${'p'.repeat(REGISTRATION_LIMITS.uriLength)}`] }, /each of redirect_uris must be at most 2000 characters/],
    ['a logo_uri over the cap', { ...BASE, logo_uri: `https://app.example/${'p'.repeat(REGISTRATION_LIMITS.uriLength)}` }, /logo_uri must be at most 2000 characters/],
    ['metadata over the size cap', { ...BASE, contacts: Array.from({ length: 400 }, (_, i) => `person-${i}@example.com`) }, /the client metadata must be at most 8192 bytes as JSON; got \d+/],
    // measured as stored: every registered client is stored with every operator scope, which a
    // registration asking for "openid" does not carry yet (~500 bytes more)
    ['metadata under the cap only without the scope it is stored with', { ...BASE, scope: 'openid', contacts: Array.from({ length: 290 }, (_, i) => `person-${String(i).padStart(4, '0')}@example.com`) }, /the client metadata must be at most 8192 bytes as JSON; got \d+/],
  ])('refuses %s as invalid_client_metadata (never invalid_redirect_uri)', (_label, metadata, description) => {
    const refused = refusal(metadata);
    expect(refused?.error).toBe('invalid_client_metadata');
    expect(refused?.error_description).toMatch(description);
  });

  it.each(HTTPS_ONLY_METADATA.map((field) => [field]))('refuses %s over http, or not a URL, and accepts it over https', (field) => {
    expect(refusal({ ...BASE, [field]: 'http://app.example/x' })).toEqual({ error: 'invalid_client_metadata', error_description: `${field} must be an https URL` });
    expect(refusal({ ...BASE, [field]: 'http://127.0.0.1/x' })?.error).toBe('invalid_client_metadata');
    expect(refusal({ ...BASE, [field]: 'not a url' })?.error).toBe('invalid_client_metadata');
    expect(refusal({ ...BASE, [field]: 'https://app.example/x' })).toBeUndefined();
  });

  it('leaves values of the wrong type to the provider', () => {
    expect(refusal({ ...BASE, client_name: 42, redirect_uris: 'https://app.example/cb', logo_uri: 7 })).toBeUndefined();
  });

  it('applies to registrations only, once per client', () => {
    const oversized = { ...BASE, client_name: 'x'.repeat(500) };
    const registration = { oidc: { route: 'registration' } } as never;
    expect(() => checkRegistrationLimits(registration, 'audience', oversized)).toThrow(expect.objectContaining({
      error: 'invalid_client_metadata', error_description: expect.stringMatching(/^client_name must be at most/),
    }));
    // the other extra property: already checked
    expect(() => checkRegistrationLimits(registration, 'org_id', oversized)).not.toThrow();
    // stored, static and metadata-document clients are built outside the registration route
    expect(() => checkRegistrationLimits({ oidc: { route: 'authorization' } } as never, 'audience', oversized)).not.toThrow();
    expect(() => checkRegistrationLimits(undefined, 'audience', oversized)).not.toThrow();
  });
});

describe('the rate (GCRA)', () => {
  const SETTINGS: RegistrationRateSettings = { perIp: 30, windowSeconds: 3600 };
  const INTERVAL = 120_000; // 3600 s / 30

  it('serves a burst of perIp, then refuses with the seconds until the next one', () => {
    let record: RateRecord | undefined;
    for (let i = 0; i < 30; i += 1) {
      const a = admit(record, SETTINGS, 1_000_000);
      if (!a.allowed) throw new Error(`refused at ${i}`);
      record = a.next;
    }
    expect(record).toEqual({ tat: 1_000_000 + 30 * INTERVAL });
    expect(admit(record, SETTINGS, 1_000_000)).toEqual({ allowed: false, retryAfter: 120 });
    expect(admit(record, SETTINGS, 1_000_000 + 60_500)).toEqual({ allowed: false, retryAfter: 60 });
    // one interval later, one more; then refused again
    const later = admit(record, SETTINGS, 1_000_000 + INTERVAL);
    expect(later.allowed).toBe(true);
    if (later.allowed) expect(admit(later.next, SETTINGS, 1_000_000 + INTERVAL).allowed).toBe(false);
  });

  it('keeps a record only while it matters, and a full window later the bucket is full again', () => {
    const first = admit(undefined, SETTINGS, 0);
    expect(first).toEqual({ allowed: true, next: { tat: INTERVAL }, keepFor: 120 });
    const drained = { tat: 30 * INTERVAL };
    expect(admit(drained, SETTINGS, 30 * INTERVAL)).toEqual({ allowed: true, next: { tat: 31 * INTERVAL }, keepFor: 120 });
  });
});

/** A memory adapter without compareAndSet: the read-modify-write path. */
function withoutCompareAndSet(inner: AdapterFactory): AdapterFactory {
  return (model) => {
    const adapter = inner(model);
    return {
      upsert: adapter.upsert.bind(adapter),
      find: adapter.find.bind(adapter),
      findByUid: adapter.findByUid.bind(adapter),
      findByUserCode: adapter.findByUserCode.bind(adapter),
      consume: adapter.consume.bind(adapter),
      destroy: adapter.destroy.bind(adapter),
      revokeByGrantId: adapter.revokeByGrantId.bind(adapter),
    };
  };
}

describe.each([
  ['with compareAndSet', (f: AdapterFactory) => f],
  ['read-modify-write', withoutCompareAndSet],
])('RegistrationRateLimiter over the memory adapter (%s)', (_name, wrap) => {
  const SETTINGS: RegistrationRateSettings = { perIp: 5, windowSeconds: 60 };

  function setup(settings: RegistrationRateSettings | false = SETTINGS) {
    let now = 5_000_000;
    const adapter = createMemoryAdapter();
    const limiter = new RegistrationRateLimiter(wrap(adapter), settings, () => now);
    return { limiter, adapter, advance: (ms: number) => { now += ms; } };
  }

  it('allows perIp from one address, refuses the next with Retry-After, and serves again after the interval', async () => {
    const { limiter, advance } = setup();
    for (let i = 0; i < 5; i += 1) expect(await limiter.attempt('10.0.0.1')).toEqual({ allowed: true });
    expect(await limiter.attempt('10.0.0.1')).toEqual({ allowed: false, retryAfter: 12 });
    // another address has its own budget
    expect(await limiter.attempt('10.0.0.2')).toEqual({ allowed: true });
    advance(12_000);
    expect(await limiter.attempt('10.0.0.1')).toEqual({ allowed: true });
    expect((await limiter.attempt('10.0.0.1')).allowed).toBe(false);
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as IPv4', async () => {
    const { limiter } = setup();
    for (let i = 0; i < 5; i += 1) expect((await limiter.attempt(`2001:db8:1:2::${i + 1}`)).allowed).toBe(true);
    expect((await limiter.attempt('2001:db8:1:2:ffff::9')).allowed).toBe(false);
    expect((await limiter.attempt('2001:db8:1:3::1')).allowed).toBe(true);
    for (let i = 0; i < 5; i += 1) await limiter.attempt('192.0.2.7');
    expect((await limiter.attempt('::ffff:192.0.2.7')).allowed).toBe(false);
  });

  it('counts concurrent attempts one by one: no more than perIp slip through together', async () => {
    const { limiter } = setup();
    const results = await Promise.all(Array.from({ length: 40 }, () => limiter.attempt('10.0.0.1')));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('stores the address hashed, with a TTL, never as written', async () => {
    const { limiter, adapter } = setup();
    await limiter.attempt('10.9.8.7');
    const { createHash } = await import('node:crypto');
    const key = `ip:${createHash('sha256').update('10.9.8.7').digest('base64url')}`;
    expect(await adapter(REGISTRATION_RATE_MODEL).find(key)).toEqual({ tat: 5_000_000 + 12_000 });
    expect(await adapter(REGISTRATION_RATE_MODEL).find('ip:10.9.8.7')).toBeUndefined();
  });

  it('does nothing when off', async () => {
    const { limiter } = setup(false);
    expect(limiter.enabled).toBe(false);
    for (let i = 0; i < 100; i += 1) expect((await limiter.attempt('10.0.0.1')).allowed).toBe(true);
  });
});

describe('two limiters on one store (two instances)', () => {
  it('share one budget: no registration is lost or doubled when they race', async () => {
    const adapter = createMemoryAdapter();
    const a = new RegistrationRateLimiter(adapter, { perIp: 7, windowSeconds: 3600 });
    const b = new RegistrationRateLimiter(adapter, { perIp: 7, windowSeconds: 3600 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).attempt('10.0.0.1')));
    expect(results.filter((r) => r.allowed)).toHaveLength(7);
  });
});
