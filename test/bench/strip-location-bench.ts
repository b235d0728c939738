/**
 * `npm run bench:strip`: what removing location (issue #51 point 5) costs an ordinary
 * photo, upload to ready, in one run. A 12 MP JPEG (4000 x 3000, noise at quality 85, as
 * heavy as a phone's) with a phone's metadata: GPS in EXIF and XMP, a camera, an author
 * and an EXIF thumbnail without a position of its own. One-request uploads (the answer
 * comes once the file is ready: stored, stripped, read back), taking turns, on:
 * - A: `FILEHOST_STRIP_METADATA=none` (no ExifTool at all);
 * - B: this checkout, `gps` (the edit, then the read-back of every group and of the
 *   JPEGs inside);
 * - C: `BENCH_BASELINE` (default: where this branch left `main`), `gps` (the edit alone).
 * Each service is a process of its own on the embedded deployment. `BENCH_RUNS` rounds
 * (default 7); the ratios are medians of each round's own ratio, so load that moves
 * between rounds moves both sides.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { UploadResponse } from '../../src/api/types.js';
import { EXIFTOOL, PARIS } from '../helpers/photos.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { type BenchRow, median, reportRows, withBaselineCheckout } from './support.js';

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** The 12 MP photo, written by sharp and given its metadata by ExifTool. */
async function phonePhoto12mp(dir: string): Promise<Buffer> {
  const file = join(dir, 'photo.jpg');
  const thumbnail = join(dir, 'thumbnail.jpg');
  const noise = { type: 'gaussian' as const, mean: 128, sigma: 40 };
  const background = { r: 128, g: 128, b: 128 };
  await sharp({ create: { width: 4000, height: 3000, channels: 3, background, noise } })
    .jpeg({ quality: 85 })
    .toFile(file);
  await sharp(file).resize({ width: 160 }).jpeg({ quality: 80 }).toFile(thumbnail);
  await run(EXIFTOOL, [
    '-q',
    '-overwrite_original',
    `-GPSLatitude=${PARIS.latitude}`,
    '-GPSLatitudeRef=N',
    `-GPSLongitude=${PARIS.longitude}`,
    '-GPSLongitudeRef=E',
    `-XMP-exif:GPSLatitude=${PARIS.latitude}`,
    '-EXIF:Make=TestCam',
    '-EXIF:Model=Phone 12',
    '-EXIF:Artist=Ada Lovelace',
    '-EXIF:Orientation#=6',
    `-ThumbnailImage<=${thumbnail}`,
    file,
  ]);
  return readFile(file);
}

/** One upload to ready, ms; the file is deleted after, out of the time. */
async function uploadToReady(s: ChildService, photo: Buffer): Promise<number> {
  const auth = { Authorization: `Bearer ${s.secretKey}` };
  const started = performance.now();
  const response = await fetch(`${s.apiUrl}/v1/upload`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'image/jpeg', 'X-Filename': 'photo.jpg' },
    body: new Uint8Array(photo),
  });
  if (response.status !== 201)
    throw new Error(`upload: ${response.status} ${await response.text()}`);
  const { id } = (await response.json()) as UploadResponse;
  const ms = performance.now() - started;
  await fetch(`${s.apiUrl}/v1/files/${id}`, { method: 'DELETE', headers: auth });
  return ms;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-strip-bench-'));
  const services: ChildService[] = [];
  const revision =
    process.env.BENCH_BASELINE ??
    execFileSync('git', ['merge-base', 'HEAD', 'main'], { encoding: 'utf8' }).trim();
  try {
    const photo = await phonePhoto12mp(dir);
    const start = async (name: string, mode: string, cwd?: string) => {
      const service = await spawnService(
        {
          FILEHOST_DATA_DIR: await mkdtemp(join(dir, `${name}-`)),
          FILEHOST_LOG_LEVEL: 'error',
          FILEHOST_RATE_LIMIT: '1000000',
          FILEHOST_STRIP_METADATA: mode,
        },
        [],
        cwd ? { cwd } : {},
      );
      services.push(service);
      return service;
    };
    const none = await start('a', 'none');
    const after = await start('b', 'gps');
    await withBaselineCheckout(revision, async (checkout) => {
      const before = await start('c', 'gps', checkout);
      const sides = [none, after, before];
      // One warm-up each: ExifTool's processes start on first use.
      for (const side of sides) await uploadToReady(side, photo);
      const times = new Map<ChildService, number[]>(sides.map((side) => [side, []]));
      for (let round = 0; round < RUNS; round++) {
        // A different side first each round.
        for (let turn = 0; turn < sides.length; turn++) {
          const side = sides[(round + turn) % sides.length] as ChildService;
          times.get(side)?.push(await uploadToReady(side, photo));
        }
      }
      const of = (side: ChildService) => times.get(side) as number[];
      const ratios = (a: number[], b: number[]) => a.map((value, i) => value / (b[i] as number));
      const rows: BenchRow[] = [
        {
          comparison: 'location removed from a 12 MP JPEG',
          measure: `upload to ready, ms (peer: before, ${revision.slice(0, 7)})`,
          filehost: median(of(after)),
          peer: { name: 'before', value: median(of(before)) },
          runs: RUNS,
        },
        {
          comparison: 'location removed from a 12 MP JPEG',
          measure: "after / before, median of each round's ratio",
          filehost: median(ratios(of(after), of(before))),
          runs: RUNS,
        },
        {
          comparison: 'location removed from a 12 MP JPEG',
          measure: 'upload to ready, ms (peer: FILEHOST_STRIP_METADATA=none)',
          filehost: median(of(after)),
          peer: { name: 'none', value: median(of(none)) },
          runs: RUNS,
        },
      ];
      console.log(
        `photo: ${photo.length} bytes; load ${(await readFile('/proc/loadavg', 'utf8')).trim()}`,
      );
      await reportRows(rows);
      before.process.kill('SIGTERM');
      await before.exited;
      services.splice(services.indexOf(before), 1);
    });
  } finally {
    for (const service of services) {
      service.process.kill('SIGTERM');
      await service.exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
