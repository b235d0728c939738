import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';
import {
  PHOTO_MIME,
  type PhotoFormat,
  phonePhoto,
  photoToolsAvailable,
} from '../../helpers/photos.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/**
 * Photos whose metadata is damaged, huge or hostile, sent through the running service,
 * which hands them to ExifTool to remove their location: every one is answered, in time,
 * with `201` (stored: edited, or as it came when its metadata cannot be read) or a
 * documented `4xx`; never a `5xx`, never a hang. Seeded, so a failure replays.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = Number(process.env.FUZZ_METADATA_CASES ?? 60);
/** Far more than any of these takes (tens of ms); a hang shows as a failure, not a stall. */
const ANSWER_WITHIN_MS = 30_000;

const run = promisify(execFile);
const missing = photoToolsAvailable();

/** A JPEG's segments after SOI, with `inserted` (whole segments) placed first. */
function jpegWith(jpeg: Buffer, inserted: Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...inserted, jpeg.subarray(2)]);
}

/** A JPEG APPn segment; the payload is cut to what one segment can hold. */
function segment(marker: number, payload: Buffer): Buffer {
  const body = payload.subarray(0, 65_533);
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/** A PNG with one more chunk before its first IDAT; `crc: false` spoils the chunk's CRC. */
function pngWith(png: Buffer, type: string, data: Buffer, crc = true): Buffer {
  const at = png.indexOf(Buffer.from('IDAT')) - 4;
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  const sum = crc32(chunk.subarray(4, 8 + data.length));
  chunk.writeUInt32BE(crc ? sum : (sum ^ 0xdeadbeef) >>> 0, 8 + data.length);
  return Buffer.concat([png.subarray(0, at), chunk, png.subarray(at)]);
}

/** An extended WebP with one more RIFF chunk at its end (the RIFF size follows). */
function webpWith(webp: Buffer, type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  const pad = data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0);
  const out = Buffer.concat([webp, head, data, pad]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

/** `bytes` with the given positions overwritten (positions wrap within [from, to)). */
function damaged(bytes: Buffer, from: number, to: number, edits: [number, number][]): Buffer {
  const out = Buffer.from(bytes);
  const span = Math.max(1, Math.min(to, out.length) - from);
  for (const [position, value] of edits) out[from + (position % span)] = value;
  return out;
}

/** A TIFF header and IFD entries of any tag, type, count and offset: what EXIF readers walk. */
const tiffLike = fc
  .record({
    bigEndian: fc.boolean(),
    entries: fc.array(
      fc.record({
        // The GPS, EXIF and interop pointers, XMP and IPTC in TIFF, or any tag.
        tag: fc.oneof(
          fc.constantFrom(0x8825, 0x8769, 0xa005, 0x02bc, 0x83bb, 0x0112),
          fc.nat(0xffff),
        ),
        type: fc.nat(20),
        count: fc.oneof(fc.nat(16), fc.constant(0xffffffff), fc.nat()),
        value: fc.oneof(fc.nat(256), fc.nat()),
      }),
      { maxLength: 40 },
    ),
    tail: fc.uint8Array({ maxLength: 600 }),
  })
  .map(({ bigEndian, entries, tail }) => {
    const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
    const u16 = (value: number, at: number) =>
      bigEndian ? ifd.writeUInt16BE(value, at) : ifd.writeUInt16LE(value, at);
    const u32 = (value: number, at: number) =>
      bigEndian ? ifd.writeUInt32BE(value >>> 0, at) : ifd.writeUInt32LE(value >>> 0, at);
    u16(entries.length, 0);
    entries.forEach((entry, index) => {
      u16(entry.tag, 2 + index * 12);
      u16(entry.type, 4 + index * 12);
      u32(entry.count, 6 + index * 12);
      u32(entry.value, 10 + index * 12);
    });
    const header = Buffer.from(
      bigEndian ? [0x4d, 0x4d, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0],
    );
    return Buffer.concat([header, ifd, Buffer.from(tail)]);
  });

describe('safe ingest: hostile photo metadata', { skip: missing?.skip ?? false }, () => {
  let t: TestService;
  const photos = new Map<PhotoFormat, Buffer>();
  before(async () => {
    t = await startTestService();
    for (const format of ['jpeg', 'png', 'webp', 'tiff', 'heic'] as const) {
      photos.set(format, await phonePhoto(format));
    }
  });
  after(() => t?.close());

  /** Uploads `bytes` as `format`; the status, answered within the bound. */
  async function upload(bytes: Buffer, format: PhotoFormat): Promise<number> {
    const started = Date.now();
    const response = await t.api('/v1/upload', {
      method: 'POST',
      headers: { 'Content-Type': PHOTO_MIME[format], 'X-Filename': `fuzz.${format}` },
      body: new Uint8Array(bytes),
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const text = await response.text();
    assert.ok(response.status < 500, `${format}: ${response.status} ${text}`);
    assert.ok(response.status === 201 || response.status >= 400, text);
    assert.ok(Date.now() - started < ANSWER_WITHIN_MS);
    return response.status;
  }

  it('answers every damaged metadata block without a 5xx or a hang', async () => {
    const photo = (format: PhotoFormat) => photos.get(format) as Buffer;
    const cases = fc.oneof(
      tiffLike.map((tiff) => ({
        format: 'jpeg' as const,
        bytes: jpegWith(photo('jpeg'), [
          segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0'), tiff])),
        ]),
      })),
      fc.uint8Array({ maxLength: 2000 }).map((xmp) => ({
        format: 'jpeg' as const,
        bytes: jpegWith(photo('jpeg'), [
          segment(
            0xe1,
            Buffer.concat([
              Buffer.from('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta '),
              Buffer.from(xmp),
            ]),
          ),
        ]),
      })),
      fc.tuple(tiffLike, fc.boolean()).map(([tiff, crc]) => ({
        format: 'png' as const,
        bytes: pngWith(photo('png'), 'eXIf', tiff, crc),
      })),
      tiffLike.map((tiff) => ({
        format: 'webp' as const,
        bytes: webpWith(photo('webp'), 'EXIF', tiff),
      })),
      fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 30 }).map((edits) => ({
        format: 'tiff' as const,
        // The header and first directory: where a TIFF's structure and metadata are.
        bytes: damaged(photo('tiff'), 4, 400, edits),
      })),
      fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 30 }).map((edits) => {
        const heic = photo('heic');
        const meta = heic.indexOf(Buffer.from('meta'));
        // Inside the `meta` box: item info, locations, properties, the EXIF item.
        return { format: 'heic' as const, bytes: damaged(heic, meta, meta + 600, edits) };
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ format, bytes }) => {
        await upload(bytes, format);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('answers a JPEG with 100 full EXIF segments (6.4 MB of IFDs) in time', async () => {
    const entries = Buffer.alloc(65_000);
    const tiff = Buffer.concat([Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0x15, 0x2a]), entries]);
    for (let at = 10; at + 12 <= tiff.length; at += 12) {
      tiff.writeUInt16BE(0x8825, at);
      tiff.writeUInt16BE(4, at + 2);
      tiff.writeUInt32BE(1, at + 4);
      tiff.writeUInt32BE(8, at + 8);
    }
    const app1 = segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0'), tiff]));
    assert.equal(
      await upload(jpegWith(photos.get('jpeg') as Buffer, Array(100).fill(app1)), 'jpeg'),
      201,
    );
  });

  it('answers a PNG with an 8 MiB eXIf chunk in time', async () => {
    const tiff = Buffer.concat([
      Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]),
      Buffer.alloc(8 * 1024 * 1024, 0xff),
    ]);
    assert.equal(await upload(pngWith(photos.get('png') as Buffer, 'eXIf', tiff), 'png'), 201);
  });

  it('answers a HEIC that claims 65,535 items, and a real one with 64 images', async () => {
    const heic = Buffer.from(photos.get('heic') as Buffer);
    const iinf = heic.indexOf(Buffer.from('iinf'));
    assert.ok(iinf > 0);
    // Version 0: a 16-bit count right after the version and flags.
    heic.writeUInt16BE(0xffff, iinf + 8);
    await upload(heic, 'heic');

    const dir = await mkdtemp(join(tmpdir(), 'filehost-many-'));
    try {
      const frames: string[] = [];
      for (let index = 0; index < 64; index++) {
        const file = join(dir, `${index}.png`);
        await sharp({
          create: { width: 16, height: 16, channels: 3, background: { r: index * 4, g: 0, b: 0 } },
        })
          .png()
          .toFile(file);
        frames.push(file);
      }
      const many = join(dir, 'many.heic');
      await run('/usr/bin/heif-enc', ['-q', '50', '-o', many, ...frames]);
      await run('/usr/bin/exiftool', [
        '-m',
        '-overwrite_original',
        '-GPSLatitude=1',
        '-GPSLatitudeRef=N',
        many,
      ]);
      assert.equal(await upload(await readFile(many), 'heic'), 201);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
