// Which IP addresses an outbound request may reach: pure functions over address text, no I/O.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Networks that are not the public internet, with why (the reason appears in logs, never in a creator's sentence). */
const REFUSED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  // Includes the cloud metadata address 169.254.169.254.
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const REFUSED_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  // Teredo (2001::/32, a tunnel to an IPv4 host given in the address), benchmarking, ORCHID: nothing a feed is served from.
  ['2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:db8::', 32, 'documentation'],
  // Unique local addresses; includes the cloud metadata address fd00:ec2::254.
  ['fc00::', 7, 'private (ULA)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function blockList(rules: [string, number, string][], type: 'ipv4' | 'ipv6'): [BlockList, string][] {
  return rules.map(([net, prefix, why]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, type);
    return [list, why];
  });
}

const V4 = blockList(REFUSED_V4, 'ipv4');
const V6 = blockList(REFUSED_V6, 'ipv6');

// Only global unicast (2000::/3) is the IPv6 internet; everything else is refused unless it carries a public IPv4 address
// in a form that routes to it (checked before). A deny-list alone missed the local-use NAT64 prefix 64:ff9b:1::/48 and
// the SIIT form ::ffff:0:a.b.c.d (security review 2026-11-27, item 17), and would miss the next special range too.
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit words of an IPv6 address (with `::` and a trailing dotted quad expanded). */
export function ipv6Words(address: string): number[] {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((w) => parseInt(w, 16));
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it: mapped, SIIT, compatible, NAT64, 6to4. */
export function embeddedIPv4(address: string): string | undefined {
  const w = ipv6Words(address);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && w[5] === 0xffff) return quad(w[6]!, w[7]!); // ::ffff:a.b.c.d
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return quad(w[6]!, w[7]!); // ::ffff:0:a.b.c.d (SIIT, RFC 6145)
  if (zeros(0, 6) && (w[6] !== 0 || w[7]! > 1)) return quad(w[6]!, w[7]!); // ::a.b.c.d (deprecated)
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return quad(w[6]!, w[7]!); // 64:ff9b::/96
  if (w[0] === 0x2002) return quad(w[1]!, w[2]!); // 2002:AABB:CCDD::/48
  return undefined;
}

/**
 * Why `address` (an IP literal) is not a public internet address, or undefined when it is one. Anything that is not
 * an IP literal is refused too: callers check resolved addresses, never names.
 */
export function refusedReason(address: string): string | undefined {
  if (isIPv4(address)) return V4.find(([list]) => list.check(address, 'ipv4'))?.[1];
  if (!isIPv6(address)) return 'not an IP address';
  const v4 = embeddedIPv4(address);
  if (v4 !== undefined) {
    const why = refusedReason(v4);
    return why === undefined ? undefined : `${why} (IPv4 inside IPv6)`;
  }
  const bare = address.replace(/%.*$/, '');
  const why = V6.find(([list]) => list.check(bare, 'ipv6'))?.[1];
  if (why !== undefined) return why;
  return GLOBAL_UNICAST.check(bare, 'ipv6') ? undefined : 'not global unicast (outside 2000::/3)';
}

/** The host of a parsed URL as an IP literal (brackets removed), or undefined when it is a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIPv4(bare) || isIPv6(bare) ? bare : undefined;
}
