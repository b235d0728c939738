// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import type { UploadResponse, Usage } from '../../../src/api/types.js';
import type { BlobStore } from '../../../src/server/storage/blob-store.js';
import { TOUCH_INTERVAL_MS } from '../../../src/server/variants/stored-variant.js';
import { noiseJpeg } from '../../helpers/images.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { expectError, json, startTestService, type TestService } from '../../helpers/service.js';

/** The default project's storage quota here: its variant budget is a tenth of it. */
const QUOTA = 50_000_000;
const BUDGET = QUOTA / 10;
/** Originals over this are not made into variants (FILEHOST_VARIANT_MAX_SOURCE_BYTES). */
const MAX_SOURCE = 1_000_000;

describe('CDN image variants are a bounded cache', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService({
      FILEHOST_STORAGE_QUOTA: String(QUOTA),
      FILEHOST_VARIANT_MAX_SOURCE_BYTES: String(MAX_SOURCE),
    });
  });
  after(() => t.close());

  const upload = async (bytes: Buffer, name: string, key = t.secretKey) =>
    json<UploadResponse>(
      await t.api('/v1/upload', {
        key,
        method: 'POST',
        body: new Uint8Array(bytes),
        headers: { 'Content-Type': 'image/jpeg', 'X-Filename': name },
      }),
      201,
    );
  const usage = async (key = t.secretKey) => json<Usage>(await t.api('/v1/usage', { key }));
  const encodes = () => t.service.context.variants.encoder.stats.encodes;
  /** The names of a file's stored variants (what the disk or the bucket holds). */
  const storedNames = async (id: string) =>
    (await t.stored())
      .filter((path) => path.includes('derived/') && path.includes(`/${id}/`))
      .map((path) => path.split('/').at(-1) as string)
      .sort();
  /** Bytes the store holds of a file's variants, each object's size as the store says. */
  const storedBytes = async (id: string) => {
    let sum = 0;
    for (const name of await storedNames(id)) {
      sum += (await t.service.context.blobs.headDerived(id, name))?.size ?? 0;
    }
    return sum;
  };
  /** The variant's name, from its ETag (`"<id>-<name>"`). */
  const nameOf = (id: string, response: Response) =>
    (response.headers.get('etag') as string).slice(id.length + 2, -1);
  /** GET, retried while the encoders' queue answers 503 (a loaded machine makes them slowly). */
  const fetchVariant = async (url: string, init?: RequestInit) => {
    for (;;) {
      const response = await fetch(url, init);
      if (response.status !== 503) return response;
      await expectError(response, 503, 'unavailable');
      await sleep(200);
    }
  };

  it('keeps variantBytes within the budget through a burst of 24 PNG variants of a 640 KB noise JPEG, all answered', async () => {
    const original = await noiseJpeg(1240, 930, 85);
    assert.ok(
      original.length > 560_000 && original.length < 720_000,
      `about 640 KB: ${original.length}`,
    );
    const file = await upload(original, 'noise.jpg');
    const before = await usage();
    assert.equal(before.variantBytes, 0);
    // 14 widths (the ladder up to the image's own 1240, then past it), 10 boxes filled.
    const queries = [
      ...[16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920].map((w) => `w=${w}`),
      ...[384, 640, 750, 828, 1080].flatMap((w) => [256, 640].map((h) => `w=${w}&h=${h}&fit=fill`)),
    ].map((query) => `${query}&format=png`);
    assert.equal(queries.length, 24);
    // usage read all along the burst: never past the budget, not even for a moment.
    let highest = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        highest = Math.max(highest, (await usage()).variantBytes);
        await sleep(20);
      }
    })();
    const answers = await Promise.all(
      queries.map(async (query) => {
        const response = await fetchVariant(`${file.url}?${query}`);
        assert.equal(response.status, 200, query);
        assert.equal(response.headers.get('content-type'), 'image/png');
        const bytes = Buffer.from(await response.arrayBuffer());
        const [w, h] = (response.headers.get('x-variant') as string)
          .split(',')
          .slice(0, 2)
          .map((part) => Number(part.split('=')[1]));
        const meta = await sharp(bytes).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ['png', w, h], query);
        return { name: nameOf(file.id, response), size: bytes.length };
      }),
    );
    sampling = false;
    await sampler;
    const made = answers.reduce((sum, answer) => sum + answer.size, 0);
    assert.ok(made > 3 * BUDGET, `the burst made ${made} bytes, past the budget ${BUDGET}`);
    assert.equal(new Set(answers.map((answer) => answer.name)).size, 24);

    const after = await usage();
    assert.ok(highest <= BUDGET, `variantBytes reached ${highest} of ${BUDGET}`);
    assert.ok(after.variantBytes <= BUDGET, `${after.variantBytes} of ${BUDGET}`);
    assert.ok(after.variantBytes > BUDGET / 2, `the budget is used: ${after.variantBytes}`);
    // What the store holds is what is counted: evicted variants' objects are gone.
    assert.equal(await storedBytes(file.id), after.variantBytes);
    // The largest (the image's own size, about 3 MB of PNG) is over 4 times its original:
    // served, never stored.
    const whole = answers[queries.indexOf('w=1920&format=png')];
    assert.ok(whole && whole.size > 4 * original.length, `${whole?.size}`);
    assert.ok(!(await storedNames(file.id)).includes(whole.name));
  });

  it("removes the project's least recently served variants first, made again when asked", async () => {
    // A project of its own, whose quota (and so budget) the test sets between requests.
    const other = await t.otherProject();
    const db = t.service.context.db;
    await db.updateProject(other.project.id, { storageQuota: 10_000_000_000 });
    const variants = t.service.context.variants;
    variants.touchIntervalMs = 0;
    try {
      const file = await upload(await noiseJpeg(600, 450, 80), 'order.jpg', other.secretKey);
      const made: Record<string, { name: string; size: number }> = {};
      const ask = async (label: string, query: string) => {
        const response = await fetchVariant(`${file.url}?${query}`);
        assert.equal(response.status, 200);
        made[label] = {
          name: nameOf(file.id, response),
          size: (await response.arrayBuffer()).byteLength,
        };
        // Served at distinct milliseconds, so the order is the order of the requests.
        await sleep(15);
      };
      await ask('a', 'w=384&format=webp&q=90');
      await ask('b', 'w=384&format=webp&q=80');
      await ask('c', 'w=384&format=webp&q=70');
      // a served again (by another URL: the CDN's memory holds it under the first one), so
      // b is now the least recently served.
      const encoded = encodes();
      await ask('a', 'w=384&format=webp&q=90&again=1');
      assert.equal(encodes(), encoded, 'served from the store, not made again');
      const { a, b, c } = made as Record<'a' | 'b' | 'c', { name: string; size: number }>;
      // Room for a, b and c only; d (smaller than b) needs b's room alone.
      const budget = a.size + b.size + c.size;
      await db.updateProject(other.project.id, { storageQuota: budget * 10 });
      await ask('d', 'w=256&format=webp&q=80');
      const d = made.d as { name: string; size: number };
      assert.ok(d.size < b.size && d.size < c.size, 'd fits where b was, b where c was');
      assert.deepEqual(await storedNames(file.id), [a.name, c.name, d.name].sort());
      assert.equal((await usage(other.secretKey)).variantBytes, a.size + c.size + d.size);
      // b, asked again, is made again (and now c, the least recently served, makes room).
      const before = encodes();
      await ask('b2', 'w=384&format=webp&q=80&again=1');
      assert.equal(encodes(), before + 1);
      assert.deepEqual(await storedNames(file.id), [a.name, b.name, d.name].sort());
      const used = (await usage(other.secretKey)).variantBytes;
      assert.equal(used, a.size + b.size + d.size);
      assert.ok(used <= budget);
      // The default project's variants were never touched by another project's budget.
      assert.ok((await usage()).variantBytes > 0);
    } finally {
      variants.touchIntervalMs = TOUCH_INTERVAL_MS;
    }
  });

  it('serves a variant over 4 times its original (its bytes, Range too) without storing or counting it', async () => {
    // A JPEG at quality 30 of noise: a PNG of it at its own size is over 10 times larger.
    const original = await noiseJpeg(800, 600, 30);
    const file = await upload(original, 'small.jpg');
    const expected = await sharp(original).autoOrient().png().toBuffer();
    assert.ok(expected.length > 4 * original.length, `${expected.length} of ${original.length}`);
    const before = await usage();
    const made = encodes();
    const response = await fetchVariant(`${file.url}?format=png`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('x-variant'), 'w=800,h=600,fit=inside,format=png');
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(response.headers.get('content-length'), String(bytes.length));
    assert.deepEqual(bytes, expected, 'the very bytes sharp makes of the original');
    // A range of it: the same bytes.
    const part = await fetchVariant(`${file.url}?format=png&range=1`, {
      headers: { Range: 'bytes=100-4195' },
    });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-4195/${expected.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), expected.subarray(100, 4196));
    assert.deepEqual(await storedNames(file.id), []);
    assert.equal((await usage()).variantBytes, before.variantBytes);
    // Not stored: the second URL made it again.
    assert.equal(encodes(), made + 2);
  });

  it('refuses an original over FILEHOST_VARIANT_MAX_SOURCE_BYTES from its record, without reading it', async () => {
    const original = await noiseJpeg(1600, 1200, 90);
    assert.ok(original.length > MAX_SOURCE, `${original.length}`);
    const file = await upload(original, 'large.jpg');
    // Every way the store could be read, counted while the variant is asked for.
    const blobs = t.service.context.blobs;
    const reads: string[] = [];
    const spied = ['get', 'head', 'localPath', 'getDerived', 'headDerived'] as const;
    const originals = new Map<string, unknown>();
    for (const method of spied) {
      const real = blobs[method] as ((...args: unknown[]) => unknown) | undefined;
      if (!real) continue;
      originals.set(method, real);
      (blobs as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        reads.push(method);
        return real.apply(blobs, args);
      };
    }
    const made = encodes();
    let error: { message: string };
    try {
      error = await expectError(
        await fetch(`${file.url}?w=256&format=webp`),
        400,
        'invalid_request',
      );
    } finally {
      for (const [method, real] of originals) {
        (blobs as unknown as Record<string, unknown>)[method] = real as BlobStore[keyof BlobStore];
      }
    }
    assert.deepEqual(reads, [], 'nothing of the file was read');
    assert.equal(encodes(), made);
    assert.match(error.message, new RegExp(`${original.length} bytes`));
    assert.match(error.message, /1000000 bytes \(FILEHOST_VARIANT_MAX_SOURCE_BYTES\)/);
    // The original itself is served as ever.
    const plain = await fetch(publicUrlOf(file));
    assert.equal(plain.status, 200);
    assert.equal((await plain.arrayBuffer()).byteLength, original.length);
  });
});
