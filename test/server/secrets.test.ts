import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { keyWeakness, newApiKey } from '../../src/server/ground/secrets.js';

const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];

describe('keyWeakness', () => {
  it('never refuses a key made by newApiKey', () => {
    fc.assert(
      fc.property(fc.constantFrom('secret' as const, 'publishable' as const), (kind) => {
        const key = newApiKey(kind);
        assert.equal(keyWeakness(key.slice('sk_live_'.length)), null, key);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses any short pattern repeated to key length', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...BASE64URL), { minLength: 1, maxLength: 16 }),
        fc.integer({ min: 32, max: 64 }),
        (pattern, length) => {
          const random = pattern
            .join('')
            .repeat(Math.ceil(length / pattern.length))
            .slice(0, length);
          assert.notEqual(keyWeakness(random), null, random);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses runs of neighbouring characters, up or down', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: BASE64URL.length - 1 }),
        fc.boolean(),
        fc.integer({ min: 32, max: 60 }),
        (start, down, length) => {
          const alphabet = down ? [...BASE64URL].reverse() : BASE64URL;
          const random = Array.from(
            { length },
            (_, i) => alphabet[(start + i) % alphabet.length],
          ).join('');
          assert.notEqual(keyWeakness(random), null, random);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('says why', () => {
    assert.match(keyWeakness('a'.repeat(36)) ?? '', /fewer than 16 distinct/);
    assert.match(keyWeakness('0123456789abcdef0123456789abcdef') ?? '', /pattern of 16/);
    assert.match(keyWeakness('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh') ?? '', /run/);
  });
});
