import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checkLink,
  LINK_PARAMETERS,
  type LinkParameter,
  type LinkParameters,
  linkKey,
  signedCacheControl,
  signedLinkQuery,
} from '../../../src/server/rules/signed-link.js';

/** Seeded, so a failure replays; fast-check prints the seed and the smallest case. */
const RUNS = { seed: 3301, numRuns: 500 };

const KEY = linkKey(randomBytes(32));
const NOW = 1_800_000_000_000;
const EXP = NOW / 1000 + 3600;

const ids = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const values = fc.oneof(
  fc.integer({ min: 1, max: 4096 }).map(String),
  fc.constantFrom('cover', 'contain', 'inside', 'fill', 'auto', 'webp', 'avif', 'jpeg', '1'),
  fc.string({ maxLength: 12 }),
);
const parameterSets: fc.Arbitrary<LinkParameters> = fc.dictionary(
  fc.constantFrom(...LINK_PARAMETERS),
  values,
  { maxKeys: LINK_PARAMETERS.length },
);
const exps = fc.integer({ min: EXP, max: EXP + 7 * 24 * 3600 });

/** The query as a list of pairs, so a test can reorder, drop or add one. */
function pairs(query: string): [string, string][] {
  return [...new URLSearchParams(query)];
}
function joined(list: [string, string][]): string {
  return new URLSearchParams(list).toString();
}

describe('signed CDN links', () => {
  it('verifies what it signed, in any order of its parameters', () => {
    fc.assert(
      fc.property(ids, parameterSets, exps, fc.integer(), (id, parameters, exp, seed) => {
        const query = signedLinkQuery(KEY, id, parameters, exp);
        const shuffled = pairs(query).sort(
          (a, b) => ((seed ^ a[0].charCodeAt(0)) % 7) - ((seed ^ b[0].charCodeAt(0)) % 7),
        );
        for (const search of [query, joined(shuffled), joined(pairs(query).reverse())]) {
          assert.deepEqual(checkLink(KEY, id, search, NOW), {
            kind: 'signed',
            parameters: { ...parameters },
            exp,
          });
        }
      }),
      RUNS,
    );
  });

  it('breaks on any change to the id, a parameter, or exp', () => {
    const change = fc.oneof(
      fc.record({ kind: fc.constant('id' as const), id: ids }),
      fc.record({
        kind: fc.constant('parameter' as const),
        name: fc.constantFrom(...LINK_PARAMETERS),
        value: fc.option(values, { nil: undefined }),
      }),
      fc.record({ kind: fc.constant('exp' as const), exp: exps }),
    );
    fc.assert(
      fc.property(ids, parameterSets, exps, change, (id, parameters, exp, altered) => {
        const query = signedLinkQuery(KEY, id, parameters, exp);
        const sig = new URLSearchParams(query).get('sig') as string;
        let search: string;
        let askedId = id;
        if (altered.kind === 'id') {
          fc.pre(altered.id !== id);
          askedId = altered.id;
          search = query;
        } else if (altered.kind === 'exp') {
          fc.pre(altered.exp !== exp);
          search = joined([
            ...pairs(query).filter(([name]) => name !== 'exp' && name !== 'sig'),
            ['exp', String(altered.exp)],
            ['sig', sig],
          ]);
        } else {
          fc.pre(parameters[altered.name] !== altered.value);
          const changed: LinkParameters = { ...parameters, [altered.name]: altered.value };
          if (altered.value === undefined) delete changed[altered.name];
          search = joined([
            ...Object.entries(changed).map(([name, value]) => [name, value] as [string, string]),
            ['exp', String(exp)],
            ['sig', sig],
          ]);
        }
        assert.deepEqual(checkLink(KEY, askedId, search, NOW), { kind: 'invalid' });
      }),
      RUNS,
    );
  });

  it('breaks on any change to the signature, and under another key', () => {
    fc.assert(
      fc.property(ids, parameterSets, fc.nat(42), fc.nat(63), (id, parameters, at, by) => {
        const query = signedLinkQuery(KEY, id, parameters, EXP);
        const sig = new URLSearchParams(query).get('sig') as string;
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const swapped = alphabet[(alphabet.indexOf(sig[at] as string) + 1 + (by % 63)) % 64];
        const forged = sig.slice(0, at) + swapped + sig.slice(at + 1);
        const search = query.replace(`sig=${sig}`, `sig=${forged}`);
        assert.deepEqual(checkLink(KEY, id, search, NOW), { kind: 'invalid' });
        const otherKey = linkKey(randomBytes(32));
        assert.deepEqual(checkLink(otherKey, id, query, NOW), { kind: 'invalid' });
      }),
      { ...RUNS, numRuns: 200 },
    );
  });

  it('refuses a signed link with an added unknown or repeated parameter, or a malformed exp', () => {
    const query = signedLinkQuery(KEY, 'abc', { w: '640' }, EXP);
    const sig = new URLSearchParams(query).get('sig') as string;
    for (const search of [
      `${query}&utm_source=mail`,
      `x=1&${query}`,
      `${query}&w=640`,
      `${query}&w=1280`,
      `${query}&exp=${EXP}`,
      `${query}&sig=${sig}`,
      `w=640&sig=${sig}`,
      `w=640&exp=0${EXP}&sig=${sig}`,
      `w=640&exp=${EXP}.0&sig=${sig}`,
      `w=640&exp=+${EXP}&sig=${sig}`,
      `w=640&exp=${EXP}&sig=${sig}=`,
      `w=640&exp=${EXP}&sig=`,
    ]) {
      assert.deepEqual(checkLink(KEY, 'abc', search, NOW), { kind: 'invalid' }, search);
    }
  });

  it('is unsigned without sig, and expired from exp on (checked after the signature)', () => {
    assert.deepEqual(checkLink(KEY, 'abc', '', NOW), { kind: 'unsigned' });
    assert.deepEqual(checkLink(KEY, 'abc', 'w=100&exp=5', NOW), { kind: 'unsigned' });
    const query = signedLinkQuery(KEY, 'abc', {}, EXP);
    assert.equal(checkLink(KEY, 'abc', query, EXP * 1000 - 1).kind, 'signed');
    assert.deepEqual(checkLink(KEY, 'abc', query, EXP * 1000), { kind: 'expired', exp: EXP });
    // Expired and altered: altered.
    assert.deepEqual(checkLink(KEY, 'abd', query, EXP * 1000 + 1), { kind: 'invalid' });
  });

  it('derives its key from the signing secret: one secret, one link key, never the secret itself', () => {
    const secret = randomBytes(32);
    assert.deepEqual(linkKey(secret), linkKey(Buffer.from(secret)));
    assert.notDeepEqual(linkKey(secret), secret);
    assert.notDeepEqual(linkKey(secret), linkKey(randomBytes(32)));
  });

  it('lets its holder cache the answer only until it expires', () => {
    assert.equal(signedCacheControl(EXP, NOW), 'private, max-age=3600');
    assert.equal(signedCacheControl(EXP, NOW + 1500), 'private, max-age=3598');
    assert.equal(signedCacheControl(EXP, EXP * 1000 + 5), 'private, max-age=0');
  });

  it('puts the known parameters in a fixed order, then exp and sig', () => {
    const parameters: Record<LinkParameter, string> = {
      w: '1',
      q: '2',
      h: '3',
      format: 'png',
      fit: 'fill',
      download: '1',
    };
    const names = pairs(signedLinkQuery(KEY, 'abc', parameters, EXP)).map(([name]) => name);
    assert.deepEqual(names, [...LINK_PARAMETERS, 'exp', 'sig']);
  });
});
