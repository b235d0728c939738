import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, configFromEnv, DEMO_ORIGINS } from '../../src/server/config.js';
import { MemoryRateLimiter } from '../../src/server/rate-limit.js';
import { choosePartSize, partLayout } from '../../src/server/records.js';

const MiB = 1024 * 1024;

describe('configuration from FILEHOST_* variables', () => {
  it('has the documented defaults', () => {
    const config = configFromEnv({});
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.apiPort, 8787);
    assert.equal(config.cdnPort, 8788);
    assert.equal(config.apiUrl, undefined);
    assert.match(config.dataDir, /\.filehost$/);
    assert.equal(config.rateLimitPerMinute, 600);
    assert.equal(config.uploadUrlTtlSeconds, 3600);
    assert.equal(config.allowedOrigins, undefined);
    assert.deepEqual(DEMO_ORIGINS, ['http://localhost:5173', 'http://127.0.0.1:5173']);
  });

  it('reads and normalizes values', () => {
    const config = configFromEnv({
      FILEHOST_API_URL: 'https://api.example.com/',
      FILEHOST_ALLOWED_ORIGINS: 'https://a.example.com, http://localhost:3000/',
      FILEHOST_PLAN: 'paid',
      FILEHOST_RATE_LIMIT: '5',
    });
    assert.equal(config.apiUrl, 'https://api.example.com');
    assert.deepEqual(config.allowedOrigins, ['https://a.example.com', 'http://localhost:3000']);
    assert.equal(config.plan, 'paid');
    assert.equal(config.rateLimitPerMinute, 5);
  });

  it('names the variable that is wrong', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ FILEHOST_API_PORT: 'abc' }, /FILEHOST_API_PORT/],
      [{ FILEHOST_API_PORT: '70000' }, /FILEHOST_API_PORT/],
      [{ FILEHOST_PLAN: 'gold' }, /FILEHOST_PLAN/],
      [{ FILEHOST_SECRET_KEY: 'pk_live_x' }, /FILEHOST_SECRET_KEY/],
      [{ FILEHOST_API_URL: 'ftp://x' }, /FILEHOST_API_URL/],
      [{ FILEHOST_ALLOWED_ORIGINS: 'https://a.test/path' }, /origin/],
      [{ FILEHOST_PART_SIZE: '1024' }, /FILEHOST_PART_SIZE/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => configFromEnv(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          return true;
        },
      );
    }
  });
});

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
