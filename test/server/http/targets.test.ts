import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  embeddedIpv4,
  isPrivateAddress,
  resolveTarget,
  TargetRefusedError,
} from '../../../src/server/http/targets.js';

const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

/** Every IPv6 spelling of an IPv4 address that reaches it (or a NAT in front of it). */
function ipv6Forms([a, b, c, d]: [number, number, number, number]): string[] {
  const low = `${hex(a, b)}:${hex(c, d)}`;
  const teredo = `${hex(a ^ 0xff, b ^ 0xff)}:${hex(c ^ 0xff, d ^ 0xff)}`;
  return [
    `::ffff:${a}.${b}.${c}.${d}`,
    `::ffff:${low}`,
    `0:0:0:0:0:ffff:${low}`,
    `::${a}.${b}.${c}.${d}`,
    `::${low}`,
    `2002:${low}::1`,
    `2002:${low}:abcd::`,
    `64:ff9b::${a}.${b}.${c}.${d}`,
    `64:ff9b::${low}`,
    `2001:0:4136:e378:8000:63bf:${teredo}`,
  ];
}

const octet = fc.integer({ min: 0, max: 255 });
const privateV4 = fc.oneof(
  fc.tuple(fc.constant(127), octet, octet, octet),
  fc.tuple(fc.constant(10), octet, octet, octet),
  fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
  fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
);

describe('webhook and import targets: which addresses are private', () => {
  it('a private IPv4 address is private in every IPv6 form that carries it (property)', () => {
    fc.assert(
      fc.property(privateV4, (v4) => {
        for (const form of ipv6Forms(v4)) {
          assert.equal(isPrivateAddress(form), true, form);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('unwraps the IPv4 address inside each form', () => {
    assert.equal(embeddedIpv4('::127.0.0.1'), '127.0.0.1');
    assert.equal(embeddedIpv4('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(embeddedIpv4('2002:a00:1::'), '10.0.0.1');
    assert.equal(embeddedIpv4('64:ff9b::c0a8:101'), '192.168.1.1');
    assert.equal(embeddedIpv4('2001:0:4136:e378:8000:63bf:80ff:fffe'), '127.0.0.1');
    assert.equal(embeddedIpv4('2606:4700::1111'), null);
    assert.equal(embeddedIpv4('::1'), null);
  });

  it('public addresses stay public, in IPv6 forms too (but every NAT64 address is private)', () => {
    for (const address of [
      '93.184.216.34',
      '2606:4700::1111',
      '2002:5db8:d822::1',
      '::ffff:93.184.216.34',
    ]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
    for (const address of ['64:ff9b::5db8:d822', '64:ff9b:1::5db8:d822', 'fec0::1', '::', '::1']) {
      assert.equal(isPrivateAddress(address), true, address);
    }
  });

  it('a refused target never says what its name resolved to', async () => {
    await assert.rejects(resolveTarget(new URL('http://localhost:9/'), false), (error: unknown) => {
      assert.ok(error instanceof TargetRefusedError);
      assert.equal(
        error.message,
        'localhost resolves to a loopback, private or link-local address',
      );
      assert.doesNotMatch(error.message, /127\.0\.0\.1|::1/);
      return true;
    });
    await assert.rejects(
      resolveTarget(new URL('http://[2002:7f00:1::]/'), false),
      /2002:7f00:1:: is a loopback, private or link-local address/,
    );
    await assert.rejects(
      resolveTarget(new URL('http://no-such-name.invalid/'), false),
      (error: unknown) =>
        error instanceof TargetRefusedError && !/\d+\.\d+\.\d+\.\d+/.test(error.message),
    );
  });
});
