import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DEFAULT_FIT,
  DEFAULT_QUALITY,
  FITS,
  FORMATS,
  ladderStep,
  parseVariantParams,
  SIZE_LADDER,
} from '../../../../src/server/variants/variant-params.js';

const RUNS = { numRuns: 500 };

/** A query as a browser would send it. */
const query = (entries: [string, string][]) => new URLSearchParams(entries);

describe('parseVariantParams', () => {
  it('asks for nothing without an image parameter, whatever else the query holds', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string().filter((name) => !['w', 'h', 'fit', 'format', 'q'].includes(name)),
            fc.string(),
          ),
        ),
        (entries) => {
          assert.deepEqual(parseVariantParams(query(entries)), { kind: 'original' });
        },
      ),
      RUNS,
    );
  });

  it('rounds every size from 1 to 4096 up to the next step of the ladder', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4096 }), fc.constantFrom('w', 'h'), (size, name) => {
        const parsed = parseVariantParams(query([[name, String(size)]]));
        assert.equal(parsed.kind, 'variant');
        if (parsed.kind !== 'variant') return;
        const step = name === 'w' ? parsed.params.width : parsed.params.height;
        assert.ok(step !== null && (SIZE_LADDER as readonly number[]).includes(step));
        assert.ok(step >= size, 'never below what was asked');
        const below = SIZE_LADDER[SIZE_LADDER.indexOf(step as (typeof SIZE_LADDER)[number]) - 1];
        assert.ok(below === undefined || below < size, 'the smallest step that holds it');
      }),
      RUNS,
    );
    assert.deepEqual(
      [1, 16, 17, 640, 641, 1081, 4095, 4096].map(ladderStep),
      [16, 16, 32, 640, 750, 1200, 4096, 4096],
    );
  });

  it('rounds q up to a multiple of 5 and keeps the defaults otherwise', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), (q) => {
        const parsed = parseVariantParams(query([['q', String(q)]]));
        assert.ok(parsed.kind === 'variant');
        assert.equal(parsed.params.quality % 5, 0);
        assert.ok(parsed.params.quality >= q && parsed.params.quality - q < 5);
        assert.equal(parsed.params.fit, DEFAULT_FIT);
        assert.equal(parsed.params.format, null);
        assert.equal(parsed.params.width, null);
      }),
      RUNS,
    );
    const plain = parseVariantParams(query([['w', '10']]));
    assert.ok(plain.kind === 'variant' && plain.params.quality === DEFAULT_QUALITY);
  });

  it('accepts every fit and format by name, and nothing else', () => {
    for (const fit of FITS) {
      assert.equal(parseVariantParams(query([['fit', fit]])).kind, 'variant');
    }
    for (const format of FORMATS) {
      assert.equal(parseVariantParams(query([['format', format]])).kind, 'variant');
    }
    fc.assert(
      fc.property(
        fc.constantFrom('fit', 'format'),
        fc.string().filter((value) => ![...FITS, ...FORMATS].includes(value as never)),
        (name, value) => {
          assert.equal(parseVariantParams(query([[name, value]])).kind, 'invalid');
        },
      ),
      RUNS,
    );
  });

  it('refuses any size or quality that is not a plain decimal in range', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('w', 'h', 'q'),
        fc.oneof(
          fc.string(),
          fc.integer({ min: -100_000, max: 0 }).map(String),
          fc.integer({ min: 4097, max: 10_000_000 }).map(String),
          fc.double().map(String),
          fc.integer({ min: 1, max: 99 }).map((n) => ` ${n}`),
          fc.integer({ min: 1, max: 99 }).map((n) => `+${n}`),
        ),
        (name, value) => {
          const inRange = /^[0-9]+$/.test(value) && Number(value) >= 1;
          const max = name === 'q' ? 100 : 4096;
          fc.pre(!(inRange && Number(value) <= max && value.length <= 5));
          const parsed = parseVariantParams(query([[name, value]]));
          assert.equal(parsed.kind, 'invalid', `${name}=${JSON.stringify(value)}`);
        },
      ),
      RUNS,
    );
  });

  it('refuses a parameter given twice, and ignores exp and sig beside valid ones', () => {
    assert.equal(
      parseVariantParams(
        query([
          ['w', '1'],
          ['w', '1'],
        ]),
      ).kind,
      'invalid',
    );
    const signed = parseVariantParams(
      query([
        ['w', '300'],
        ['exp', '1700000000'],
        ['sig', 'x'],
      ]),
    );
    assert.deepEqual(signed, {
      kind: 'variant',
      params: { width: 384, height: null, fit: 'inside', format: null, quality: 75 },
    });
    // The framework's parsed query object reads the same.
    assert.deepEqual(parseVariantParams({ w: '300', exp: '1', sig: 'x' }), signed);
    assert.equal(parseVariantParams({ w: ['1', '2'] }).kind, 'invalid');
  });
});
