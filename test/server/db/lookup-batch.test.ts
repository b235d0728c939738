import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LookupBatch } from '../../../src/server/db/postgres/lookup-batch.js';

describe('LookupBatch', () => {
  it('fetches the distinct keys of one turn once, and answers each lookup its own value', async () => {
    const fetched: string[][] = [];
    const batch = new LookupBatch<string>(async (keys) => {
      fetched.push(keys);
      return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, `v:${key}`]));
    });
    const answers = await Promise.all(['a', 'b', 'a', 'missing'].map((key) => batch.get(key)));
    assert.deepEqual(answers, ['v:a', 'v:b', 'v:a', null]);
    assert.deepEqual(fetched, [['a', 'b', 'missing']]);
    // Asked after the first batch was sent: a fetch of its own.
    assert.equal(await batch.get('c'), 'v:c');
    assert.deepEqual(fetched, [['a', 'b', 'missing'], ['c']]);
  });

  it('fails every lookup of a batch whose fetch fails, and only that batch', async () => {
    let calls = 0;
    const batch = new LookupBatch<number>(async (keys) => {
      calls++;
      if (calls === 1) throw new Error('database gone');
      return new Map(keys.map((key) => [key, key.length]));
    });
    const failed = await Promise.allSettled([batch.get('x'), batch.get('yy')]);
    assert.deepEqual(
      failed.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    assert.equal(await batch.get('zzz'), 3);
  });
});
