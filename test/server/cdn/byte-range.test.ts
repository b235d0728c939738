import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseRange } from '../../../src/server/cdn/byte-range.js';

const size = fc.integer({ min: 1, max: 1_000_000 });
const position = fc.integer({ min: 0, max: 2_000_000 });

/** RFC 9110 §14.1.2-14.1.3 and §14.2, each as a property (fast-check, seeded on failure). */
describe('Range as RFC 9110 reads it', () => {
  it('a-b: the bytes from a to b, b cut at the end; a past the end is unsatisfiable', () => {
    fc.assert(
      fc.property(size, position, position, (length, a, extra) => {
        const b = a + extra;
        const answer = parseRange(`bytes=${a}-${b}`, length);
        if (a >= length) assert.deepEqual(answer, { kind: 'unsatisfiable' });
        else assert.deepEqual(answer, { kind: 'range', start: a, end: Math.min(b, length - 1) });
      }),
    );
  });

  it('a-: from a to the end', () => {
    fc.assert(
      fc.property(size, position, (length, a) => {
        const answer = parseRange(`bytes=${a}-`, length);
        if (a >= length) assert.deepEqual(answer, { kind: 'unsatisfiable' });
        else assert.deepEqual(answer, { kind: 'range', start: a, end: length - 1 });
      }),
    );
  });

  it('-n: the last n bytes, the whole file when n is longer; -0 is unsatisfiable', () => {
    fc.assert(
      fc.property(size, position, (length, n) => {
        const answer = parseRange(`bytes=-${n}`, length);
        if (n === 0) assert.deepEqual(answer, { kind: 'unsatisfiable' });
        else {
          assert.deepEqual(answer, {
            kind: 'range',
            start: Math.max(0, length - n),
            end: length - 1,
          });
        }
      }),
    );
  });

  it('ignores what it does not serve: last before first, other units, several ranges', () => {
    fc.assert(
      fc.property(size, position, fc.integer({ min: 1, max: 1000 }), (length, b, gap) => {
        assert.deepEqual(parseRange(`bytes=${b + gap}-${b}`, length), { kind: 'whole' });
      }),
    );
    for (const header of ['items=0-1', 'bytes=0-1,3-4', 'bytes=abc', 'bytes=-', 'bytes 0-1']) {
      assert.deepEqual(parseRange(header, 10), { kind: 'whole' }, header);
    }
  });

  it('never answers a range outside the file, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), size, (header, length) => {
        const answer = parseRange(`bytes=${header}`, length);
        if (answer.kind !== 'range') return;
        assert.ok(answer.start >= 0 && answer.start <= answer.end && answer.end < length);
      }),
    );
  });
});
