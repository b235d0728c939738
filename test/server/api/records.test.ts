import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { choosePartSize, partLayout } from '../../../src/server/rules/records.js';

const MiB = 1024 * 1024;

describe('part layout', () => {
  it('gives one part up to the part size, then full parts and a shorter last one', () => {
    assert.deepEqual(partLayout(10, 5 * MiB), [{ partNumber: 1, offset: 0, size: 10 }]);
    assert.deepEqual(partLayout(5 * MiB, 5 * MiB), [{ partNumber: 1, offset: 0, size: 5 * MiB }]);
    assert.deepEqual(partLayout(5 * MiB + 1, 5 * MiB), [
      { partNumber: 1, offset: 0, size: 5 * MiB },
      { partNumber: 2, offset: 5 * MiB, size: 1 },
    ]);
  });

  it('never issues more than 10,000 parts', () => {
    const size = 5 * 1024 * MiB;
    for (const configured of [5 * MiB, 8 * MiB]) {
      const partSize = choosePartSize(size, configured);
      assert.ok(partSize >= configured);
      assert.ok(partLayout(size, partSize).length <= 10_000);
    }
    assert.equal(choosePartSize(100 * 1024 * MiB, 5 * MiB), 11 * MiB);
  });
});
