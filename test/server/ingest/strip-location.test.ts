// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CHECKSUM_HEADER, checksumHeaderValue } from '../../../src/api/checksum.js';
import type {
  FileListResponse,
  FileRecord,
  ImportResponse,
  SignResponse,
  UploadResponse,
} from '../../../src/api/types.js';
import {
  doubledStartJpeg,
  everyLocationTrace,
  HIDDEN_PLACE_FORMAT,
  HIDDEN_PLACES,
  type HiddenPlace,
  hiddenLocationPhoto,
  jpegInsideComment,
  thumbnailOf,
} from '../../helpers/hidden-location.js';
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
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';
import {
  assertSameBytes,
  expectError,
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

/** The same sign, part PUT and complete, without the checks: the complete's answer. */
async function completedParts(t: TestService, bytes: Buffer, format: PhotoFormat) {
  const signed = await json<SignResponse>(
    await t.sign({ name: `photo.${format}`, size: bytes.length, type: PHOTO_MIME[format] }),
    201,
  );
  const [part] = signed.parts;
  assert.ok(part);
  await partAccepted(
    await fetch(part.url, { method: 'PUT', headers: part.headers, body: new Uint8Array(bytes) }),
    part,
  );
  return { id: signed.id, answer: await t.complete(signed.id) };
}

/** One batch upload of `files`: each file's result, in order. */
async function viaBatch(t: TestService, files: Array<{ bytes: Buffer; format: PhotoFormat }>) {
  const form = new FormData();
  form.append(
    'files',
    JSON.stringify(
      files.map(({ bytes, format }) => ({ name: `photo.${format}`, size: bytes.length })),
    ),
  );
  for (const { bytes } of files) form.append('file', new Blob([new Uint8Array(bytes)]), 'photo');
  const { results } = await json<{
    results: Array<{ file?: FileRecord; error?: { code: string; status: number } }>;
  }>(await t.api('/v1/upload/batch', { method: 'POST', body: form }));
  return results;
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
          // Embedded documents and every JPEG inside (a TIFF's or HEIC's thumbnail) too.
          assert.deepEqual(await everyLocationTrace(served), []);
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
        assert.deepEqual(await everyLocationTrace(served), []);
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

describe('safe ingest: location hidden beyond the main image', {
  skip: missing?.skip ?? false,
}, () => {
  const hidden = new Map<HiddenPlace, Buffer>();
  let doubled: Buffer;
  before(async () => {
    for (const place of HIDDEN_PLACES) {
      const bytes = await hiddenLocationPhoto(place);
      assert.ok(
        (await everyLocationTrace(bytes)).length > 0,
        `the ${place} fixture has a position`,
      );
      hidden.set(place, bytes);
    }
    // Readers of the main image's metadata alone miss these: the reason to look further.
    for (const place of ['thumbnail', 'appended', 'mpf'] as const) {
      assert.deepEqual(await locationTraces(hidden.get(place) as Buffer), [], place);
    }
    doubled = await doubledStartJpeg();
    assert.ok((await locationTraces(doubled)).length > 0, 'exifr and ExifTool read its position');
  });

  /** What each fixture keeps besides its pixels, checked on the served bytes. */
  async function assertRestKept(place: HiddenPlace, original: Buffer, served: Uint8Array) {
    const tags = await exiftoolTags(served);
    if (place === 'png-text') {
      assert.equal(tags['PNG:Author'], 'Ada Lovelace');
      return;
    }
    assert.equal(tags['IFD0:Artist'], 'Ada Lovelace');
    if (place === 'xmp-iptc') {
      assert.equal(tags['IPTC:City'], 'Paris');
      assert.equal(tags['XMP-photoshop:City'], 'Paris');
    }
    if (place === 'thumbnail') {
      // The thumbnail stays, the same picture without its metadata.
      const before = await decodedPixels(await thumbnailOf(original), 'jpeg');
      const after = await decodedPixels(await thumbnailOf(served), 'jpeg');
      assert.ok(after.data.equals(before.data), 'the thumbnail changed');
    }
    if (place === 'appended' || place === 'mpf') {
      // The pictures after the main image go with their position; the main image stays.
      assert.ok(served.length < original.length, 'the appended picture is still there');
    }
  }

  describe('FILEHOST_STRIP_METADATA unset (gps)', () => {
    let t: TestService;
    let remote: { url: string; server: Server };
    before(async () => {
      remote = await serveRemote(PUBLIC_STAND_IN, (request, response) => {
        response.setHeader('content-type', 'image/jpeg');
        response.end(request.url === '/doubled.jpg' ? doubled : hidden.get('thumbnail'));
      });
      t = await startTestService(
        {},
        { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
      );
    });
    after(async () => {
      await t.close();
      remote.server.close();
    });

    for (const place of HIDDEN_PLACES) {
      it(`serves a photo with a position in ${place} without any, every pixel kept`, async () => {
        const original = hidden.get(place) as Buffer;
        const format = HIDDEN_PLACE_FORMAT[place];
        const [batched] = await viaBatch(t, [{ bytes: original, format }]);
        assert.ok(batched?.file, JSON.stringify(batched));
        const fromBatch = new Uint8Array(
          await (await fetch(publicUrlOf(batched.file))).arrayBuffer(),
        );
        for (const served of [
          (await viaOneRequest(t, original, format)).served,
          (await viaParts(t, original, format)).served,
          fromBatch,
        ]) {
          assert.deepEqual(await everyLocationTrace(served), []);
          await assertSamePixels(original, served, format);
          await assertRestKept(place, original, served);
        }
      });
    }

    it('imports a photo with a position in its thumbnail without it', async () => {
      const { file } = await json<ImportResponse>(
        await t.api('/v1/uploads/import', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: `${remote.url}/thumbnail.jpg` }),
        }),
        202,
      );
      const record = await settled(t, file.id);
      assert.equal(record.status, 'ready', JSON.stringify(record));
      const served = new Uint8Array(await (await fetch(publicUrlOf(record))).arrayBuffer());
      assert.deepEqual(await everyLocationTrace(served), []);
    });

    it('refuses a photo whose position is still found after the edit (a JPEG inside a comment)', async () => {
      const bytes = await jpegInsideComment();
      assert.ok((await everyLocationTrace(bytes)).length > 0, 'the fixture has a position');
      const storedBefore = await t.stored();
      await expectError(
        await t.api('/v1/upload', {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg', 'X-Filename': 'home.jpg' },
          body: new Uint8Array(bytes),
        }),
        422,
        'metadata_unreadable',
      );
      assert.deepEqual(await t.stored(), storedBefore, 'nothing of it is stored');
    });

    it('refuses a JPEG ExifTool cannot rewrite (a doubled start marker) on every path, keeping nothing', async () => {
      const storedBefore = await t.stored();
      await expectError(
        await t.api('/v1/upload', {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg', 'X-Filename': 'home.jpg' },
          body: new Uint8Array(doubled),
        }),
        422,
        'metadata_unreadable',
      );

      const parts = await completedParts(t, doubled, 'jpeg');
      await expectError(parts.answer, 422, 'metadata_unreadable');
      // Taken back as a whole: not pending, not listed, not completed by a second try.
      await expectError(await t.api(`/v1/files/${parts.id}`), 404, 'not_found');
      await expectError(await t.complete(parts.id), 404, 'not_found');

      const good = hidden.get('thumbnail') as Buffer;
      const [refused, kept] = await viaBatch(t, [
        { bytes: doubled, format: 'jpeg' },
        { bytes: good, format: 'jpeg' },
      ]);
      assert.deepEqual(refused?.error && { ...refused.error, message: undefined }, {
        code: 'metadata_unreadable',
        status: 422,
        message: undefined,
      });
      assert.equal(kept?.file?.status, 'ready', 'the other file of the batch is kept');

      const { file } = await json<ImportResponse>(
        await t.api('/v1/uploads/import', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: `${remote.url}/doubled.jpg` }),
        }),
        202,
      );
      const imported = await settled(t, file.id);
      assert.equal(imported.status, 'failed');
      assert.equal(imported.importError?.code, 'metadata_unreadable');

      const listed = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
      const keptId = kept?.file?.id;
      assert.deepEqual(
        (await t.stored()).filter(
          (path) => !storedBefore.includes(path) && !(keptId && path.includes(keptId)),
        ),
        [],
        'nothing of a refused photo is stored',
      );
      for (const id of [parts.id, file.id]) {
        assert.ok(!listed.files.some((listedFile) => listedFile.id === id), `${id} is listed`);
      }
    });
  });

  describe('FILEHOST_STRIP_METADATA=all', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ FILEHOST_STRIP_METADATA: 'all' });
    });
    after(() => t.close());

    it('serves every hidden-position fixture without any, every pixel kept', async () => {
      for (const place of HIDDEN_PLACES) {
        const original = hidden.get(place) as Buffer;
        const format = HIDDEN_PLACE_FORMAT[place];
        const { served } = await viaOneRequest(t, original, format);
        assert.deepEqual(await everyLocationTrace(served), [], place);
        await assertSamePixels(original, served, format);
      }
    });

    it('refuses the doubled start marker too', async () => {
      await expectError(
        await t.api('/v1/upload', {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg', 'X-Filename': 'home.jpg' },
          body: new Uint8Array(doubled),
        }),
        422,
        'metadata_unreadable',
      );
    });
  });

  describe('FILEHOST_STRIP_METADATA=none', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ FILEHOST_STRIP_METADATA: 'none' });
    });
    after(() => t.close());

    it('keeps the doubled start marker JPEG as it came: nothing is read, nothing refused', async () => {
      const { served } = await viaOneRequest(t, doubled, 'jpeg');
      assert.ok(Buffer.from(served).equals(doubled), 'bytes differ');
    });
  });
});

/** An import's record once it has ended. */
async function settled(t: TestService, id: string): Promise<FileRecord> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
    if (record.status !== 'pending') return record;
    assert.ok(Date.now() < deadline, `import ${id} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
