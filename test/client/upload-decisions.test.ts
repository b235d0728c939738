import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ApiError, isTransient, isTransientStatus } from '../../src/client/api-error.js';
import { Batcher, eachAlone } from '../../src/client/batcher.js';
import { backoffMs, retryDelayMs } from '../../src/client/retry.js';
import { isTransientFailure, localFailure } from '../../src/elements/file-uploader/failure.js';
import { missingParts, planFromState } from '../../src/elements/file-uploader/upload-plan.js';

/**
 * The decisions of the upload engine that are not about the DOM: which failures are worth
 * another try, how long to wait, which parts a resume sends, how calls are batched. The
 * browser tests prove them through the element; these say exactly where a rule lives.
 */
describe('which failures are retried', () => {
  it('one rule for statuses: no answer, 408, 429 and 5xx; never another 4xx', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 599 }), (status) => {
        const expected = status === 0 || status === 408 || status === 429 || status >= 500;
        assert.equal(isTransientStatus(status), expected);
        assert.equal(isTransient(new ApiError(status, 'internal_error', '')), expected);
      }),
    );
    assert.equal(isTransient(new Error('not from the API')), false);
  });

  it('for a file: the same statuses, plus a lost connection and an expired URL', () => {
    const failure = (code: Parameters<typeof localFailure>[0], status: number) => ({
      ...localFailure(code, 'upload', ''),
      status,
    });
    assert.equal(isTransientFailure(failure('network_error', 0)), true);
    assert.equal(isTransientFailure(failure('url_expired', 403)), true);
    assert.equal(isTransientFailure(failure('rate_limited', 429)), true);
    assert.equal(isTransientFailure(failure('internal_error', 503)), true);
    assert.equal(isTransientFailure(failure('invalid_signature', 403)), false);
    assert.equal(isTransientFailure(failure('too_large', 413)), false);
    // Refused before any request (no key, a secret key): trying again cannot help.
    assert.equal(isTransientFailure(failure('missing_auth', 0)), false);
  });
});

describe('how long to wait', () => {
  it("takes the service's Retry-After when it gave one", () => {
    assert.equal(backoffMs(7, 3), 7000);
    assert.equal(retryDelayMs(new ApiError(429, 'rate_limited', '', { retryAfter: 2 }), 0), 2000);
  });

  it('otherwise backs off exponentially with jitter, at most 30 s', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 2000 }),
        (attempt, base) => {
          const delay = backoffMs(null, attempt, base);
          const full = base * 2 ** attempt;
          assert.ok(delay <= 30_000);
          assert.ok(delay >= Math.min(30_000, full / 2) - 1e-9, `${delay} < half of ${full}`);
          assert.ok(delay <= full);
        },
      ),
    );
  });
});

describe('what a resume sends', () => {
  it('only the parts the service does not hold, with the fresh URLs it gave', () => {
    const plan = planFromState({
      id: 'u1',
      status: 'pending',
      expiresAt: 1,
      partSize: 5,
      parts: [
        { partNumber: 1, size: 5, etag: '"a"' },
        {
          partNumber: 2,
          size: 5,
          etag: null,
          url: 'https://x/2',
          method: 'PUT',
          headers: { A: '1' },
        },
        { partNumber: 3, size: 2, etag: null, url: 'https://x/3', method: 'PUT', headers: {} },
      ],
    } as never);
    assert.deepEqual(
      missingParts(plan).map((part) => [part.partNumber, part.url, part.headers]),
      [
        [2, 'https://x/2', { A: '1' }],
        [3, 'https://x/3', {}],
      ],
    );
  });
});

describe('batching calls made close together', () => {
  it('sends what arrives within the window as one call, each caller getting its own result', async () => {
    const calls: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls.push(items);
        return items.map((n) =>
          n < 0
            ? { status: 'rejected' as const, reason: new Error(`bad ${n}`) }
            : { status: 'fulfilled' as const, value: n * 10 },
        );
      },
      { windowMs: 20, max: 3 },
    );
    const results = await Promise.allSettled([1, 2, -3, 4].map((n) => batcher.add(n)));
    assert.deepEqual(calls, [[1, 2, -3], [4]], 'at most 3 per call, the rest in the next');
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [10, 20, 'bad -3', 40],
    );
    // Later calls form a batch of their own.
    assert.equal(await batcher.add(5), 50);
    assert.deepEqual(calls.at(-1), [5]);
  });

  it('fails every caller of a batch whose call fails as a whole', async () => {
    const batcher = new Batcher<number, number>(
      async () => {
        throw new ApiError(503, 'unavailable', '');
      },
      { windowMs: 5, max: 10 },
    );
    const results = await Promise.allSettled([1, 2].map((n) => batcher.add(n)));
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && (r.reason as ApiError).code),
      ['unavailable', 'unavailable'],
    );
  });

  it('runs items alone when asked, each settling on its own', async () => {
    const settled = await eachAlone([1, 2], async (n) => {
      if (n === 2) throw new Error('two');
      return n;
    });
    assert.deepEqual(
      settled.map((r) => r.status),
      ['fulfilled', 'rejected'],
    );
  });
});
