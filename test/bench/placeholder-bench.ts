/**
 * `npx tsx test/bench/placeholder-bench.ts`: what a placeholder costs a 12 MP JPEG on its
 * way to ready (embedded deployment, one-request upload, location stripped as by default):
 * the median upload-to-ready time, and in the same run the median time of the placeholder
 * alone (sharp's shrink-on-load decode and ThumbHash) on the same file. The ingest step
 * runs the placeholder beside the strip, so its share of upload-to-ready is at most this.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeholderOf } from '../../src/server/ingest/placeholder.js';
import { noiseJpeg } from '../helpers/images.js';
import { json, startTestService } from '../helpers/service.js';

const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const photo = await noiseJpeg(4000, 3000);
  const path = join(tmpdir(), `placeholder-bench-${process.pid}.jpg`);
  await writeFile(path, photo);
  const t = await startTestService();
  try {
    const uploads: number[] = [];
    const alone: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const record = await json<{ placeholder?: string | null }>(
        await t.api('/v1/upload', {
          method: 'POST',
          headers: { 'Content-Type': 'image/jpeg', 'X-Filename': 'photo.jpg' },
          body: new Uint8Array(photo),
        }),
        201,
      );
      uploads.push(performance.now() - started);
      if (run === 0) console.log(`placeholder: ${String(record.placeholder)}`);
      const before = performance.now();
      await placeholderOf(path, 'image/jpeg');
      alone.push(performance.now() - before);
    }
    const upload = median(uploads);
    const placeholder = median(alone);
    console.log(`12 MP JPEG (${(photo.length / 1e6).toFixed(1)} MB), median of ${RUNS}:`);
    console.log(`  upload to ready: ${upload.toFixed(0)} ms`);
    console.log(
      `  placeholder alone: ${placeholder.toFixed(0)} ms (${((placeholder / upload) * 100).toFixed(1)}% of it)`,
    );
  } finally {
    await t.close();
  }
}

await main();
