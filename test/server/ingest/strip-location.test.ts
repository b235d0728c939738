// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CHECKSUM_HEADER, checksumHeaderValue } from '../../../src/api/checksum.js';
import type { FileRecord, SignResponse, UploadResponse } from '../../../src/api/types.js';
import {
  decodedPixels,
  exiftoolTags,
  locationTraces,
  PHOTO_FORMATS,
  PHOTO_MIME,
  type PhotoFormat,
  phonePhoto,
  photoToolsAvailable,
} from '../../helpers/photos.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import {
  assertSameBytes,
  json,
  partAccepted,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const missing = photoToolsAvailable();
const photos = new Map<PhotoFormat, Buffer>();

/** A photo sent in one request: the answer, and the bytes the CDN serves for it. */
async function viaOneRequest(t: TestService, bytes: Buffer, format: PhotoFormat) {
  const answer = await json<UploadResponse>(
    await t.api('/v1/upload', {
      method: 'POST',
      headers: { 'Content-Type': PHOTO_MIME[format], 'X-Filename': `photo.${format}` },
      body: new Uint8Array(bytes),
    }),
    201,
  );
  const record = await json<FileRecord>(await t.api(`/v1/files/${answer.id}`));
  const served = new Uint8Array(await (await fetch(answer.url as string)).arrayBuffer());
  assert.equal(answer.size, served.length, 'the answer gives the stored size');
  assert.equal(record.size, served.length, 'the record gives the stored size');
  assert.equal(record.mime, PHOTO_MIME[format]);
  return { record, served };
}

/** A photo through sign, part PUT with the part's digest (as the element sends it), complete. */
async function viaParts(t: TestService, bytes: Buffer, format: PhotoFormat) {
  const signed = await json<SignResponse>(
    await t.sign({
      name: `photo.${format}`,
      size: bytes.length,
      type: PHOTO_MIME[format],
      checksum: true,
    }),
    201,
  );
  const [part] = signed.parts;
  assert.ok(part && signed.checksum);
  const digest = createHash(signed.checksum).update(bytes).digest('base64');
  const body = new Uint8Array(bytes);
  await partAccepted(
    await fetch(part.url, {
      method: 'PUT',
      headers: {
        ...part.headers,
        [CHECKSUM_HEADER[signed.checksum]]: checksumHeaderValue(signed.checksum, digest),
      },
      body,
    }),
    part,
  );
  const record = await json<FileRecord>(await t.complete(signed.id));
  assert.equal(record.status, 'ready');
  const served = new Uint8Array(await (await fetch(publicUrlOf(record))).arrayBuffer());
  assert.equal(record.size, served.length, 'the record gives the stored size');
  // Completing again answers the same record (the stored size, not the signed one).
  assert.deepEqual(await json<FileRecord>(await t.complete(signed.id)), record);
  return { record, served };
}

async function assertSamePixels(original: Buffer, served: Uint8Array, format: PhotoFormat) {
  const before = await decodedPixels(original, format);
  const after = await decodedPixels(served, format);
  assert.deepEqual(
    { width: after.width, height: after.height, channels: after.channels },
    { width: before.width, height: before.height, channels: before.channels },
  );
  assert.ok(after.data.equals(before.data), `${format}: the pixels changed`);
}

describe('safe ingest: location removed from photos', { skip: missing?.skip ?? false }, () => {
  before(async () => {
    for (const format of PHOTO_FORMATS) {
      const bytes = await phonePhoto(format);
      assert.ok((await locationTraces(bytes)).length > 0, `the ${format} fixture has a position`);
      photos.set(format, bytes);
    }
  });

  describe('FILEHOST_STRIP_METADATA unset (gps)', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService();
    });
    after(() => t.close());

    for (const format of PHOTO_FORMATS) {
      it(`serves a ${format} without its position, every pixel and other tag kept`, async () => {
        const original = photos.get(format) as Buffer;
        for (const { served, record } of [
          await viaOneRequest(t, original, format),
          await viaParts(t, original, format),
        ]) {
          assert.deepEqual(await locationTraces(served), []);
          assert.equal(record.scannedAt, null, 'no scanner configured');
          const tags = await exiftoolTags(served);
          assert.equal(tags['IFD0:Artist'], 'Ada Lovelace');
          assert.deepEqual(tags['XMP-dc:Creator'], ['Ada Lovelace']);
          if (format === 'jpeg') {
            assert.equal(tags['IFD0:Orientation'], 6);
            assert.equal(tags['IPTC:City'], 'Paris');
            assert.equal(tags['ICC_Profile:ProfileDescription'], 'sRGB');
          }
          await assertSamePixels(original, served, format);
        }
      });
    }

    it('stores a file that claims to be a JPEG but is not exactly as it came', async () => {
      const bytes = new TextEncoder().encode(
        'GPSLatitude 48.8566 — not a JPEG at all\n'.repeat(50),
      );
      const answer = await json<UploadResponse>(
        await t.api('/v1/upload', {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg', 'X-Filename': 'home.jpg' },
          body: bytes,
        }),
        201,
      );
      assert.equal(answer.type, 'application/octet-stream');
      assert.equal(answer.size, bytes.length);
      assertSameBytes(await (await fetch(answer.url as string)).arrayBuffer(), bytes);
    });

    it('leaves a photo without a position byte for byte as it came', async () => {
      const original = photos.get('jpeg') as Buffer;
      const { served: once } = await viaOneRequest(t, original, 'jpeg');
      const { served: twice } = await viaOneRequest(t, Buffer.from(once), 'jpeg');
      assert.ok(Buffer.from(twice).equals(once), 'bytes differ');
    });
  });

  describe('FILEHOST_STRIP_METADATA=all', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ FILEHOST_STRIP_METADATA: 'all' });
    });
    after(() => t.close());

    for (const format of PHOTO_FORMATS) {
      it(`serves a ${format} without EXIF, XMP and IPTC but its orientation and colour profile`, async () => {
        const original = photos.get(format) as Buffer;
        const { served } = await viaOneRequest(t, original, format);
        assert.deepEqual(await locationTraces(served), []);
        const tags = await exiftoolTags(served);
        const kept = Object.keys(tags).filter((name) =>
          /^(IFD0:(Artist|Make)|XMP-dc:|IPTC:|XMP-exif:)/.test(name),
        );
        assert.deepEqual(kept, []);
        if (format === 'jpeg') {
          assert.equal(tags['IFD0:Orientation'], 6);
          assert.equal(tags['ICC_Profile:ProfileDescription'], 'sRGB');
        }
        if (format === 'png') assert.equal(tags['ICC_Profile:ProfileDescription'], 'sRGB');
        await assertSamePixels(original, served, format);
      });
    }
  });

  describe('FILEHOST_STRIP_METADATA=none', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ FILEHOST_STRIP_METADATA: 'none' });
    });
    after(() => t.close());

    it('serves every photo byte for byte as it came, position included', async () => {
      for (const format of PHOTO_FORMATS) {
        const original = photos.get(format) as Buffer;
        const { served } = await viaOneRequest(t, original, format);
        assert.ok(Buffer.from(served).equals(original), `${format}: bytes differ`);
      }
    });
  });
});
