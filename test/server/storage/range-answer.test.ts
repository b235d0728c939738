import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { carriesRange, rangeHeader } from '../../../src/server/storage/s3/range-answer.js';

/**
 * An object of `size` bytes, a range a caller may ask of it (past its end too, `whole`
 * claimed rightly or not), and an answer a bucket could give: the whole object (200), or
 * some range of it (206, cut at the object's end as S3 cuts it), its head as sent.
 */
const cases = fc.integer({ min: 1, max: 10_000 }).chain((size) => {
  const offset = fc.oneof(fc.constantFrom(0, size - 1, size, size + 1), fc.nat(size + 1));
  const span = fc.tuple(offset, offset).map(([a, b]) => [Math.min(a, b), Math.max(a, b)]);
  return fc.record({
    size: fc.constant(size),
    asked: fc
      .tuple(span, fc.boolean())
      .map(([[start, end], whole]) => ({ start: start ?? 0, end: end ?? 0, whole })),
    given: fc.option(
      span.filter(([start]) => (start ?? 0) < size),
      { nil: null },
    ),
  });
});

describe('which bucket answers carry a range (range-answer.ts)', () => {
  it("accepts an answer exactly when its bytes are the range's", () => {
    fc.assert(
      fc.property(cases, ({ size, asked, given }) => {
        // What the answer's body is: offsets [first, last] of the object.
        const [first, last] = given
          ? [given[0] ?? 0, Math.min(given[1] ?? 0, size - 1)]
          : [0, size - 1];
        const head = given
          ? {
              status: 206,
              length: last - first + 1,
              contentRange: `bytes ${first}-${last}/${size}`,
            }
          : { status: 200, length: size, contentRange: null };
        const isTheRange = first === asked.start && last === asked.end;
        assert.equal(carriesRange(asked, head), isTheRange);
        // Unframed, the length is not known: never relayed.
        assert.equal(carriesRange(asked, { ...head, length: null }), false);
      }),
    );
  });

  it('refuses any other status, and asks the whole object without Range', () => {
    const range = { start: 0, end: 9 };
    for (const status of [204, 304, 404, 416, 500]) {
      assert.equal(
        carriesRange(range, { status, length: 10, contentRange: 'bytes 0-9/10' }),
        false,
      );
    }
    assert.equal(rangeHeader({ ...range, whole: true }), null);
    assert.equal(rangeHeader(range), 'bytes=0-9');
  });
});
