// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
// @runs-alone: it makes two 95 MB JPEGs and their variants, and reads the service's peak memory
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import type { UploadResponse } from '../../../src/api/types.js';
import { scaleDeployment } from '../../helpers/scale.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  type ChildService,
  expectError,
  json,
  spawnService,
} from '../../helpers/service.js';

const MB = 1_000_000;
/** The bound on the service's peak resident memory (issue #51). */
const PEAK_LIMIT = 600 * 1024 * 1024;

/**
 * A 95 MB JPEG: 8,800 x 8,800 pixels (77 MP, under the 100 MP limit) of noise at quality 100,
 * made from a tiled 1,024 px noise square (making noise for every pixel takes a minute).
 */
async function hugeJpeg(): Promise<Buffer> {
  const tile = await sharp({
    create: {
      width: 1024,
      height: 1024,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  return sharp({
    create: { width: 8800, height: 8800, channels: 3, background: { r: 0, g: 0, b: 0 } },
  })
    .composite([{ input: tile, tile: true }])
    .jpeg({ quality: 100 })
    .toBuffer();
}

/**
 * A line of `/proc/<pid>/status` in bytes. `VmHWM`: the peak resident set, which counts the
 * pages of files the process maps (libvips maps the original it reads: they are the page
 * cache's, shared and reclaimable); `RssAnon`: the process's own memory now, its heap and
 * buffers, where a copy of an original read into memory would be.
 */
async function memoryOf(pid: number, field: 'VmHWM' | 'RssAnon'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match?.[1]) throw new Error(`No ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

describe('CDN image variants of large originals: memory', () => {
  let dataDir: string;
  let service: ChildService;
  let pid: number;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-variant-memory-'));
    service = await spawnService({
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      // Above the originals, so that they are made into variants.
      FILEHOST_VARIANT_MAX_SOURCE_BYTES: String(200 * MB),
      ...(SCALE ? (await scaleDeployment([ALLOWED_ORIGIN])).env : {}),
    });
    pid = service.process.pid as number;
  });
  after(async () => {
    // Stopped as an operator stops it: it closes what it started (exiftool) on its way out.
    service.process.kill('SIGTERM');
    await service.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stays under 600 MB of peak resident memory through 8 concurrent variants of two 95 MB JPEGs', async (t) => {
    const original = await hugeJpeg();
    assert.ok(original.length > 90 * MB && original.length < 100 * MB, `${original.length}`);
    const files: UploadResponse[] = [];
    for (const name of ['one.jpg', 'two.jpg']) {
      const response = await fetch(`${service.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${service.secretKey}`,
          'Content-Type': 'image/jpeg',
          'X-Filename': name,
        },
        body: new Uint8Array(original),
      });
      files.push(await json<UploadResponse>(response, 201));
    }
    const before = await memoryOf(pid, 'VmHWM');
    const anonBefore = await memoryOf(pid, 'RssAnon');
    let anonPeak = anonBefore;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        anonPeak = Math.max(anonPeak, await memoryOf(pid, 'RssAnon'));
        await sleep(10);
      }
    })();
    const queries = ['w=256&format=webp', 'w=640', 'w=1080&format=webp', 'w=2048'];
    const requests = files.flatMap((file) => queries.map((query) => `${file.url}?${query}`));
    assert.equal(requests.length, 8);
    const answers = await Promise.all(
      requests.map(async (url) => {
        // Two are made at a time: on a loaded machine a request may wait past the queue's
        // 10 s and be told to come back (503), as a browser would be; it asks again.
        for (;;) {
          const response = await fetch(url);
          if (response.status !== 503) {
            assert.equal(response.status, 200, url);
            return sharp(Buffer.from(await response.arrayBuffer())).metadata();
          }
          await expectError(response, 503, 'unavailable');
          await sleep(500);
        }
      }),
    );
    sampling = false;
    await sampler;
    const peak = await memoryOf(pid, 'VmHWM');
    assert.deepEqual(
      answers.map((meta) => meta.width),
      [256, 640, 1080, 2048, 256, 640, 1080, 2048],
    );
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
    t.diagnostic(
      `service's peak resident memory ${mb(before)} before the variants, ${mb(peak)} after; its own (anonymous) memory ${mb(anonBefore)}, at most ${mb(anonPeak)} meanwhile`,
    );
    assert.ok(
      peak < PEAK_LIMIT,
      `peak resident memory ${mb(peak)} (before the variants ${mb(before)}), over ${mb(PEAK_LIMIT)}`,
    );
    // Two encodes run at a time. Had each read its original into memory, the process's own
    // memory would grow by both originals and their pixels (280 MB measured so); reading
    // from the file, it grows by the pixels and the encoders' allocations alone (about
    // 105 MB measured, libvips' per-thread heaps included).
    assert.ok(
      anonPeak - anonBefore < 2 * original.length,
      `the service's own memory grew by ${mb(anonPeak - anonBefore)}: originals are read into it`,
    );
  });
});
