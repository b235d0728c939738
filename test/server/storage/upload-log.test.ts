import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { replayLog } from '../../../src/server/storage/local-disk/upload-log.js';

const manifest = { size: 100, partSize: 10, contentType: 'text/plain' };

const operation = fc.oneof(
  fc.record({
    part: fc.integer({ min: 1, max: 10 }),
    size: fc.integer({ min: 1, max: 10 }),
    etag: fc.stringMatching(/^[0-9a-f]{1,8}$/).map((hex) => `"${hex}"`),
  }),
  fc.record({ clear: fc.integer({ min: 1, max: 10 }) }),
);

/** What a log of these operations must say: the last write of each part, unless cleared since. */
function model(operations: ({ part: number; size: number; etag: string } | { clear: number })[]) {
  const parts = new Map<number, { partNumber: number; size: number; etag: string }>();
  for (const op of operations) {
    if ('clear' in op) parts.delete(op.clear);
    else parts.set(op.part, { partNumber: op.part, size: op.size, etag: op.etag });
  }
  return parts;
}

const serialize = (operations: unknown[]) =>
  [manifest, ...operations].map((line) => `${JSON.stringify(line)}\n`).join('');

/** The local store's upload log: property-based (fast-check), seeded so a failure replays. */
describe('the local store upload log', () => {
  it('replays to the last write of each part, clears included', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const state = replayLog(serialize(operations));
        assert.deepEqual(state?.manifest, manifest);
        assert.deepEqual(state?.parts, model(operations));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a log cut anywhere by a crash as the lines that were whole', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 20 }), fc.nat(), (operations, cutAt) => {
        const text = serialize(operations);
        const cut = text.slice(0, cutAt % (text.length + 1));
        const whole = cut.split('\n').length - 1; // lines that ended with their newline
        const state = replayLog(cut);
        if (whole === 0) {
          assert.equal(state, null);
          return;
        }
        assert.deepEqual(state?.parts, model(operations.slice(0, whole - 1)));
      }),
      { numRuns: 300 },
    );
  });
});
