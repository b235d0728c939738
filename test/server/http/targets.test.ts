import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  classifyAddress,
  embeddedIpv4,
  isPrivateAddress,
  REFUSED_TARGET_MESSAGE,
  resolveTarget,
  TargetRefusedError,
} from '../../../src/server/ground/targets.js';

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

  it('refuses every target with one message, whether its name did not resolve, resolved to a private address, or was one', async () => {
    const messages = new Set<string>();
    for (const url of [
      'http://localhost:9/',
      'http://[2002:7f00:1::]/',
      'http://10.0.0.1/',
      'http://no-such-name.invalid/',
      'http://169.254.169.254/',
    ]) {
      await assert.rejects(resolveTarget(new URL(url), false), (error: unknown) => {
        assert.ok(error instanceof TargetRefusedError, url);
        messages.add(error.message);
        return true;
      });
    }
    await assert.rejects(resolveTarget(new URL('http://169.254.169.254/'), true), (error) => {
      assert.ok(error instanceof TargetRefusedError);
      messages.add(error.message);
      return true;
    });
    assert.deepEqual([...messages], [REFUSED_TARGET_MESSAGE]);
    assert.doesNotMatch(REFUSED_TARGET_MESSAGE, /\d+\.\d+\.\d+\.\d+|::1/);
  });

  it('allows private targets when told to, and link-local and metadata targets never', async () => {
    for (const host of ['127.0.0.1', '[::1]', '10.1.2.3', '[fd12::1]', '100.64.0.1', 'localhost']) {
      const url = new URL(`http://${host}:9/`);
      await assert.rejects(resolveTarget(url, false), TargetRefusedError, host);
      const checked = await resolveTarget(url, true);
      assert.ok(isIP(checked.address) !== 0, host);
    }
    for (const host of [
      '169.254.169.254',
      '169.254.1.1',
      '100.100.100.200',
      '[fd00:ec2::254]',
      '[fe80::1]',
      '[febf:ffff::1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:0:169.254.169.254]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:a9fe:a9fe::1]',
    ]) {
      await assert.rejects(
        resolveTarget(new URL(`http://${host}/`), true),
        TargetRefusedError,
        host,
      );
    }
  });
});

const hexGroup = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16));

describe('the address classifier (properties)', () => {
  it('link-local IPv4, in every IPv6 form that carries it, is forbidden', () => {
    fc.assert(
      fc.property(octet, octet, (c, d) => {
        const v4: [number, number, number, number] = [169, 254, c, d];
        assert.equal(classifyAddress(v4.join('.')), 'forbidden');
        for (const form of [...ipv6Forms(v4), `::ffff:0:${v4.join('.')}`]) {
          assert.equal(classifyAddress(form), 'forbidden', form);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('every address of fe80::/10 is forbidden', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfe80, max: 0xfebf }),
        fc.array(hexGroup, { minLength: 7, maxLength: 7 }),
        (first, rest) => {
          const address = [first.toString(16), ...rest].join(':');
          assert.equal(classifyAddress(address), 'forbidden', address);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('IPv4-translated (::ffff:0:a.b.c.d) and discard (100::/64) addresses are private', () => {
    fc.assert(
      fc.property(octet, octet, octet, octet, (a, b, c, d) => {
        const translated = `::ffff:0:${a}.${b}.${c}.${d}`;
        assert.notEqual(classifyAddress(translated), 'public', translated);
        assert.equal(embeddedIpv4(translated), `${a}.${b}.${c}.${d}`);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(hexGroup, { minLength: 4, maxLength: 4 }), (low) => {
        const address = `100::${low.join(':')}`;
        assert.equal(classifyAddress(address), 'private', address);
      }),
      { numRuns: 300 },
    );
  });

  it('private IPv4 is private (not forbidden) and public IPv4 public, as such and IPv4-mapped', () => {
    const rfc1918 = fc.oneof(
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(10), octet, octet, octet),
      fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 99 }), octet, octet),
    );
    fc.assert(
      fc.property(rfc1918, (v4) => {
        assert.equal(classifyAddress(v4.join('.')), 'private', v4.join('.'));
        assert.equal(classifyAddress(`::ffff:${v4.join('.')}`), 'private');
      }),
      { numRuns: 300 },
    );
    // 11-99.x.x.x and 1-9.x.x.x hold no reserved range.
    const publicV4 = fc.tuple(fc.integer({ min: 1, max: 99 }), octet, octet, octet);
    fc.assert(
      fc.property(publicV4, (v4) => {
        fc.pre(v4[0] !== 10);
        assert.equal(classifyAddress(v4.join('.')), 'public', v4.join('.'));
        assert.equal(classifyAddress(`::ffff:${v4.join('.')}`), 'public');
      }),
      { numRuns: 300 },
    );
  });

  it('the metadata addresses are forbidden, their neighbours only private', () => {
    for (const address of ['169.254.169.254', '100.100.100.200', 'fd00:ec2::254']) {
      assert.equal(classifyAddress(address), 'forbidden', address);
    }
    for (const address of ['100.100.100.201', 'fd00:ec2::253', 'fd00::1']) {
      assert.equal(classifyAddress(address), 'private', address);
    }
  });
});
