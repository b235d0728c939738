import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless the operator allows private targets: what a
 * request from the service could use to reach the service's own network (SSRF). Node's own
 * `BlockList` does the matching, IPv4-mapped IPv6 included.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: the IPv4 behind it could be anything
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/** Whether an address is in a loopback, private, link-local or otherwise internal range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // ::ffff:a.b.c.d is the IPv4 address a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return PRIVATE.check(mapped, 'ipv4');
  }
  return PRIVATE.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** A webhook URL as the API takes it: absolute `http(s)`, no credentials, at most 2 KiB. */
export function parseWebhookUrl(raw: unknown): URL | string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2048) {
    return 'url must be an http or https URL of at most 2048 characters.';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return 'url must be an http or https URL.';
  }
  if (url.username || url.password) return 'url must not carry credentials.';
  return url;
}

/**
 * The address to connect to for `url`: its host resolved, every address it resolves to
 * checked (a name that resolves to 127.0.0.1 is refused as 127.0.0.1 is), and the first
 * one returned, so the connection goes to the address that was checked and not to a
 * second answer of the resolver.
 */
export async function resolveTarget(
  url: URL,
  allowPrivate: boolean,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true });
  } catch (error) {
    throw new TargetRefusedError(`${host} does not resolve (${(error as Error).message})`);
  }
  if (addresses.length === 0) throw new TargetRefusedError(`${host} does not resolve`);
  if (!allowPrivate) {
    const inside = addresses.find((entry) => isPrivateAddress(entry.address));
    if (inside) {
      throw new TargetRefusedError(
        `${host} resolves to ${inside.address}, a loopback, private or link-local address`,
      );
    }
  }
  const [first] = addresses as [{ address: string; family: number }];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
