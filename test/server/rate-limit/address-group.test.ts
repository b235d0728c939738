import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { addressGroup } from '../../../src/server/rate-limit/address-group.js';

const hextet = fc.integer({ min: 0, max: 0xffff });
const octet = fc.integer({ min: 0, max: 255 });

/**
 * An IPv6 address's eight hextets. The first is never 0, which keeps the IPv4-mapped and
 * IPv4-compatible ranges (grouped by their IPv4, not by /64) out of the /64 properties.
 */
const ipv6Parts = fc.tuple(
  fc.integer({ min: 1, max: 0xffff }),
  hextet,
  hextet,
  hextet,
  hextet,
  hextet,
  hextet,
  hextet,
);
const ipv4Octets = fc.tuple(octet, octet, octet, octet);

/** The ways one IPv6 address may be written: full, zero-padded, `::`-compressed, upper case. */
const spellings = (parts: readonly number[]): string[] => {
  const hex = parts.map((part) => part.toString(16));
  const full = hex.join(':');
  const padded = hex.map((part) => part.padStart(4, '0')).join(':');
  // The longest run of zero hextets (at least two) becomes `::`, as RFC 5952 writes it.
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && parts[start + length] === 0) length++;
    if (length > best.length) best = { start, length };
  }
  const compressed =
    best.start < 0
      ? full
      : `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
  return [full, padded, compressed, padded.toUpperCase()];
};

describe('addressGroup: the group a client address counts in', () => {
  it('gives every address of one IPv6 /64, however written, one group', () => {
    fc.assert(
      fc.property(ipv6Parts, fc.tuple(hextet, hextet, hextet, hextet), (parts, otherTail) => {
        const sibling = [...parts.slice(0, 4), ...otherTail];
        const groups = new Set([...spellings(parts), ...spellings(sibling)].map(addressGroup));
        assert.equal(groups.size, 1, [...groups].join(' '));
      }),
    );
  });

  it('gives addresses of different /64s different groups', () => {
    fc.assert(
      fc.property(ipv6Parts, ipv6Parts, (a, b) => {
        fc.pre(a.slice(0, 4).join() !== b.slice(0, 4).join());
        assert.notEqual(addressGroup(spellings(a)[2] ?? ''), addressGroup(spellings(b)[3] ?? ''));
      }),
    );
  });

  it('keeps an IPv4 address as itself, and an IPv4-mapped IPv6 address as its IPv4', () => {
    fc.assert(
      fc.property(ipv4Octets, (octets) => {
        const ipv4 = octets.join('.');
        assert.equal(addressGroup(ipv4), ipv4);
        assert.equal(addressGroup(`::ffff:${ipv4}`), ipv4);
        assert.equal(addressGroup(`::FFFF:${ipv4}`), ipv4);
        const [a, b, c, d] = octets;
        const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
        assert.equal(addressGroup(`::ffff:${hex(a, b)}:${hex(c, d)}`), ipv4);
      }),
    );
  });

  it('never puts two IPv4 addresses, or an IPv4 address and an IPv6 /64, in one group', () => {
    fc.assert(
      fc.property(ipv4Octets, ipv4Octets, ipv6Parts, (a, b, v6) => {
        fc.pre(a.join() !== b.join());
        assert.notEqual(addressGroup(a.join('.')), addressGroup(b.join('.')));
        assert.notEqual(addressGroup(a.join('.')), addressGroup(spellings(v6)[0] ?? ''));
      }),
    );
  });

  it('answers a group unchanged, and a value that is no address as itself', () => {
    fc.assert(
      fc.property(
        ipv6Parts.map((parts) => spellings(parts)[2] ?? ''),
        (address) => {
          const group = addressGroup(address);
          assert.equal(addressGroup(group), group);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        // Whatever the text, an answer and no throw: request.ip may be anything a trusted
        // proxy wrote.
        assert.equal(typeof addressGroup(text), 'string');
      }),
    );
    assert.equal(addressGroup('not an address'), 'not an address');
    assert.equal(addressGroup('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(addressGroup('fe80::1%eth0'), 'fe80::/64');
  });
});
