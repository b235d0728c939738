import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook (or an import) may not reach unless the operator allows private
 * targets: what a request from the service could use to reach the service's own network
 * (SSRF). Node's own `BlockList` does the matching; IPv6 forms that carry an IPv4 address
 * inside are unwrapped first (`embeddedIpv4`), so a private IPv4 address is private in
 * every spelling.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
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
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 2765): a translator's way to any IPv4 address
  ['64:ff9b::', 96], // NAT64: the IPv4 behind it could be anything
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['fc00::', 7], // unique local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/**
 * Addresses refused even when private targets are allowed (decisions.md, "Private targets
 * are opt-in"): link-local ranges, where cloud metadata services answer, and the metadata
 * addresses of clouds that put theirs elsewhere (AWS's IPv6 one, Alibaba's). A receiver or
 * a file on the operator's own network is a choice; the machine's cloud credentials never.
 */
const FORBIDDEN = new BlockList();
FORBIDDEN.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local; 169.254.169.254 is metadata
FORBIDDEN.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud's metadata service
FORBIDDEN.addSubnet('fe80::', 10, 'ipv6'); // link-local
FORBIDDEN.addAddress('fd00:ec2::254', 'ipv6'); // AWS's metadata service over IPv6

/** The 16 bytes of an IPv6 address (`isIP` has said it is one), dotted IPv4 tail included. */
function ipv6Bytes(address: string): Uint8Array {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const middle = new Array<string>(8 - left.length - right.length).fill('0');
  const bytes = new Uint8Array(16);
  [...left, ...middle, ...right].forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

const dottedQuad = (bytes: Uint8Array, at: number, xor = 0) =>
  Array.from(bytes.subarray(at, at + 4), (byte) => byte ^ xor).join('.');

/**
 * The IPv4 address an IPv6 address carries and would reach, if it is a form that does:
 * IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible
 * `::a.b.c.d`, 6to4 `2002:AABB:CCDD::/48`,
 * NAT64 `64:ff9b::a.b.c.d`, and Teredo `2001:0::/32` (the client address inverted in the
 * last 32 bits).
 */
export function embeddedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const bytes = ipv6Bytes(address);
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return dottedQuad(bytes, 12);
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) {
    return dottedQuad(bytes, 12); // IPv4-translated ::ffff:0:a.b.c.d
  }
  if (zeros(0, 12) && !zeros(12, 14)) return dottedQuad(bytes, 12); // not ::, ::1 and the like
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return dottedQuad(bytes, 2);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    return dottedQuad(bytes, 12);
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && zeros(2, 4)) return dottedQuad(bytes, 12, 0xff);
  return null;
}

/**
 * The one message of every refused target, whatever the reason (decisions.md): a caller
 * who registers targets must not learn from it which names resolve inside the service's
 * network, nor to what.
 */
export const REFUSED_TARGET_MESSAGE =
  'the host is not a public address this service may reach (it does not resolve, or it is a loopback, private, link-local or metadata address)';

export class TargetRefusedError extends Error {
  constructor() {
    super(REFUSED_TARGET_MESSAGE);
    this.name = 'TargetRefusedError';
  }
}

/**
 * What an address is to the service's outgoing requests: `public`; `private` (loopback,
 * private, unique-local, CGNAT and the like: reached only when the operator allows private
 * targets); `forbidden` (link-local and metadata: never reached). Not an address at all is
 * forbidden.
 */
export type AddressClass = 'public' | 'private' | 'forbidden';

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'forbidden';
  if (family === 4) {
    if (FORBIDDEN.check(address, 'ipv4')) return 'forbidden';
    return PRIVATE.check(address, 'ipv4') ? 'private' : 'public';
  }
  const inside = embeddedIpv4(address);
  if (FORBIDDEN.check(address, 'ipv6') || (inside !== null && FORBIDDEN.check(inside, 'ipv4'))) {
    return 'forbidden';
  }
  const isPrivate =
    PRIVATE.check(address, 'ipv6') || (inside !== null && PRIVATE.check(inside, 'ipv4'));
  return isPrivate ? 'private' : 'public';
}

/** Whether an address is anything but public: loopback, private, link-local, metadata… */
export function isPrivateAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}

/**
 * What `url`'s host is, when that is known without asking a resolver (an address, or a
 * `localhost` name, which resolvers keep on loopback: RFC 6761); null for other names.
 */
export function literalTargetClass(url: URL): AddressClass | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(host)) return classifyAddress(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'private';
  return null;
}

/**
 * A URL the service will connect to (a webhook target, an import) as the API takes it:
 * absolute `http(s)`, no credentials, at most 2 KiB.
 */
export function parseTargetUrl(raw: unknown): URL | string {
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

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export interface TargetOptions {
  /**
   * Loopback addresses to take as public: tests only. The internet cannot be reached from
   * the test machines, so a test's stand-in for a public server listens on one of these
   * (127.0.0.2) while 127.0.0.1 stays private. No setting of the service reaches this.
   */
  treatAsPublic?: readonly string[];
}

/**
 * A `lookup` for `http.request` that answers the address `resolveTarget` checked, whatever
 * the resolver would say now: the connection goes where the check looked (no DNS rebinding
 * between the check and the connect).
 */
export function pinnedLookup(target: CheckedAddress): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as (error: null, addresses: CheckedAddress[]) => void)(null, [target]);
    } else callback(null, target.address, target.family);
  };
}

/**
 * The address to connect to for `url`: its host resolved, every address it resolves to
 * checked (a name that resolves to 127.0.0.1 is refused as 127.0.0.1 is), and the first
 * one returned, so the connection goes to the address that was checked and not to a
 * second answer of the resolver. With `allowPrivate`, private addresses pass; link-local
 * and metadata ones never do.
 */
export async function resolveTarget(
  url: URL,
  allowPrivate: boolean,
  options: TargetOptions = {},
): Promise<CheckedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true });
  } catch {
    throw new TargetRefusedError();
  }
  if (addresses.length === 0) throw new TargetRefusedError();
  const publicForTests = options.treatAsPublic ?? [];
  const refused = addresses.some(({ address }) => {
    if (publicForTests.includes(address)) return false;
    const kind = classifyAddress(address);
    return kind === 'forbidden' || (kind === 'private' && !allowPrivate);
  });
  if (refused) throw new TargetRefusedError();
  const [first] = addresses as [{ address: string; family: number }];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
