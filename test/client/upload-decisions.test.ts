// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../src/client/api-error.js';
import { Batcher, eachAlone } from '../../src/client/batcher.js';
import { missingParts, needsFreshUrls, takeFreshUrls } from '../../src/client/part-plan.js';
import { backoffMs, retryDelayMs } from '../../src/client/retry.js';
import { isTransient, isTransientStatus } from '../../src/client/transient.js';
import {
  claimedParts,
  fileRetryDelayMs,
  planFromSign,
  planFromState,
  type UploadStep,
} from '../../src/client/upload-plan.js';

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

  it('for a whole file: the same statuses, an expired URL at once, a refused part URL once', () => {
    const error = (status: number, code: ConstructorParameters<typeof ApiError>[1]) =>
      new ApiError(status, code, '');
    const retried = (e: unknown, step: UploadStep, attempt = 0) =>
      fileRetryDelayMs(e, step, attempt, 3) !== null;
    assert.equal(retried(ApiError.network(null), 'upload'), true);
    assert.equal(retried(error(429, 'rate_limited'), 'sign'), true);
    assert.equal(retried(error(503, 'internal_error'), 'complete'), true);
    assert.equal(fileRetryDelayMs(error(403, 'url_expired'), 'upload', 2, 3), 0);
    // A 403 on a part PUT (S3's words for an expired URL) gets one try with fresh URLs.
    assert.equal(retried(error(403, 'unexpected_response'), 'upload', 0), true);
    assert.equal(retried(error(403, 'unexpected_response'), 'upload', 1), false);
    assert.equal(retried(error(403, 'invalid_key'), 'sign', 0), false);
    assert.equal(retried(error(413, 'too_large'), 'sign'), false);
    // Never past the limit, and never what is not a failure of the service's.
    assert.equal(retried(error(503, 'internal_error'), 'upload', 3), false);
    assert.equal(retried(new Error('no key set'), 'sign'), false);
    assert.equal(
      fileRetryDelayMs(new ApiError(429, 'rate_limited', '', { retryAfter: 4 }), 'sign', 0, 3),
      4000,
    );
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
    const plan = planFromState(
      {
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
      } as never,
      'token-1',
    );
    assert.deepEqual(
      missingParts(plan).map((part) => [part.partNumber, part.url, part.headers]),
      [
        [2, 'https://x/2', { A: '1' }],
        [3, 'https://x/3', {}],
      ],
    );
  });
});

describe('fresh URLs and what complete is told', () => {
  const signed = () =>
    planFromSign({
      id: 'u2',
      expiresAt: 1,
      partSize: 5,
      parts: [1, 2].map((partNumber) => ({
        partNumber,
        size: 5,
        method: 'PUT',
        url: `https://old/${partNumber}`,
        headers: { Old: '1' },
      })),
    } as never);

  it('takes fresh URLs into a plan, keeping the ETags of parts already sent', () => {
    const plan = signed();
    (plan.parts[0] as { etag: string | null }).etag = '"kept"';
    takeFreshUrls(plan, {
      id: 'u2',
      parts: [
        { partNumber: 1, size: 5, etag: '"kept"', url: 'https://new/1', headers: { New: '1' } },
        { partNumber: 2, size: 5, etag: null, url: 'https://new/2' },
      ],
    } as never);
    assert.deepEqual(
      plan.parts.map((part) => [part.url, part.headers, part.etag]),
      [
        ['https://new/1', { New: '1' }, '"kept"'],
        ['https://new/2', { Old: '1' }, null],
      ],
    );
  });

  it('claims every part once each has an ETag, and nothing before', () => {
    const plan = signed();
    assert.equal(claimedParts(plan), undefined);
    for (const part of plan.parts) part.etag = `"e${part.partNumber}"`;
    assert.deepEqual(claimedParts(plan), [
      { partNumber: 1, etag: '"e1"' },
      { partNumber: 2, etag: '"e2"' },
    ]);
  });

  it('asks for fresh URLs after a 403 or no answer, never after another status', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 599 }), (status) => {
        assert.equal(needsFreshUrls(status), status === 403 || status === 0);
      }),
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

  it('sends a burst in growing calls from `first`, and starts over after a quiet window', async () => {
    const calls: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls.push(items);
        return items.map((n) => ({ status: 'fulfilled' as const, value: n }));
      },
      { windowMs: 10, max: 50, first: 2 },
    );
    const burst = Array.from({ length: 100 }, (_, i) => i);
    const sent = burst.map((n) => batcher.add(n));
    // Each call goes as soon as it is full, before the window ends.
    assert.deepEqual(calls, [[0, 1], burst.slice(2, 10), burst.slice(10, 42), burst.slice(42, 92)]);
    assert.deepEqual(await Promise.all(sent), burst);
    assert.deepEqual(
      calls.map((items) => items.length),
      [2, 8, 32, 50, 8],
      'each full call up to four times the one before, at most `max`; the rest at the window',
    );
    // The burst is over: the next ones start small again.
    await Promise.all([100, 101, 102].map((n) => batcher.add(n)));
    assert.deepEqual(calls.slice(5), [[100, 101], [102]]);
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
