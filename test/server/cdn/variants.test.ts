// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { SignedUrlResponse, UploadResponse, Usage } from '../../../src/api/types.js';
import { sweep } from '../../../src/server/uploads/sweeper.js';
import { TOUCH_INTERVAL_MS } from '../../../src/server/variants/stored-variant.js';
import {
  BLUE,
  GPS_TAG,
  near,
  orientedJpeg,
  pixelAt,
  RED,
  solidImage,
  twoFrameGif,
} from '../../helpers/images.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { expectError, json, startTestService, type TestService } from '../../helpers/service.js';

describe('CDN image variants', () => {
  let t: TestService;
  let photo: UploadResponse;
  let photoBytes: Buffer;

  const upload = async (body: Uint8Array | string, type: string, name: string) =>
    json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        body: typeof body === 'string' ? body : new Uint8Array(body),
        headers: { 'Content-Type': type, 'X-Filename': encodeURIComponent(name) },
      }),
      201,
    );
  const encodes = () => t.service.context.variants.encoder.stats.encodes;
  /** What the store holds of a file's variants, by name. */
  const storedVariants = async (id: string) =>
    (await t.stored()).filter((path) => path.includes(`derived/`) && path.includes(`${id}/`));
  const body = async (response: Response) => Buffer.from(await response.arrayBuffer());
  /** A signed link to a file (`POST /v1/files/:id/signed-url`), with image parameters. */
  const signedLink = async (id: string, transform?: Record<string, unknown>) => {
    const answer = await t.api(`/v1/files/${id}/signed-url`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(transform ? { transform } : {}),
    });
    return (await json<SignedUrlResponse>(answer)).url;
  };

  before(async () => {
    // Originals kept as they came (no location removed at upload, issue #44), so that the
    // variants are seen to drop an original's EXIF and GPS themselves.
    t = await startTestService({ FILEHOST_STRIP_METADATA: 'none' });
    photoBytes = await orientedJpeg();
    assert.ok(photoBytes.includes(GPS_TAG), 'the fixture carries GPS');
    photo = await upload(photoBytes, 'image/jpeg', 'holiday.jpg');
  });
  after(() => t.close());

  it('serves a JPEG turned by its EXIF orientation, resized, without EXIF or GPS', async () => {
    const response = await fetch(`${photo.url}?w=100`);
    assert.equal(response.status, 200);
    const h = response.headers;
    assert.equal(h.get('content-type'), 'image/jpeg');
    // 100 rounds up to 128; shown 200 x 300, fitted inside 128 wide.
    assert.equal(h.get('x-variant'), 'w=128,h=192,fit=inside,format=jpeg,q=75');
    assert.equal(h.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(h.get('access-control-allow-origin'), '*');
    assert.match(h.get('etag') ?? '', new RegExp(`^"${photo.id}-.+"$`));
    assert.equal(h.get('content-disposition'), 'inline; filename=holiday.jpg');
    assert.equal(h.get('vary'), null);
    const bytes = await body(response);
    assert.equal(h.get('content-length'), String(bytes.length));
    const meta = await sharp(bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 128, 192]);
    assert.equal(meta.exif, undefined, 'no EXIF');
    assert.equal(meta.orientation, undefined);
    assert.ok(!bytes.includes(GPS_TAG) && !bytes.includes(Buffer.from('TestCam')));
    assert.ok(near(await pixelAt(bytes, 64, 10), RED), 'red on top once turned');
    assert.ok(near(await pixelAt(bytes, 64, 180), BLUE), 'blue below');
  });

  it('rounds sizes up the ladder and q to a multiple of 5: one variant for many queries', async () => {
    const first = await fetch(`${photo.url}?w=121&q=71&format=webp`);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-variant'), 'w=128,h=192,fit=inside,format=webp,q=75');
    const made = encodes();
    for (const query of [
      'w=128&q=75&format=webp',
      'w=127&q=72&format=webp&fit=inside',
      'w=128&h=4096&q=75&format=webp',
    ]) {
      const again = await fetch(`${photo.url}?${query}`);
      assert.equal(again.status, 200, query);
      assert.equal(again.headers.get('etag'), first.headers.get('etag'), query);
      assert.ok((await body(again)).equals(await body(first.clone())), query);
    }
    assert.equal(encodes(), made, 'served from the store, not made again');
    const meta = await sharp(await body(first)).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 128, 192]);
  });

  it('keys a variant by what it is: sizes above the original are the original, made once', async () => {
    const before = encodes();
    const answers = [];
    for (const query of [
      'w=641',
      'w=1920',
      'w=3840',
      'w=4096',
      'h=4096',
      'w=4096&h=4096&fit=cover',
    ]) {
      const response = await fetch(`${photo.url}?${query}&format=webp`);
      assert.equal(response.status, 200, query);
      // Never upscaled: the image is 200 wide once turned.
      assert.equal(response.headers.get('x-variant'), 'w=200,h=300,fit=inside,format=webp,q=75');
      answers.push(response.headers.get('etag'));
      const meta = await sharp(await body(response)).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 200, 300], query);
    }
    assert.equal(new Set(answers).size, 1, 'one variant');
    assert.ok(encodes() <= before + 1, 'made at most once (the test before may have made it)');
  });

  it('format=auto answers AVIF, WebP or the original format by Accept, with Vary: Accept', async () => {
    const cases: [string, string][] = [
      ['image/avif,image/webp,*/*', 'image/avif'],
      ['image/avif;q=0,image/webp,*/*', 'image/webp'],
      ['image/webp,*/*', 'image/webp'],
      ['*/*', 'image/jpeg'],
    ];
    for (const [accept, type] of cases) {
      const response = await fetch(`${photo.url}?w=64&format=auto`, {
        headers: { Accept: accept },
      });
      assert.equal(response.status, 200, accept);
      assert.equal(response.headers.get('content-type'), type, accept);
      assert.equal(response.headers.get('vary'), 'Accept', accept);
      const meta = await sharp(await body(response)).metadata();
      assert.equal(`image/${meta.format === 'heif' ? 'avif' : meta.format}`, type, accept);
    }
    const explicit = await fetch(`${photo.url}?w=64&format=png`, {
      headers: { Accept: 'image/avif' },
    });
    assert.equal(explicit.headers.get('content-type'), 'image/png');
    assert.equal(explicit.headers.get('vary'), null);
    assert.equal(explicit.headers.get('content-disposition'), 'inline; filename=holiday.png');
    await explicit.arrayBuffer();
  });

  it('transforms PNG, WebP and the first frame of a GIF; fit=cover fills the box', async () => {
    const png = await upload(await solidImage('png', 400, 100), 'image/png', 'wide.png');
    const cover = await fetch(`${png.url}?w=64&h=64&fit=cover&format=webp&q=50`);
    assert.equal(cover.status, 200);
    assert.equal(cover.headers.get('x-variant'), 'w=64,h=64,fit=cover,format=webp,q=50');
    const coverMeta = await sharp(await body(cover)).metadata();
    assert.deepEqual([coverMeta.format, coverMeta.width, coverMeta.height], ['webp', 64, 64]);

    const webp = await upload(await solidImage('webp', 100, 50, BLUE), 'image/webp', 'b.webp');
    const asPng = await fetch(`${webp.url}?w=32&format=png&q=30`);
    assert.equal(
      asPng.headers.get('x-variant'),
      'w=32,h=16,fit=inside,format=png',
      'q: unused by PNG',
    );
    const pngBytes = await body(asPng);
    const pngMeta = await sharp(pngBytes).metadata();
    assert.deepEqual([pngMeta.format, pngMeta.width, pngMeta.height], ['png', 32, 16]);
    assert.ok(near(await pixelAt(pngBytes, 5, 5), BLUE, 2));

    const gif = await upload(await twoFrameGif(), 'image/gif', 'anim.gif');
    const still = await fetch(`${gif.url}?w=16&format=png`);
    assert.equal(still.status, 200);
    const stillBytes = await body(still);
    const stillMeta = await sharp(stillBytes).metadata();
    assert.deepEqual([stillMeta.format, stillMeta.width, stillMeta.pages], ['png', 16, undefined]);
    assert.ok(near(await pixelAt(stillBytes, 3, 3), RED, 10), 'the first frame');
  });

  it('stores a variant beside the original and serves it as a file: ETag, 304, Range, HEAD', async () => {
    const before = encodes();
    const url = `${photo.url}?w=256&format=png`;
    const first = await fetch(url);
    const bytes = await body(first);
    assert.equal(encodes(), before + 1);
    const stored = await storedVariants(photo.id);
    assert.ok(
      stored.some((path) => path.endsWith('w200_h300_inside_q0.png')),
      `stored: ${stored.join(', ')}`,
    );
    const etag = first.headers.get('etag') as string;

    const notModified = await fetch(url, { headers: { 'If-None-Match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('etag'), etag);
    assert.equal(notModified.headers.get('x-variant'), 'w=200,h=300,fit=inside,format=png');

    const ranged = await fetch(url, { headers: { Range: 'bytes=10-19' } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-range'), `bytes 10-19/${bytes.length}`);
    assert.ok((await body(ranged)).equals(bytes.subarray(10, 20)));

    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bytes.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    assert.equal(encodes(), before + 1, 'made once');

    // The original is untouched by its variants.
    const original = await fetch(publicUrlOf(photo));
    assert.ok((await body(original)).equals(photoBytes));
  });

  it('makes a variant once for 20 concurrent first requests', async () => {
    const before = encodes();
    const url = `${photo.url}?w=384&h=384&fit=contain&format=webp&q=90`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(url)));
    const bodies = await Promise.all(answers.map(body));
    assert.deepEqual(
      answers.map((response) => response.status),
      Array(20).fill(200),
    );
    assert.equal(encodes(), before + 1, 'exactly one encode');
    for (const bytes of bodies) assert.ok(bytes.equals(bodies[0] as Buffer));
  });

  it('ignores other query names (a cache buster, a signed link’s exp and sig)', async () => {
    for (const url of [`${photo.url}?v=3`, await signedLink(photo.id)]) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.equal(response.headers.get('x-variant'), null);
      assert.ok((await body(response)).equals(photoBytes));
    }
  });

  it('answers 400 invalid_request for parameters out of range and on a file that is no image', async () => {
    for (const query of [
      'w=0',
      'w=4097',
      'h=-5',
      'w=1e3',
      'w=12.5',
      'w=',
      'w=10&w=20',
      'fit=stretch',
      'format=gif',
      'q=0',
      'q=101',
    ]) {
      await expectError(await fetch(`${photo.url}?${query}`), 400, 'invalid_request');
    }
    const text = await upload('just words', 'text/plain', 'notes.txt');
    const refused = await fetch(`${text.url}?w=64`);
    const error = await expectError(refused, 400, 'invalid_request');
    assert.match(error.message, /images only/);
    assert.equal(refused.headers.get('cache-control'), 'no-store');
  });

  it('keeps at most 64 variants a file, the least recently served removed first, counted in variantBytes', async () => {
    const usage = async () => json<Usage>(await t.api('/v1/usage'));
    const before = await usage();
    const file = await upload(await solidImage('png', 400, 300), 'image/png', 'many.png');
    const variants = t.service.context.variants;
    variants.touchIntervalMs = 0;
    const names: string[] = [];
    const sizes = new Map<string, number>();
    const ask = async (index: number, extra = '') => {
      // 8 widths x 20 qualities: distinct outputs, each a variant of its own.
      const w = [16, 32, 48, 64, 96, 128, 256, 384][index % 8] as number;
      const q = 100 - 5 * Math.floor(index / 8);
      const response = await fetch(`${file.url}?w=${w}&q=${q}&format=webp${extra}`);
      assert.equal(response.status, 200);
      const name = (response.headers.get('etag') as string).slice(file.id.length + 2, -1);
      sizes.set(name, (await body(response)).length);
      return name;
    };
    try {
      for (let index = 0; index < 64; index++) names.push(await ask(index));
      assert.equal(new Set(names).size, 64);
      assert.equal((await storedVariants(file.id)).length, 64);
      // The first made is served again: the second is now the least recently served.
      await ask(0);
      const made = encodes();
      await ask(64);
      assert.equal(encodes(), made + 1);
      const stored = (await storedVariants(file.id)).map((path) => path.split('/').at(-1));
      assert.equal(stored.length, 64);
      assert.ok(stored.includes(names[0]), 'the one served again stays');
      assert.ok(!stored.includes(names[1]), 'the least recently served went');
      // Asked again, it is made again (by another URL: this process still holds the small
      // variant in memory under the one it was first asked by).
      await ask(1, '&v=2');
      assert.equal(encodes(), made + 2);
    } finally {
      variants.touchIntervalMs = TOUCH_INTERVAL_MS;
    }
    const kept = (await storedVariants(file.id)).map((path) => path.split('/').at(-1) as string);
    const keptBytes = kept.reduce((sum, name) => sum + (sizes.get(name) as number), 0);
    const now = await usage();
    assert.equal(now.variantBytes - before.variantBytes, keptBytes);
    // Not counted against the quota: stored bytes are the original's alone.
    assert.equal(now.storedBytes - before.storedBytes, file.size);
    assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await storedVariants(file.id), []);
    assert.equal((await usage()).variantBytes, before.variantBytes);
  });

  it('removes a file’s variants when the file is deleted', async () => {
    const file = await upload(await solidImage('png', 64, 64), 'image/png', 'gone.png');
    for (const query of ['w=32', 'w=16&format=webp']) {
      assert.equal((await fetch(`${file.url}?${query}`)).status, 200);
    }
    assert.equal((await storedVariants(file.id)).length, 2);
    const deleted = await t.api(`/v1/files/${file.id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    assert.deepEqual(await storedVariants(file.id), []);
    await expectError(await fetch(`${file.url}?w=32`), 404, 'not_found');
  });

  it('leaves variants a failed purge kept to the sweeper, which removes them', async () => {
    const file = await upload(await solidImage('png', 64, 64), 'image/png', 'later.png');
    assert.equal((await fetch(`${file.url}?w=32`)).status, 200);
    assert.equal((await storedVariants(file.id)).length, 1);
    const blobs = t.service.context.blobs;
    const deleteDerived = blobs.deleteDerived;
    // A fault injected into the real store: the DELETE's own purge fails.
    blobs.deleteDerived = () => Promise.reject(new Error('injected: storage away'));
    try {
      assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
    } finally {
      blobs.deleteDerived = deleteDerived;
    }
    await expectError(await fetch(`${file.url}?w=32`), 404, 'not_found');
    assert.equal((await storedVariants(file.id)).length, 1, 'still stored after the failed purge');
    const swept = await sweep(t.service.context);
    assert.ok(swept.purged >= 1);
    assert.deepEqual(await storedVariants(file.id), []);
  });

  it('keeps a small variant in memory under its URL, but not one of a signed link', async () => {
    const file = await upload(await solidImage('png', 200, 200), 'image/png', 'small.png');
    const url = `${file.url}?w=48&format=webp`;
    const first = await body(await fetch(url));
    const signedUrl = await signedLink(file.id, { w: 96, format: 'webp' });
    assert.equal((await fetch(signedUrl)).status, 200);
    // The stored variants go from the store only (as another instance's eviction of the
    // least recently served would, between its lookup here and the read).
    await t.service.context.blobs.deleteDerived(file.id);
    const again = await fetch(url);
    assert.equal(again.status, 200, 'answered from memory');
    assert.ok((await body(again)).equals(first));
    const lost = await fetch(signedUrl);
    await expectError(lost, 503, 'unavailable');
    assert.equal(lost.headers.get('retry-after'), '1');
    assert.equal((await fetch(signedUrl)).status, 200, 'made again at the next request');
  });

  it('removes a variant stored after its file was deleted (a delete during the making)', async () => {
    const file = await upload(await solidImage('png', 64, 64), 'image/png', 'racing.png');
    const blobs = t.service.context.blobs;
    const putDerived = blobs.putDerived;
    // The delete lands (row marked, purge run) after the variant was made, before it is stored.
    blobs.putDerived = async (...args) => {
      assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
      return putDerived.apply(blobs, args);
    };
    try {
      await expectError(await fetch(`${file.url}?w=32`), 404, 'not_found');
    } finally {
      blobs.putDerived = putDerived;
    }
    assert.deepEqual(await storedVariants(file.id), []);
  });
});
