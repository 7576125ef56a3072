/**
 * The special-use address rule: every IANA special-purpose range (IPv4 and IPv6) refused
 * with its name, public addresses passed, the IPv4 address inside NAT64 judged, IPv4-mapped,
 * 6to4 and Teredo refused whole, every textual form of an address treated alike (as WHATWG
 * URL parsing hands them over), and the special-use names.
 */
import {
  literalAddressOf, specialUseHostOf, specialUseOf,
} from '../../lib/policies/special-use-addresses.ts';

/** What `URL#hostname` makes of a host as written in a client_id. */
const hostnameOf = (host: string) => new URL(`https://${host}/client.json`).hostname;

describe('IPv4', () => {
  it.each([
    ['0.0.0.0', 'unspecified (0.0.0.0/32)'],
    ['0.1.2.3', '"this network" (0.0.0.0/8)'],
    ['10.0.0.1', 'private use (10.0.0.0/8)'],
    ['10.255.255.255', 'private use (10.0.0.0/8)'],
    ['100.64.0.1', 'shared address space (CGNAT) (100.64.0.0/10)'],
    ['100.127.255.254', 'shared address space (CGNAT) (100.64.0.0/10)'],
    ['127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['127.255.255.254', 'loopback (127.0.0.0/8)'],
    ['169.254.169.254', 'link-local (169.254.0.0/16)'],
    ['172.16.0.1', 'private use (172.16.0.0/12)'],
    ['172.31.255.255', 'private use (172.16.0.0/12)'],
    ['192.0.0.8', 'IETF protocol assignments (192.0.0.0/24)'],
    ['192.0.0.170', 'IETF protocol assignments (192.0.0.0/24)'],
    ['192.0.2.1', 'documentation (TEST-NET-1) (192.0.2.0/24)'],
    ['192.31.196.1', 'AS112-v4 (192.31.196.0/24)'],
    ['192.52.193.1', 'AMT (192.52.193.0/24)'],
    ['192.88.99.1', 'deprecated 6to4 relay anycast (192.88.99.0/24)'],
    ['192.168.1.1', 'private use (192.168.0.0/16)'],
    ['192.175.48.1', 'AS112 direct delegation (192.175.48.0/24)'],
    ['198.18.0.1', 'benchmarking (198.18.0.0/15)'],
    ['198.19.255.255', 'benchmarking (198.18.0.0/15)'],
    ['198.51.100.7', 'documentation (TEST-NET-2) (198.51.100.0/24)'],
    ['203.0.113.9', 'documentation (TEST-NET-3) (203.0.113.0/24)'],
    ['224.0.0.1', 'multicast (224.0.0.0/4)'],
    ['239.255.255.250', 'multicast (224.0.0.0/4)'],
    ['240.0.0.1', 'reserved (240.0.0.0/4)'],
    ['255.255.255.254', 'reserved (240.0.0.0/4)'],
    ['255.255.255.255', 'limited broadcast (255.255.255.255/32)'],
  ])('%s is %s', (address, reason) => {
    expect(specialUseOf(address)).toBe(reason);
  });

  it.each([
    '1.1.1.1', '8.8.8.8', '93.184.215.14', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255',
    '128.0.0.0', '169.253.255.255', '169.255.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.255', '192.0.3.0',
    '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255',
  ])('%s is public', (address) => {
    expect(specialUseOf(address)).toBeUndefined();
  });
});

describe('IPv6', () => {
  it.each([
    ['::', 'unspecified (::/128)'],
    ['::1', 'loopback (::1/128)'],
    ['0:0:0:0:0:0:0:1', 'loopback (::1/128)'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback (::1/128)'],
    ['::ffff:7f00:1', 'IPv4-mapped (::ffff:0:0/96) of 127.0.0.1'],
    ['::ffff:127.0.0.1', 'IPv4-mapped (::ffff:0:0/96) of 127.0.0.1'],
    ['::FFFF:7F00:1', 'IPv4-mapped (::ffff:0:0/96) of 127.0.0.1'],
    // mapped is refused whatever it carries: it is an IPv4 connection in IPv6 clothing
    ['::ffff:8.8.8.8', 'IPv4-mapped (::ffff:0:0/96) of 8.8.8.8'],
    ['::ffff:0:7f00:1', 'IPv4-translated (::ffff:0:0:0/96) of 127.0.0.1'],
    ['::7f00:1', 'IPv4-compatible (deprecated) (::/96) of 127.0.0.1'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated) (::/96) of 127.0.0.1'],
    ['100::1', 'discard-only (100::/64)'],
    ['100:0:0:1::1', 'dummy prefix (100:0:0:1::/64)'],
    ['5f00::1', 'SRv6 SIDs (5f00::/16)'],
    ['fc00::1', 'unique local (fc00::/7)'],
    ['fd12:3456:789a::1', 'unique local (fc00::/7)'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['febf::1', 'link-local (fe80::/10)'],
    ['fec0::1', 'site-local (deprecated) (fec0::/10)'],
    ['ff02::1', 'multicast (ff00::/8)'],
    ['ff0e::101', 'multicast (ff00::/8)'],
    ['2001::1', 'Teredo (2001::/32) of client 255.255.255.254'],
    // Teredo hides the client address inverted: 80ff:fffe is 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo (2001::/32) of client 127.0.0.1'],
    ['2001:2::1', 'benchmarking (2001:2::/48)'],
    ['2001:3::1', 'IETF protocol assignments (2001::/23)'],
    ['2001:1ff:ffff::1', 'IETF protocol assignments (2001::/23)'],
    ['2001:db8::1', 'documentation (2001:db8::/32)'],
    ['2002:7f00:1::1', '6to4 (2002::/16) of 127.0.0.1'],
    // 6to4 is refused whatever it carries (deprecated; relays are not ours to trust)
    ['2002:808:808::1', '6to4 (2002::/16) of 8.8.8.8'],
    ['2620:4f:8000::1', 'AS112-v6 (2620:4f:8000::/48)'],
    ['3fff::1', 'documentation (3fff::/20)'],
    ['3fff:fff::1', 'documentation (3fff::/20)'],
    ['400::1', 'not global unicast (outside 2000::/3)'],
    ['4000::1', 'not global unicast (outside 2000::/3)'],
    ['e000::1', 'not global unicast (outside 2000::/3)'],
  ])('%s is %s', (address, reason) => {
    expect(specialUseOf(address)).toBe(reason);
  });

  it.each([
    '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e', '2001:200::1', '2620:4f:7fff::1',
    '3ffe::1', '3fff:1000::1', '2003::1',
  ])('%s is public', (address) => {
    expect(specialUseOf(address)).toBeUndefined();
  });

  describe('NAT64', () => {
    it('judges the well-known prefix by the IPv4 address it carries', () => {
      expect(specialUseOf('64:ff9b::7f00:1')).toBe('NAT64 (64:ff9b::/96) of 127.0.0.1, loopback (127.0.0.0/8)');
      expect(specialUseOf('64:ff9b::127.0.0.1')).toBe('NAT64 (64:ff9b::/96) of 127.0.0.1, loopback (127.0.0.0/8)');
      expect(specialUseOf('64:ff9b::a9fe:a9fe')).toBe('NAT64 (64:ff9b::/96) of 169.254.169.254, link-local (169.254.0.0/16)');
      expect(specialUseOf('64:ff9b::a00:1')).toBe('NAT64 (64:ff9b::/96) of 10.0.0.1, private use (10.0.0.0/8)');
      expect(specialUseOf('64:ff9b::')).toBe('NAT64 (64:ff9b::/96) of 0.0.0.0, unspecified (0.0.0.0/32)');
      // DNS64 answers for a public host stay reachable
      expect(specialUseOf('64:ff9b::808:808')).toBeUndefined();
      expect(specialUseOf('64:ff9b::8.8.8.8')).toBeUndefined();
    });

    it('refuses the local-use prefix whole: where its IPv4 address sits is local configuration', () => {
      for (const address of ['64:ff9b:1::808:808', '64:ff9b:1::7f00:1', '64:ff9b:1:7f00:0:100::', '64:ff9b:1:ffff::1']) {
        expect(specialUseOf(address)).toBe('local-use NAT64 (64:ff9b:1::/48)');
      }
      // just outside the local-use /48 and the well-known /96: reserved space, refused
      expect(specialUseOf('64:ff9b:2::1')).toBe('not global unicast (outside 2000::/3)');
      expect(specialUseOf('64:ff9b:0:0:1::1')).toBe('not global unicast (outside 2000::/3)');
    });
  });

  it('refuses scoped addresses, public or not', () => {
    expect(specialUseOf('fe80::1%eth0')).toBe('link-local (fe80::/10)');
    expect(specialUseOf('2606:4700:4700::1111%eth0')).toBe('scoped address');
    expect(specialUseOf('8.8.8.8%1')).toBe('scoped address');
  });
});

describe('anything that is not an IP address is refused, not passed', () => {
  it.each(['', 'localhost', 'tools.example', '127.1', '2130706433', '0x7f000001', '[::1]', '1.2.3.4.5', '::g'])('%j', (value) => {
    expect(specialUseOf(value)).toBe('not an IP address');
  });
});

describe('hosts as URL parsing hands them over', () => {
  // every way of writing 127.0.0.1 that a client_id can carry
  it.each([
    '127.0.0.1', '127.1', '127.0.1', '2130706433', '0x7f000001', '0X7F000001', '0x7f.0.0.1', '0x7f.1', '0177.0.0.1', '0177.1',
    '00177.0000.0000.0001', '127.000.000.001', '127.0.0.1.', '%31%32%37.0.0.1', '\uff11\uff12\uff17.0.0.1', '127.0.0.1:443',
  ])('%s is loopback', (host) => {
    expect(hostnameOf(host)).toBe('127.0.0.1');
    expect(specialUseHostOf(hostnameOf(host))).toBe('loopback (127.0.0.0/8)');
  });

  it.each([
    ['0', 'unspecified (0.0.0.0/32)'],
    ['0.0.0.0', 'unspecified (0.0.0.0/32)'],
    ['0x0', 'unspecified (0.0.0.0/32)'],
    ['[::]', 'unspecified (::/128)'],
    ['[::1]', 'loopback (::1/128)'],
    ['[0:0:0:0:0:0:0:1]', 'loopback (::1/128)'],
    ['[::ffff:127.0.0.1]', 'IPv4-mapped (::ffff:0:0/96) of 127.0.0.1'],
    ['[::ffff:7f00:1]', 'IPv4-mapped (::ffff:0:0/96) of 127.0.0.1'],
    ['[0:0:0:0:0:ffff:7f00:1]', 'IPv4-mapped (::ffff:0:0/96) of 127.0.0.1'],
    ['[::ffff:0:127.0.0.1]', 'IPv4-translated (::ffff:0:0:0/96) of 127.0.0.1'],
    ['[::127.0.0.1]', 'IPv4-compatible (deprecated) (::/96) of 127.0.0.1'],
    ['[64:ff9b::127.0.0.1]', 'NAT64 (64:ff9b::/96) of 127.0.0.1, loopback (127.0.0.0/8)'],
    ['[2002:7f00:1::]', '6to4 (2002::/16) of 127.0.0.1'],
    ['[fe80::1]', 'link-local (fe80::/10)'],
    ['169.254.169.254', 'link-local (169.254.0.0/16)'],
    ['0xa9fea9fe', 'link-local (169.254.0.0/16)'],
    ['2852039166', 'link-local (169.254.0.0/16)'],
    ['10.1', 'private use (10.0.0.0/8)'],
    ['192.168.257', 'private use (192.168.0.0/16)'],
  ])('%s is %s', (host, reason) => {
    expect(specialUseHostOf(hostnameOf(host))).toBe(reason);
  });

  it('passes public addresses, in any form', () => {
    for (const host of ['8.8.8.8', '134744072', '0x8080808', '[2606:4700:4700::1111]', '[64:ff9b::8.8.8.8]']) {
      expect(specialUseHostOf(hostnameOf(host))).toBeUndefined();
    }
  });
});

describe('names', () => {
  it.each([
    ['localhost', 'localhost (RFC 6761)'],
    ['LOCALHOST', 'localhost (RFC 6761)'],
    ['localhost.', 'localhost (RFC 6761)'],
    ['localhost..', 'localhost (RFC 6761)'],
    ['app.localhost', 'localhost (RFC 6761)'],
    ['a.b.LocalHost.', 'localhost (RFC 6761)'],
    ['printer.local', 'multicast DNS (.local)'],
    ['router.home.arpa', 'home network (.home.arpa)'],
    ['db.internal', 'private use (.internal)'],
    ['x.invalid', 'invalid (RFC 6761)'],
    ['intranet', 'single-label name (completed by local search domains)'],
    ['intranet.', 'single-label name (completed by local search domains)'],
  ])('%s is %s', (host, reason) => {
    expect(specialUseHostOf(hostnameOf(host))).toBe(reason);
  });

  it('leaves other names to DNS, whose every answer is then checked', () => {
    for (const host of ['tools.example', 'tools.example.', 'localhost.example.com', 'mylocal.dev', 'internal.example.org', 'local.app']) {
      expect(specialUseHostOf(hostnameOf(host))).toBeUndefined();
    }
  });

  it('refuses an empty host', () => {
    expect(specialUseHostOf('')).toBe('no host name');
    expect(specialUseHostOf('.')).toBe('no host name');
  });
});

describe('literalAddressOf', () => {
  it('unwraps IPv6 brackets and leaves names alone', () => {
    expect(literalAddressOf('[::1]')).toBe('::1');
    expect(literalAddressOf('127.0.0.1')).toBe('127.0.0.1');
    expect(literalAddressOf('tools.example')).toBeUndefined();
    expect(literalAddressOf('[tools.example]')).toBeUndefined();
  });
});
