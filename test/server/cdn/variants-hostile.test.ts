// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import { SIZE_LADDER } from '../../../src/server/cdn/variants/variant-params.js';
import { bytesOfType } from '../../helpers/bytes.js';
import { bombPng, noiseJpeg } from '../../helpers/images.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { expectError, json, startTestService, type TestService } from '../../helpers/service.js';

const MiB = 1024 * 1024;

describe('CDN image variants under hostile images and bursts', () => {
  let t: TestService;

  const upload = async (body: Uint8Array, type: string, name: string) =>
    json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        body: new Uint8Array(body),
        headers: { 'Content-Type': type, 'X-Filename': encodeURIComponent(name) },
      }),
      201,
    );
  const stats = () => t.service.context.variants.encoder.stats;

  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('refuses a decompression bomb (a PNG claiming 100,000 x 100,000) from its header, without decoding', async () => {
    const bomb = await upload(await bombPng(100_000), 'image/png', 'bomb.png');
    const before = stats().encodes;
    const started = performance.now();
    const response = await fetch(`${bomb.url}?w=64`);
    const elapsed = performance.now() - started;
    const error = await expectError(response, 400, 'invalid_request');
    assert.match(error.message, /100000 x 100000 pixels/);
    assert.equal(stats().encodes, before, 'nothing decoded');
    // Milliseconds on an idle machine; the bound leaves room for a loaded one.
    assert.ok(elapsed < 1000, `answered in ${elapsed.toFixed(0)} ms`);
    // Just over the limit is refused too; the original itself is still served as it is.
    const over = await upload(await bombPng(10_001), 'image/png', 'over.png');
    await expectError(await fetch(`${over.url}?format=webp`), 400, 'invalid_request');
    assert.equal((await fetch(publicUrlOf(bomb))).status, 200);
  });

  it('answers 400 for a truncated JPEG and a damaged PNG, never 5xx, and keeps serving', async () => {
    const whole = await noiseJpeg(800, 600);
    const truncated = await upload(
      whole.subarray(0, Math.floor(whole.length * 0.6)),
      'image/jpeg',
      'cut.jpg',
    );
    await expectError(await fetch(`${truncated.url}?w=64`), 400, 'invalid_request');
    // PNG signature, then noise: recognised as PNG at upload, not decodable.
    const damaged = await upload(bytesOfType('image/png', 20_000, 3), 'image/png', 'bad.png');
    for (const query of ['w=64', 'format=webp', 'q=50']) {
      await expectError(await fetch(`${damaged.url}?${query}`), 400, 'invalid_request');
    }
    const good = await upload(await noiseJpeg(100, 100), 'image/jpeg', 'good.jpg');
    assert.equal((await fetch(`${good.url}?w=64`)).status, 200);
  });

  it('decodes at most N images at once (N = availableParallelism), the rest waiting in turn', async () => {
    const image = await upload(await noiseJpeg(1600, 1200), 'image/jpeg', 'queue.jpg');
    const encoder = t.service.context.variants.encoder;
    assert.equal(encoder.concurrency, availableParallelism());
    let queuedSeen = 0;
    const sampler = setInterval(() => {
      queuedSeen = Math.max(queuedSeen, stats().queued);
      assert.ok(stats().running <= encoder.concurrency);
    }, 2);
    const widths = SIZE_LADDER.slice(0, encoder.concurrency + 6);
    try {
      const answers = await Promise.all(widths.map((w) => fetch(`${image.url}?w=${w}&q=40`)));
      await Promise.all(answers.map((response) => response.arrayBuffer()));
      assert.deepEqual(
        answers.map((response) => response.status),
        widths.map(() => 200),
      );
    } finally {
      clearInterval(sampler);
    }
    assert.ok(stats().peakRunning <= encoder.concurrency, `peak ${stats().peakRunning}`);
    assert.ok(queuedSeen > 0, 'some waited for a turn');
  });

  it('a burst of 100 distinct variants neither runs memory up nor holds up plain files', async () => {
    const image = await upload(await noiseJpeg(2400, 1600), 'image/jpeg', 'burst.jpg');
    const small = await upload(bytesOfType('application/pdf', 4096, 9), 'application/pdf', 'a.pdf');
    assert.equal((await fetch(publicUrlOf(small))).status, 200);
    const queries = SIZE_LADDER.slice(0, 10).flatMap((w) =>
      [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((q) => `w=${w}&q=${q}&format=webp`),
    );
    assert.equal(new Set(queries).size, 100);
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const burst = Promise.all(
      queries.map(async (query) => {
        const response = await fetch(`${image.url}?${query}`);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    let burstDone = false;
    burst.then(
      () => {
        burstDone = true;
      },
      () => {
        burstDone = true;
      },
    );
    const plainTimes: number[] = [];
    let servedDuringQueue = 0;
    try {
      while (!burstDone) {
        const started = performance.now();
        const response = await fetch(publicUrlOf(small));
        await response.arrayBuffer();
        assert.equal(response.status, 200);
        plainTimes.push(performance.now() - started);
        if (stats().queued > 0) servedDuringQueue++;
      }
      assert.deepEqual(await burst, Array(100).fill(200));
    } finally {
      clearInterval(sampler);
    }
    plainTimes.sort((a, b) => a - b);
    const p99 = plainTimes[Math.floor(plainTimes.length * 0.99)] ?? 0;
    assert.ok(
      servedDuringQueue >= 10,
      `plain files answered while variants waited: ${servedDuringQueue}`,
    );
    // Loose bounds for a shared machine: what they catch is a plain GET queued behind
    // decodes (seconds) and decodes without a limit (a 2400 x 1600 image is 11 MiB decoded,
    // 100 at once over a gigabyte).
    assert.ok(p99 < 1000, `plain p99 ${p99.toFixed(1)} ms over ${plainTimes.length}`);
    assert.ok(peak - baseline < 400 * MiB, `RSS grew ${((peak - baseline) / MiB).toFixed(0)} MiB`);
  });
});
