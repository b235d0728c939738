import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import {
  embeddedJpegHeader,
  embeddedJpegOffsets,
} from '../../../src/server/ingest/embedded-jpegs.js';
import {
  copyWithoutChunks,
  holdsLocation,
  pngTextChunks,
} from '../../../src/server/ingest/png-text.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const RUNS = Number(process.env.FUZZ_PARSER_CASES ?? 40);
const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}

/** A text chunk as the PNG specification lays it out (11.3.4), and what it says. */
const textChunk = fc
  .record({
    type: fc.constantFrom('tEXt', 'zTXt', 'iTXt'),
    keyword: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}$/),
    text: fc.oneof(
      fc.string({ maxLength: 60 }).map((text) => text.replace(/\0/g, ' ')),
      fc.constantFrom('48.8566, 2.3522', 'GPSLatitude 48.8566', '48 deg 51\' 24" N'),
    ),
    compressed: fc.boolean(),
  })
  .map(({ type, keyword, text, compressed }) => {
    const key = Buffer.from(`${keyword}\0`, 'latin1');
    let data: Buffer;
    if (type === 'tEXt') data = Buffer.concat([key, Buffer.from(text, 'latin1')]);
    else if (type === 'zTXt') {
      data = Buffer.concat([key, Buffer.from([0]), deflateSync(Buffer.from(text, 'latin1'))]);
    } else {
      const body = Buffer.from(text, 'utf8');
      data = Buffer.concat([
        key,
        Buffer.from([compressed ? 1 : 0, 0]),
        Buffer.from('fr\0\0', 'latin1'),
        compressed ? deflateSync(body) : body,
      ]);
    }
    const expected =
      type === 'tEXt' || type === 'zTXt'
        ? Buffer.from(text, 'latin1').toString('latin1')
        : `\n${text}`;
    return { bytes: chunk(type, data), type, keyword, text: expected };
  });

/** Any other chunk: its bytes must come through untouched. */
const otherChunk = fc
  .record({
    type: fc.constantFrom('IDAT', 'pHYs', 'tIME', 'eXIf', 'abCd'),
    data: fc.uint8Array({ maxLength: 300 }),
  })
  .map(({ type, data }) => ({ bytes: chunk(type, Buffer.from(data)), type }));

describe("the location step's parsers, on generated input", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-parsers-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads every PNG text chunk with its keyword and text, and drops exactly the ones asked', async () => {
    const ihdr = chunk('IHDR', Buffer.alloc(13, 1));
    const iend = chunk('IEND', Buffer.alloc(0));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(textChunk, otherChunk), {
          maxLength: 12,
        }),
        async (chunks) => {
          const file = join(dir, 'in.png');
          const out = join(dir, 'out.png');
          await writeFile(
            file,
            Buffer.concat([PNG_SIGNATURE, ihdr, ...chunks.map((c) => c.bytes), iend]),
          );
          const found = await pngTextChunks(file);
          const texts = chunks.filter((c) => 'keyword' in c);
          assert.deepEqual(
            found.map(({ type, keyword, text }) => ({ type, keyword, text })),
            texts.map((c) => ({ type: c.type, keyword: c.keyword, text: c.text })),
          );
          const drop = found.filter(holdsLocation);
          await copyWithoutChunks(file, out, drop);
          // The same chunks but the dropped text ones, in order, byte for byte.
          let textIndex = 0;
          const kept = chunks.filter((c) => {
            if (!('keyword' in c)) return true;
            return !drop.includes(found[textIndex++] as (typeof found)[number]);
          });
          const expected = [PNG_SIGNATURE, ihdr, ...kept.map((c) => c.bytes), iend];
          assert.ok((await readFile(out)).equals(Buffer.concat(expected)));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('finds every JPEG start inside a file, across the pieces it is read in, and walks its header', async () => {
    // A tiny JPEG header: SOI, an APP1 segment, SOS with its own 8-byte segment.
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0, 10]), Buffer.from('Exif\0\0\0\0')]);
    const sos = Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0]);
    const header = Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sos]);
    await fc.assert(
      fc.asyncProperty(
        // Positions around the 1 MiB pieces the file is read in, and anywhere else.
        fc.uniqueArray(
          fc.oneof(
            fc.integer({ min: 1024 * 1024 - 3, max: 1024 * 1024 + 1 }),
            fc.integer({ min: 1, max: 2 * 1024 * 1024 }),
          ),
          { minLength: 1, maxLength: 5 },
        ),
        async (wanted) => {
          const size = 2 * 1024 * 1024 + header.length;
          const bytes = Buffer.alloc(size, 0x11);
          // Starts closer than a header apart would overlap: keep those apart.
          const starts = [...wanted]
            .sort((a, b) => a - b)
            .filter(
              (at, index, all) => index === 0 || at - (all[index - 1] as number) >= header.length,
            );
          for (const at of starts) header.copy(bytes, at);
          const file = join(dir, 'embedded.bin');
          await writeFile(file, bytes);
          assert.deepEqual(await embeddedJpegOffsets(file), starts);
          const last = starts.at(-1) as number;
          const walked = await embeddedJpegHeader(file, last);
          assert.ok(walked.header.equals(header), 'the header up to the scan');
          assert.equal(walked.cut, false);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
