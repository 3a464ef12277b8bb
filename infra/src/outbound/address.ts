import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Ranges the platform operator allows despite the guard (OUTBOUND_ALLOW_CIDRS): `10.20.0.0/16,fd00::/8`. */
export type AllowList = ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

/** Parses a comma-separated list of CIDRs (a bare address is its own /32 or /128); throws on a wrong entry. */
export function parseAllowList(text: string | undefined): AllowList {
  if (!text?.trim()) return [];
  return text.split(',').map((entry) => {
    const cidr = entry.trim();
    if (cidr.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(cidr);
      // An IPv4-mapped IPv6 range is checked as the IPv4 range it maps.
      return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
        ? [(address as ipaddr.IPv6).toIPv4Address(), bits - 96]
        : [address, bits];
    }
    if (!ipaddr.isValid(cidr)) throw new Error(`not an address or CIDR: ${cidr}`);
    const address = ipaddr.process(cidr);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

/**
 * Why the guard refuses an address (its range: `loopback`, `private`, `linkLocal`, `carrierGradeNat`,
 * `uniqueLocal`, `multicast`…), or null when it may be called: only global unicast addresses pass, and what the
 * operator allows. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged as the IPv4 address it is.
 */
export function refusedRange(address: string, allow: AllowList): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const ip = ipaddr.process(address);
  if (allow.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))) return null;
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

/** `localhost` and every name under it are the loopback, whatever a resolver says (RFC 6761). */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/**
 * The address a host names as written, or null for a name to resolve: IP literals in every spelling the WHATWG
 * URL parser and `inet_aton` read (`0x7f000001`, `2130706433`, `0177.0.0.1`, `127.1`, `[::1]`, a trailing dot),
 * and `localhost` names as 127.0.0.1.
 */
export function literalAddress(host: string): string | null {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return bare;
  if (isLocalhostName(bare)) return '127.0.0.1';
  try {
    // Hosts of smtp:// URLs are not parsed as addresses by URL: read them as an http URL's host would be.
    const hostname = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(hostname)) return hostname;
  } catch {
    return null;
  }
  return null;
}
