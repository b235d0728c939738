/**
 * `npx tsx test/bench/placeholder-decode-bench.ts`: where a placeholder's time goes (#58),
 * in this process, on a photo-like 12 MP JPEG (3.6 MB) and a noise one (6.6 MB). Each way of
 * decoding is timed against the placeholder as built (`placeholderOf`), taking turns, medians
 * of `BENCH_RUNS` (default 9):
 *
 * - sharp's options that could make a shrink-on-load decode cheaper (no `rotate`, `failOn`,
 *   `sequentialRead`, a Buffer in memory instead of the file, `fastShrinkOnLoad`, one thread);
 * - the floor and the ceiling: the JPEG decoder's 1/8 shrink alone (libvips `jpegload`
 *   `shrink=8`, what `resize` asks for here), and a decode of every pixel;
 * - ThumbHash's own encode of the 100 px image;
 * - beside the location strip (ExifTool, as ingest runs it): the strip alone, and the strip
 *   and the placeholder at once (what ingest does), on the same file.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';
import { placeholderOf } from '../../src/server/ingest/placeholder.js';
import { MetadataStripper } from '../../src/server/ingest/strip-location.js';
import { noiseJpeg } from '../helpers/images.js';
import { photoLikeJpeg } from './photo-like-jpeg.js';
import { median } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);

/** The placeholder's pipeline after the decoder is opened, as `placeholder.ts` runs it. */
function toThumbHashInput(image: Sharp, rotate = true) {
  return (rotate ? image.rotate() : image)
    .resize(100, 100, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
}

const OPENED = { failOn: 'warning', sequentialRead: true } as const;

const WAYS: Record<string, (path: string, bytes: Buffer) => Promise<unknown>> = {
  'as built (placeholderOf)': (path) => placeholderOf(path, 'image/jpeg'),
  'no rotate (orientation ignored)': (path) => toThumbHashInput(sharp(path, OPENED), false),
  "failOn: 'none'": (path) => toThumbHashInput(sharp(path, { ...OPENED, failOn: 'none' })),
  'sequentialRead off': (path) => toThumbHashInput(sharp(path, { failOn: 'warning' })),
  'from a Buffer in memory': (_path, bytes) => toThumbHashInput(sharp(bytes, OPENED)),
  'read into a Buffer, then decoded': async (path) =>
    toThumbHashInput(sharp(await readFile(path), OPENED)),
  'fastShrinkOnLoad false': (path) =>
    sharp(path, OPENED)
      .rotate()
      .resize(100, 100, { fit: 'inside', fastShrinkOnLoad: false })
      .raw()
      .toBuffer(),
  'one libvips thread (sharp.concurrency(1))': async (path) => {
    const threads = sharp.concurrency();
    sharp.concurrency(1);
    try {
      return await placeholderOf(path, 'image/jpeg');
    } finally {
      sharp.concurrency(threads);
    }
  },
  'the 1/8 shrink-on-load alone (500 px)': (path) =>
    sharp(path, OPENED).resize(500, 500, { fit: 'inside' }).raw().toBuffer(),
  'every pixel decoded (no shrink)': (path) => sharp(path, OPENED).raw().toBuffer(),
};

async function measure(label: string, bytes: Buffer, stripper: MetadataStripper, dir: string) {
  const path = join(dir, 'photo.jpg');
  await writeFile(path, bytes);
  let copies = 0;
  // ExifTool edits a copy, as ingest's does (never the file the decoder reads).
  const strip = async () => {
    const input = join(dir, `in-${copies}.jpg`);
    const output = join(dir, `out-${copies++}.jpg`);
    await copyFile(path, input);
    await stripper.strip(input, output, 'gps');
    await rm(input, { force: true });
    await rm(output, { force: true });
  };
  const ways: Record<string, () => Promise<unknown>> = {};
  for (const [name, way] of Object.entries(WAYS)) ways[name] = () => way(path, bytes);
  const { data, info } = await toThumbHashInput(sharp(path, OPENED));
  ways['ThumbHash encode alone (100 px)'] = async () =>
    rgbaToThumbHash(info.width, info.height, data);
  ways['location strip alone'] = strip;
  ways['strip and placeholder at once'] = () =>
    Promise.all([strip(), placeholderOf(path, 'image/jpeg')]);
  const times: Record<string, number[]> = {};
  for (const [name, way] of Object.entries(ways)) {
    times[name] = [];
    await way();
  }
  for (let run = 0; run < RUNS; run++) {
    for (const [name, way] of Object.entries(ways)) {
      const started = performance.now();
      await way();
      times[name]?.push(performance.now() - started);
    }
  }
  const built = median(times['as built (placeholderOf)'] as number[]);
  console.log(`\n${label} (${(bytes.length / 1e6).toFixed(1)} MB), medians of ${RUNS}:`);
  for (const [name, values] of Object.entries(times)) {
    const ms = median(values);
    console.log(
      `  ${name.padEnd(42)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / built).toFixed(2)}x`,
    );
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'placeholder-decode-bench-'));
  const stripper = new MetadataStripper({ taskTimeoutMs: 60_000 });
  try {
    await measure('12 MP JPEG, photo-like', await photoLikeJpeg(4000, 3000), stripper, dir);
    await measure('12 MP JPEG, noise', await noiseJpeg(4000, 3000), stripper, dir);
  } finally {
    await stripper.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
