/**
 * Which network addresses a call to a customer site may reach. Only public unicast
 * addresses pass: private, loopback, link-local (cloud metadata included), unspecified,
 * CGNAT, multicast, reserved and documentation ranges, and IPv6 forms that embed an IPv4
 * address (mapped, 6to4, NAT64, Teredo) are refused, whatever notation the address is in.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`dns.lookup` with `all: true`), as the HTTP stack itself would use it. */
export const systemResolver: Resolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** A URL, host or address that outbound calls may not reach; `message` says why, without secrets. */
export class BlockedDestinationError extends Error {
  override readonly name = 'BlockedDestinationError';
}

/** Addresses that are refused even if some range table were to call them public. */
const ALWAYS_BLOCKED = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16']);

/** Global unicast IPv6 space (2000::/3); everything outside it is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address (any textual form ipaddr.js reads: dotted, decimal, octal, hex, IPv6,
 * IPv4-mapped IPv6) is a public unicast address a customer site may live on.
 */
export function isPublicAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const normalized = parsed.kind() === 'ipv6' ? stripZone(parsed.toNormalizedString()) : parsed.toString();
  if (ALWAYS_BLOCKED.has(normalized) || ALWAYS_BLOCKED.has(stripZone(parsed.toString()))) return false;
  if (parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return false;
  return true;
}

function stripZone(text: string): string {
  return text.replace(/%.*$/, '');
}

/** The literal IP address a URL host names, or undefined when it is a DNS name. */
export function literalAddress(hostname: string): string | undefined {
  const text = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(text) ? ipaddr.parse(text).toString() : undefined;
}

export interface DestinationPolicy {
  /** Skip the address checks (local mode and tests only). */
  allowPrivate: boolean;
  resolve: Resolver;
  /** Which addresses count as public; `isPublicAddress` unless a test narrows it. */
  isAllowedAddress?: (address: string) => boolean;
}

/**
 * Checks a URL's scheme and host, resolving a name to all its addresses; returns the
 * addresses the connection must be pinned to. Throws BlockedDestinationError when the URL is
 * not http(s) or when any address is not public (unless the policy allows private ones).
 */
export async function checkDestination(url: URL, policy: DestinationPolicy): Promise<ResolvedAddress[]> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BlockedDestinationError(`Only http and https URLs are allowed, not ${url.protocol}`);
  }
  const literal = literalAddress(url.hostname);
  const addresses: ResolvedAddress[] = literal
    ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
    : await policy.resolve(url.hostname.replace(/\.$/, ''));
  if (addresses.length === 0) throw new BlockedDestinationError(`${url.hostname} has no address`);
  if (!policy.allowPrivate) {
    const isAllowed = policy.isAllowedAddress ?? isPublicAddress;
    const refused = addresses.find(({ address }) => !isAllowed(address));
    if (refused) {
      throw new BlockedDestinationError(
        literal
          ? `${url.hostname} is a private, loopback, link-local or reserved address`
          : `${url.hostname} resolves to a private, loopback, link-local or reserved address`,
      );
    }
  }
  return addresses;
}
