// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
// @runs-alone: it measures plain files' p99 latency while AVIF encodes fill both cores, against idle
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UploadResponse } from '../../../src/api/types.js';
import { ImageVariants } from '../../../src/server/variants/stored-variant.js';
import {
  type VariantBudget,
  VariantEncoder,
} from '../../../src/server/variants/variant-encoder.js';
import { SIZE_LADDER } from '../../../src/server/variants/variant-params.js';
import { bytesOfType } from '../../helpers/bytes.js';
import { bombPng, noiseJpeg, solidImage } from '../../helpers/images.js';
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
    // This suite tests the CDN's own defences, so it stores what location stripping would
    // refuse at upload (`metadata_unreadable`): an SVG behind an AVIF signature, say.
    t = await startTestService({ FILEHOST_STRIP_METADATA: 'none' });
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

  /** The service's variants with another budget (the real stores; the test's encoder). */
  const withBudget = (budget: Partial<VariantBudget>) => {
    const ctx = t.service.context;
    const variants = new ImageVariants({
      blobs: ctx.blobs,
      db: ctx.db,
      encoder: new VariantEncoder(budget),
      trustMemory: false,
    });
    ctx.variants = variants;
    return variants.encoder;
  };
  const storedVariants = async (id: string) =>
    (await t.stored()).filter((path) => path.includes('derived/') && path.includes(`${id}/`));
  /** Waits until the encoder has nothing running (an abandoned job ends in its own time). */
  const idle = async (encoder: VariantEncoder) => {
    while (encoder.stats.running > 0 || encoder.stats.queued > 0) await sleep(50);
  };
  /** A 24 MP photo-sized JPEG of noise (the worst case for every encoder), made once. */
  let hugeJpeg: Promise<Buffer> | undefined;
  const huge = () => {
    hugeJpeg ??= noiseJpeg(6000, 4000, 95);
    return hugeJpeg;
  };
  let defaultVariants: ImageVariants;
  before(() => {
    defaultVariants = t.service.context.variants;
  });
  afterEach(() => {
    t.service.context.variants = defaultVariants;
  });

  it('decodes at most 2 images at once, the rest waiting in turn', async () => {
    const image = await upload(await noiseJpeg(1600, 1200), 'image/jpeg', 'queue.jpg');
    const encoder = t.service.context.variants.encoder;
    assert.equal(encoder.concurrency, 2);
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

  it('answers 503 with Retry-After when no turn comes in time or the queue is full; nothing half-made is kept', async () => {
    const encoder = withBudget({ concurrency: 1, queueWaitMs: 300, maxQueued: 3 });
    const image = await upload(await noiseJpeg(3000, 2000, 95), 'image/jpeg', 'slow.jpg');
    const started = performance.now();
    const answers = await Promise.all(
      [100, 95, 90, 85, 80, 75].map(async (q) => {
        const response = await fetch(`${image.url}?w=2048&format=webp&q=${q}`);
        return { response, body: await response.text(), at: performance.now() - started };
      }),
    );
    const statuses = answers.map(({ response }) => response.status);
    assert.ok(statuses.includes(200), `one was made: ${statuses.join(',')}`);
    const refused = answers.filter(({ response }) => response.status !== 200);
    assert.ok(refused.length >= 3, `refused: ${statuses.join(',')}`);
    for (const { response, body, at } of refused) {
      assert.equal(response.status, 503, body);
      assert.equal(response.headers.get('retry-after'), '10');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(JSON.parse(body).error.code, 'unavailable');
      // Queue full: at once; waited: about the wait, not the encodes before it.
      assert.ok(at < 300 + 2000, `answered after ${at.toFixed(0)} ms`);
    }
    assert.ok(encoder.stats.refused >= 3);
    await idle(encoder);
    assert.equal(
      (await storedVariants(image.id)).length,
      statuses.filter((status) => status === 200).length,
    );
  });

  for (const format of ['webp', 'avif'] as const) {
    it(`abandons a ${format} encode past its run time: 503 at the deadline, nothing stored`, async () => {
      const encoder = withBudget({ runMs: 1000 });
      const image = await upload(await huge(), 'image/jpeg', 'huge.jpg');
      // The heaviest variant each format may be: WebP at 4096 px, AVIF at the cap.
      const query = format === 'webp' ? 'w=4096&format=webp&q=100' : 'w=2048&format=avif&q=100';
      const started = performance.now();
      const response = await fetch(`${image.url}?${query}`);
      const elapsed = performance.now() - started;
      await expectError(response, 503, 'unavailable', { retryAfter: 10 });
      assert.equal(response.headers.get('retry-after'), '10');
      assert.equal(encoder.stats.abandoned, 1);
      // At the deadline, with room for reading the 24 MP original and a loaded machine.
      assert.ok(elapsed < 1000 + 1500, `answered after ${elapsed.toFixed(0)} ms`);
      await idle(encoder);
      assert.deepEqual(await storedVariants(image.id), [], 'nothing of it stored');
      // The service makes the next one as usual.
      const next = await upload(await noiseJpeg(64, 64), 'image/jpeg', 'next.jpg');
      assert.equal((await fetch(`${next.url}?w=32&format=${format}`)).status, 200);
    });
  }

  it('never rasterises an SVG: one behind an AVIF signature is 400 at once', async () => {
    // Recognised as AVIF from its first bytes; an image library sniffing for SVG would render
    // the turbulence (seconds of CPU at 2000 x 2000).
    const polyglot = Buffer.from(
      '<!--ftypavif--><svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="10"/></filter><rect width="2000" height="2000" filter="url(#f)"/></svg>',
    );
    const file = await upload(polyglot, 'image/avif', 'p.avif');
    assert.equal(file.type, 'image/avif', 'recognised as AVIF');
    const before = stats().encodes;
    for (const query of ['w=64', 'format=webp', 'w=2048&format=png']) {
      const started = performance.now();
      const error = await expectError(await fetch(`${file.url}?${query}`), 400, 'invalid_request');
      const elapsed = performance.now() - started;
      assert.match(error.message, /not an image|does not decode/);
      // Rasterised, the turbulence took 7.5 s; refused, milliseconds (a loaded machine and the
      // scale deployment's stores give it room).
      assert.ok(elapsed < 2000, `answered in ${elapsed.toFixed(0)} ms`);
    }
    assert.equal(stats().encodes, before, 'nothing decoded');
    // A real SVG: images only.
    const svg = await upload(polyglot.subarray(15), 'image/svg+xml', 'x.svg');
    await expectError(await fetch(`${svg.url}?w=64`), 400, 'invalid_request');
  });

  it('refuses bytes that decode as another type than the one recognised', async () => {
    // A GIF's signature, then a PNG: recognised as GIF, and libvips' GIF decoder refuses it.
    const png = await solidImage('png', 32, 32);
    const file = await upload(
      Buffer.concat([Buffer.from('GIF89a'), png]),
      'image/gif',
      'mixed.gif',
    );
    assert.equal(file.type, 'image/gif');
    await expectError(await fetch(`${file.url}?w=16`), 400, 'invalid_request');
  });

  it('keeps plain files at their usual latency while 8 heavy variants are made (p99 vs idle)', async (context) => {
    const image = await upload(await huge(), 'image/jpeg', 'heavy.jpg');
    const small = await upload(bytesOfType('application/pdf', 1024, 9), 'application/pdf', 'a.pdf');
    // By address: a name would be looked up for every new connection on libuv's thread pool,
    // which the encodes share (2 of its 4 threads), so the client's own lookups would queue
    // behind the service's file work and be counted as the service's latency.
    const plain = publicUrlOf(small).replace('//localhost:', '//127.0.0.1:');
    // Open loop, a request every 25 ms whatever the answers before it, each timed from when
    // it was due (as wrk2 does): a stall of the event loop (the client shares it) delays
    // every request due meanwhile, so it shows in the p99 instead of as one slow sample. (A
    // rate the service keeps up with on a loaded machine, at scale too: past it, the backlog
    // would measure the load rather than the latency.)
    const latencies = async (until: () => boolean) => {
      const started = performance.now();
      const times: number[] = [];
      const inFlight = new Set<Promise<void>>();
      for (let index = 0; !until(); index++) {
        const due = started + index * 25;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        // Catching up after a stall: a few at once, not a flood of connections.
        while (inFlight.size >= 8) await Promise.race(inFlight);
        const request: Promise<void> = fetch(plain).then(async (response) => {
          await response.arrayBuffer();
          assert.equal(response.status, 200);
          times.push(performance.now() - due);
          inFlight.delete(request);
        });
        inFlight.add(request);
      }
      await Promise.all(inFlight);
      return times;
    };
    await (await fetch(plain)).arrayBuffer();
    const quietEnd = performance.now() + 4000;
    const quiet = await latencies(() => performance.now() > quietEnd);
    let done = false;
    const heavy = Promise.all(
      [100, 95, 90, 85, 80, 75, 70, 65].map(async (q) => {
        const response = await fetch(`${image.url}?w=2048&format=avif&q=${q}`);
        await response.arrayBuffer();
        return response.status;
      }),
    ).finally(() => {
      done = true;
    });
    const busy = await latencies(() => done);
    const statuses = await heavy;
    for (const status of statuses) assert.ok(status === 200 || status === 503, String(status));
    const p99 = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] as number;
    };
    const [idleP99, busyP99] = [p99(quiet), p99(busy)];
    const note = `p99 ${idleP99.toFixed(2)} ms idle (${quiet.length}), ${busyP99.toFixed(2)} ms under 8 AVIF encodes (${busy.length}); statuses ${statuses.join(',')}`;
    context.diagnostic(note);
    assert.ok(busy.length >= 40, `plain files answered meanwhile: ${note}`);
    // Generous for a shared machine (other sessions' work on its 2 cores moved the idle p99
    // from 36 ms to 1.1 s between runs, and the p99 under the encodes from 260 ms to 1.3 s),
    // and still below what encoding on the event loop gives: every plain GET due during an
    // encode waits for its end, a second or more (checked by putting a 1.5 s busy loop in
    // the encoder's job: p99 13.5 s against 585 ms idle).
    assert.ok(busyP99 < Math.max(10 * idleP99, 1000), note);
  });

  it('a burst of 100 distinct variants is answered, made or 503, without running memory up or holding up plain files', async () => {
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
      const statuses = await burst;
      for (const status of statuses) assert.ok(status === 200 || status === 503, String(status));
      assert.ok(statuses.includes(200), statuses.join(','));
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
