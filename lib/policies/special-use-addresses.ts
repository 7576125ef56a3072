/**
 * Special-use addresses: where a client ID metadata document is never fetched from, checked
 * before any connection is opened (lib/cimd/pinned-request.ts). This closes server-side
 * request forgery into the service's own networks (RFC 6890; the SSRF considerations of the
 * Client ID Metadata Document draft).
 *
 * - IPv4: the IANA IPv4 Special-Purpose Address Registry, plus multicast (224.0.0.0/4) and the
 *   limited broadcast address. Every range is refused, also the few the registry marks
 *   globally reachable (anycast and AS112 services): no document is published there.
 * - IPv6: only global unicast (2000::/3) may be fetched from, minus the IANA IPv6
 *   Special-Purpose Address Registry ranges inside it (documentation, benchmarking, 6to4,
 *   Teredo and the other IETF protocol assignments, AS112). Everything outside 2000::/3 is
 *   refused (loopback, unspecified, IPv4-mapped and IPv4-compatible, unique-local, link- and
 *   site-local, multicast, discard, SRv6 SIDs, the reserved space), with one exception: an
 *   address under the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052) is judged by the IPv4
 *   address it embeds, so an IPv6-only deployment behind DNS64 still reaches public hosts but
 *   never 64:ff9b::127.0.0.1. The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) is refused
 *   whole: where its IPv4 address sits (RFC 6052 §2.2 allows six layouts) is the operator's
 *   local configuration, so no reading of it can be trusted, and its translator may reach
 *   private IPv4 space. 6to4 and Teredo are refused whole too; the message names the IPv4
 *   address they embed.
 * - Names: `localhost` and `*.localhost` (RFC 6761 §6.3), `*.local` (mDNS, RFC 6762),
 *   `*.home.arpa` (RFC 8375), `*.internal` (ICANN's private-use name), `*.invalid`
 *   (RFC 6761 §6.4), and single-label names, which the system resolver completes with the
 *   host's search domains. Trailing dots are ignored.
 *
 * Textual forms: give this module what WHATWG URL parsing makes of a host (`127.1`,
 * `2130706433`, `0x7f000001` and `0177.0.0.1` all become `127.0.0.1`; `[::ffff:127.0.0.1]`
 * becomes `[::ffff:7f00:1]`); ranges are matched by `net.BlockList`, so every way of writing an
 * IPv6 address is one. A value that is not an IP address is refused, not passed.
 *
 * Why not a library: ipaddr.js 2 (the best kept) labels nearly the same ranges, but gives
 * NAT64 one label without reading the IPv4 address inside (so either every DNS64 deployment
 * is refused or 64:ff9b::127.0.0.1 passes), picks the first label in table order rather than
 * the longest prefix, and parses the legacy IPv4 forms that must never reach this module. What
 * is left is a table of about forty registry entries, each cited below, matched by Node's own
 * `net.BlockList`; a runtime dependency would not make it shorter.
 *
 * @module
 */
import { BlockList, isIP } from 'node:net';

interface Range {
  readonly cidr: string;
  readonly name: string;
  readonly list: BlockList;
}

function range(cidr: string, name: string): Range {
  const [prefix, length] = cidr.split('/') as [string, string];
  const list = new BlockList();
  list.addSubnet(prefix, Number(length), isIP(prefix) === 6 ? 'ipv6' : 'ipv4');
  return { cidr, name, list };
}

// most specific first: the first match names the reason
const IPV4: readonly Range[] = [
  range('0.0.0.0/32', 'unspecified'), // RFC 1122 §3.2.1.3
  range('0.0.0.0/8', '"this network"'), // RFC 791; Linux connects 0.0.0.0 to itself
  range('10.0.0.0/8', 'private use'), // RFC 1918
  range('100.64.0.0/10', 'shared address space (CGNAT)'), // RFC 6598
  range('127.0.0.0/8', 'loopback'), // RFC 1122
  range('169.254.0.0/16', 'link-local'), // RFC 3927 (cloud metadata services live here)
  range('172.16.0.0/12', 'private use'), // RFC 1918
  range('192.0.0.0/24', 'IETF protocol assignments'), // RFC 6890
  range('192.0.2.0/24', 'documentation (TEST-NET-1)'), // RFC 5737
  range('192.31.196.0/24', 'AS112-v4'), // RFC 7535
  range('192.52.193.0/24', 'AMT'), // RFC 7450
  range('192.88.99.0/24', 'deprecated 6to4 relay anycast'), // RFC 7526
  range('192.168.0.0/16', 'private use'), // RFC 1918
  range('192.175.48.0/24', 'AS112 direct delegation'), // RFC 7534
  range('198.18.0.0/15', 'benchmarking'), // RFC 2544
  range('198.51.100.0/24', 'documentation (TEST-NET-2)'), // RFC 5737
  range('203.0.113.0/24', 'documentation (TEST-NET-3)'), // RFC 5737
  range('224.0.0.0/4', 'multicast'), // RFC 5771
  range('255.255.255.255/32', 'limited broadcast'), // RFC 919
  range('240.0.0.0/4', 'reserved'), // RFC 1112
];

// inside 2000::/3 (global unicast), most specific first
const IPV6_INSIDE_GLOBAL: readonly Range[] = [
  range('2001::/32', 'Teredo'), // RFC 4380
  range('2001:2::/48', 'benchmarking'), // RFC 5180
  range('2001:db8::/32', 'documentation'), // RFC 3849
  range('2001::/23', 'IETF protocol assignments'), // RFC 2928
  range('2002::/16', '6to4'), // RFC 3056, deprecated by RFC 7526
  range('2620:4f:8000::/48', 'AS112-v6'), // RFC 7534
  range('3fff::/20', 'documentation'), // RFC 9637
];

// outside 2000::/3, named for the message (all of it is refused)
const IPV6_OUTSIDE_GLOBAL: readonly Range[] = [
  range('::/128', 'unspecified'), // RFC 4291
  range('::1/128', 'loopback'), // RFC 4291
  range('::ffff:0:0/96', 'IPv4-mapped'), // RFC 4291
  range('::ffff:0:0:0/96', 'IPv4-translated'), // RFC 6145
  range('::/96', 'IPv4-compatible (deprecated)'), // RFC 4291 §2.5.5.1
  range('100::/64', 'discard-only'), // RFC 6666
  range('100:0:0:1::/64', 'dummy prefix'), // RFC 9780
  range('5f00::/16', 'SRv6 SIDs'), // RFC 9602
  range('fc00::/7', 'unique local'), // RFC 4193
  range('fe80::/10', 'link-local'), // RFC 4291
  range('fec0::/10', 'site-local (deprecated)'), // RFC 3879
  range('ff00::/8', 'multicast'), // RFC 4291
];

const GLOBAL_UNICAST = range('2000::/3', 'global unicast');
const NAT64_WELL_KNOWN = range('64:ff9b::/96', 'NAT64'); // RFC 6052
const NAT64_LOCAL_USE = range('64:ff9b:1::/48', 'local-use NAT64'); // RFC 8215

/** The 16 bytes of a valid IPv6 address (`::` expanded, a dotted IPv4 tail read). */
function ipv6Bytes(address: string): Uint8Array {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** The IPv4 address in the four bytes of `address` from `offset`, each XORed with `mask`. */
function ipv4At(address: string, offset: number, mask = 0): string {
  return [...ipv6Bytes(address).subarray(offset, offset + 4)].map((b) => b ^ mask).join('.');
}

/** What an IPv6 transition address carries: where its IPv4 address is, and how it is hidden. */
const EMBEDDED_IPV4: Readonly<Record<string, { offset: number; mask: number; role: string }>> = {
  '::ffff:0:0/96': { offset: 12, mask: 0, role: 'of' }, // RFC 4291 §2.5.5.2
  '::ffff:0:0:0/96': { offset: 12, mask: 0, role: 'of' }, // RFC 6145
  '::/96': { offset: 12, mask: 0, role: 'of' }, // RFC 4291 §2.5.5.1
  '2002::/16': { offset: 2, mask: 0, role: 'of' }, // RFC 3056 §2
  '2001::/32': { offset: 12, mask: 0xff, role: 'of client' }, // RFC 4380 §4: the client address, inverted
};

function specialIPv4(address: string): string | undefined {
  const hit = IPV4.find((r) => r.list.check(address, 'ipv4'));
  return hit && `${hit.name} (${hit.cidr})`;
}

function named(hit: Range, address: string): string {
  const embedded = EMBEDDED_IPV4[hit.cidr];
  const carried = embedded ? ` ${embedded.role} ${ipv4At(address, embedded.offset, embedded.mask)}` : '';
  return `${hit.name} (${hit.cidr})${carried}`;
}

function specialIPv6(address: string): string | undefined {
  if (NAT64_WELL_KNOWN.list.check(address, 'ipv6')) {
    const embedded = ipv4At(address, 12);
    const reason = specialIPv4(embedded);
    return reason && `${named(NAT64_WELL_KNOWN, address)} of ${embedded}, ${reason}`;
  }
  if (NAT64_LOCAL_USE.list.check(address, 'ipv6')) return named(NAT64_LOCAL_USE, address);
  if (GLOBAL_UNICAST.list.check(address, 'ipv6')) {
    const hit = IPV6_INSIDE_GLOBAL.find((r) => r.list.check(address, 'ipv6'));
    return hit && named(hit, address);
  }
  const hit = IPV6_OUTSIDE_GLOBAL.find((r) => r.list.check(address, 'ipv6'));
  return hit ? named(hit, address) : 'not global unicast (outside 2000::/3)';
}

/**
 * Why `address` is special-use, e.g. `loopback (127.0.0.0/8)`, or `undefined` for a public
 * address a document may be fetched from. `address` is an IP address as `net.isIP` reads it
 * (IPv6 without brackets); anything else, and any scoped address (`fe80::1%eth0`), is refused.
 */
export function specialUseOf(address: string): string | undefined {
  const [plain, zone] = address.split('%') as [string, string | undefined];
  const family = isIP(plain);
  if (family === 0) return 'not an IP address';
  if (family === 4) return zone === undefined ? specialIPv4(plain) : 'scoped address';
  return specialIPv6(plain) ?? (zone === undefined ? undefined : 'scoped address');
}

// RFC 6761 §6.3 and §6.4, RFC 6762 (mDNS), RFC 8375 (home networks), ICANN's `.internal`
const SPECIAL_NAMES: readonly (readonly [string, string])[] = [
  ['localhost', 'localhost (RFC 6761)'],
  ['local', 'multicast DNS (.local)'],
  ['home.arpa', 'home network (.home.arpa)'],
  ['internal', 'private use (.internal)'],
  ['invalid', 'invalid (RFC 6761)'],
];

/** The IP address a URL host names literally (`[::1]` → `::1`), or `undefined` for a domain name. */
export function literalAddressOf(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

/**
 * Why a URL host is special-use before any name is resolved, or `undefined` when it is a
 * public IP address or a domain name that DNS must answer for (then check every address it
 * resolves to with {@link specialUseOf}). `hostname` is `URL#hostname`.
 */
export function specialUseHostOf(hostname: string): string | undefined {
  const literal = literalAddressOf(hostname);
  if (literal !== undefined) return specialUseOf(literal);
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (!name) return 'no host name';
  for (const [suffix, reason] of SPECIAL_NAMES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return reason;
  }
  if (!name.includes('.')) return 'single-label name (completed by local search domains)';
  return undefined;
}
