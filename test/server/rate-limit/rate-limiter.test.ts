import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../../src/server/rate-limit/rate-limiter.js';

describe('rate limiter (token bucket)', () => {
  it('allows the capacity at once, then refills continuously', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(5, () => now);
    for (let index = 0; index < 5; index++) assert.equal(await limiter.take('k'), 0);
    assert.equal(await limiter.take('k'), 12);
    assert.equal(await limiter.take('other'), 0, 'buckets are per key');
    now += 12_000;
    assert.equal(await limiter.take('k'), 0);
    assert.ok((await limiter.take('k')) > 0);
    now += 60_000;
    await limiter.prune();
    for (let index = 0; index < 5; index++) assert.equal(await limiter.take('k'), 0);
  });
});
