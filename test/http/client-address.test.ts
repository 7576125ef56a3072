/**
 * The client's address for the limits counted by it (lib/http/client-address.ts), without
 * HTTP: as `options.proxy` and `options.proxyHops` say, and the one warning per instance when
 * proxy headers arrive without `proxy`, its value cut and escaped (the e2e side is
 * test/e2e/proxy-headers.test.ts).
 */
import { createClientAddresses } from '../../lib/http/client-address.ts';
import type { AddressedRequest } from '../../lib/http/client-address.ts';

function request(remoteAddress: string | undefined, headers: Record<string, string> = {}): AddressedRequest {
  return { req: { socket: { remoteAddress } }, get: (field) => headers[field.toLowerCase()] ?? '' };
}

function setup(proxy: boolean, proxyHops = 1) {
  const warnings: string[] = [];
  return { warnings, addresses: createClientAddresses({ proxy, proxyHops, logger: { warn: (m) => warnings.push(m) } }) };
}

describe('client addresses for limits', () => {
  it('without proxy, the TCP peer whatever X-Forwarded-For says; one warning for the instance, whichever limit', () => {
    const { warnings, addresses } = setup(false);
    expect(addresses.of(request('::ffff:10.0.0.5', { 'x-forwarded-for': '1.1.1.1' }), 'the sign-in throttle')).toBe('10.0.0.5');
    expect(addresses.of(request('10.0.0.5', { 'x-forwarded-for': '2.2.2.2' }), 'the open-registration rate limit')).toBe('10.0.0.5');
    expect(addresses.of(request('10.0.0.5', { forwarded: 'for=3.3.3.3' }), 'the metadata-document fetch budget')).toBe('10.0.0.5');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^platform-auth: a request with X-Forwarded-For "1\.1\.1\.1" reached the sign-in throttle, but options\.proxy is off/);
    expect(warnings[0]).toContain('(10.0.0.5)');
    expect(warnings[0]).toContain('set options.proxy: true and options.proxyHops');
  });

  it('no warning for a request without the headers, and one for the first that has them', () => {
    const { warnings, addresses } = setup(false);
    for (let i = 0; i < 5; i += 1) addresses.of(request('10.0.0.5'), 'the sign-in throttle');
    // read for no limit: the address, never a warning
    expect(addresses.read(request('10.0.0.5', { 'x-forwarded-for': '1.1.1.1' }))).toBe('10.0.0.5');
    expect(warnings).toEqual([]);
    addresses.of(request(undefined, { forwarded: 'for=192.0.2.60' }), 'the sign-in throttle');
    expect(warnings).toEqual([expect.stringContaining('Forwarded "for=192.0.2.60" reached the sign-in throttle')]);
    expect(warnings[0]).toContain('(unknown)');
    expect(warnings[0]).toContain('The library reads X-Forwarded-For, not Forwarded');
  });

  it('with proxy, the entry proxyHops from the right, and never a warning', () => {
    const { warnings, addresses } = setup(true, 2);
    expect(addresses.of(request('10.0.0.5', { 'x-forwarded-for': '9.9.9.9, 203.0.113.7, 10.0.0.2' }), 'the sign-in throttle')).toBe('203.0.113.7');
    addresses.of(request('10.0.0.5', { forwarded: 'for=3.3.3.3' }), 'the sign-in throttle');
    expect(warnings).toEqual([]);
  });

  it('the header\'s value is the request\'s: cut, its control characters escaped', () => {
    const { warnings, addresses } = setup(false);
    addresses.of(request('10.0.0.5', { 'x-forwarded-for': `1.1.1.1\r\nplatform-auth: forged\u2028${'9'.repeat(400)}` }), 'the sign-in throttle');
    const [warning] = warnings;
    expect(warning).not.toMatch(/[\r\n\u2028]/);
    expect(warning).toContain('1.1.1.1\\\\u000d\\\\u000aplatform-auth: forged\\\\u2028999');
    expect(warning).not.toContain('9'.repeat(200));
  });
});
