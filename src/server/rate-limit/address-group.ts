import ipaddr from 'ipaddr.js';

/**
 * The group a client address counts in, for every per-address limit (rate limits, the
 * anonymous allowance): an IPv4 address alone, an IPv6 address by its /64, an
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, how a dual-stack socket reports an IPv4
 * client) as its IPv4. One subscriber, one IPv4 address; but one IPv6 subscriber is handed a
 * whole /64 (RFC 6177) and may pick any of its 2^64 addresses per request, so a limit keyed
 * on the exact IPv6 address would limit nothing.
 *
 * Answers one text per group: `203.0.113.7`, `2001:db8:1:2::/64`. A value that is not an
 * address (an `X-Forwarded-For` a trusted proxy passed on unchecked) is its own group, as it
 * was before grouping.
 */
export function addressGroup(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
