/**
 * Which addresses are not on the public internet, for the sign-in's rule
 * against being steered there (server-side request forgery: MCP security
 * best practices, RFC 9728 §7.7). The ranges are ipaddr.js's, the IANA
 * special-purpose registries kept by a library made for it: anything that is
 * not global unicast — loopback, private (RFC 1918), link-local (cloud
 * metadata at 169.254.169.254), unspecified, carrier-grade NAT, unique local
 * (fc00::/7), multicast, reserved and documentation ranges, and the IPv6
 * forms that carry an IPv4 address inside (IPv4-mapped, NAT64, 6to4,
 * Teredo) — is "private" here. IPv4-mapped IPv6 is judged as the IPv4
 * address it maps.
 */

import ipaddr from 'ipaddr.js';

const WORDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique local (private)',
  unspecified: 'unspecified',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
};

/** The host of a URL as an IP address ('[::1]' → '::1'), or undefined when it is a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

/** What kind of non-public address `address` is, in words ("loopback", "link-local"…); undefined for a public one. */
export function privateKind(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'unparsable';
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return WORDS[range] ?? `special-purpose (${range})`;
}

/** Names that are loopback whatever DNS says (RFC 6761 §6.3). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What kind of private host a URL names by itself — an IP literal that is not
 * public, or a loopback name — without asking DNS; undefined otherwise.
 */
export function privateHostKind(url: URL): string | undefined {
  if (isLoopbackName(url.hostname)) return 'loopback';
  const literal = ipLiteral(url.hostname);
  return literal === undefined ? undefined : privateKind(literal);
}
