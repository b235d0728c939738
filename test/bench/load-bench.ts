/**
 * `npm run bench:load`: 50 concurrent clients, each uploading 20 files of mixed sizes
 * through the multi-step flow with the typed client, against a service in its own process.
 * Afterwards every file is fetched from the CDN and compared byte for byte. Prints the
 * throughput, p50/p99 of sign and complete, and the count of errors and mismatches.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilehostClient } from '../../src/client/client.js';
import { patternBytes } from '../helpers/bytes.js';
import { spawnService } from '../helpers/service.js';
import { percentile, reportRows } from './support.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const FILES_EACH = Number(process.env.BENCH_FILES_EACH ?? 20);
const KiB = 1024;
const MiB = 1024 * KiB;
/** Mostly small files, some that take several parts. */
const SIZES = [1 * KiB, 20 * KiB, 150 * KiB, 700 * KiB, 2 * MiB, 11 * MiB];

/**
 * Every file's bytes are a window of one pattern made before the clock starts, each file at
 * its own offset, so no two files are alike. (Making each file's 2.3 GB in all byte by byte
 * as it went, and hashing it, had been 60% of this process's CPU, on the two cores it
 * shares with the service: the bench had measured itself.)
 */
const STRIDE = 4 * KiB;
const POOL = patternBytes(CLIENTS * FILES_EACH * STRIDE + Math.max(...SIZES), 7);

function contentOf(clientIndex: number, fileIndex: number, size: number): Uint8Array<ArrayBuffer> {
  const offset = (clientIndex * FILES_EACH + fileIndex) * STRIDE;
  return POOL.subarray(offset, offset + size);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-load-'));
  const service = await spawnService({
    FILEHOST_DATA_DIR: dir,
    FILEHOST_PLAN: 'paid',
    FILEHOST_PART_SIZE: String(5 * MiB),
    FILEHOST_LOG_LEVEL: 'error',
  });
  const timings = { sign: [] as number[], complete: [] as number[] };
  const timedFetch: typeof fetch = async (input, init) => {
    const url = String(input);
    const started = performance.now();
    const response = await fetch(input, init);
    const kind = url.endsWith('/v1/uploads/sign')
      ? 'sign'
      : url.endsWith('/complete')
        ? 'complete'
        : null;
    if (kind) timings[kind].push(performance.now() - started);
    return response;
  };
  const uploaded: { url: string; content: Uint8Array<ArrayBuffer> }[] = [];
  let errors = 0;
  let bytes = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, clientIndex) => {
        const client = new FilehostClient({
          endpoint: service.apiUrl,
          apiKey: service.secretKey,
          fetch: timedFetch,
        });
        for (let fileIndex = 0; fileIndex < FILES_EACH; fileIndex++) {
          const size = SIZES[(clientIndex + fileIndex) % SIZES.length] as number;
          const content = contentOf(clientIndex, fileIndex, size);
          try {
            const record = await client.uploadFile(
              { size, slice: (start, end) => new Blob([content.subarray(start, end)]) },
              { name: `c${clientIndex}-f${fileIndex}.bin`, concurrency: 2 },
            );
            uploaded.push({ url: record.url, content });
            bytes += size;
          } catch (error) {
            errors++;
            console.error(`client ${clientIndex} file ${fileIndex}:`, error);
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;

    let mismatches = 0;
    const queue = [...uploaded];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let item = queue.shift(); item; item = queue.shift()) {
          const response = await fetch(item.url);
          const body = Buffer.from(await response.arrayBuffer());
          if (response.status !== 200 || !body.equals(item.content)) mismatches++;
        }
      }),
    );

    console.log(`\nfilehost load bench — ${new Date().toISOString()} — ${process.version}\n`);
    console.log(
      `${CLIENTS} clients × ${FILES_EACH} files (${SIZES.map((s) => (s >= MiB ? `${s / MiB} MiB` : `${s / KiB} KiB`)).join(', ')}), multi-step flow, 2 parts at a time per client`,
    );
    console.log(
      `files uploaded: ${uploaded.length} of ${CLIENTS * FILES_EACH}, ${(bytes / MiB).toFixed(0)} MiB in ${seconds.toFixed(1)} s`,
    );
    console.log(
      `throughput: ${(bytes / MiB / seconds).toFixed(1)} MiB/s, ${(uploaded.length / seconds).toFixed(1)} files/s`,
    );
    console.log(
      `sign:     p50 ${percentile(timings.sign, 50).toFixed(1)} ms, p99 ${percentile(timings.sign, 99).toFixed(1)} ms (${timings.sign.length} calls)`,
    );
    console.log(
      `complete: p50 ${percentile(timings.complete, 50).toFixed(1)} ms, p99 ${percentile(timings.complete, 99).toFixed(1)} ms (${timings.complete.length} calls)`,
    );
    console.log(`errors: ${errors}, byte mismatches on the CDN: ${mismatches}`);
    const comparison = `load: ${CLIENTS} clients x ${FILES_EACH} files`;
    await reportRows([
      { comparison, measure: 'throughput, MiB/s', filehost: bytes / MiB / seconds, runs: 1 },
      { comparison, measure: 'files per second', filehost: uploaded.length / seconds, runs: 1 },
      { comparison, measure: 'sign p50, ms', filehost: percentile(timings.sign, 50), runs: 1 },
      { comparison, measure: 'sign p99, ms', filehost: percentile(timings.sign, 99), runs: 1 },
      {
        comparison,
        measure: 'complete p50, ms',
        filehost: percentile(timings.complete, 50),
        runs: 1,
      },
      {
        comparison,
        measure: 'complete p99, ms',
        filehost: percentile(timings.complete, 99),
        runs: 1,
      },
      { comparison, measure: 'errors', filehost: errors, goal: { op: '<=', target: 0 }, runs: 1 },
      {
        comparison,
        measure: 'byte mismatches on the CDN',
        filehost: mismatches,
        goal: { op: '<=', target: 0 },
        runs: 1,
      },
    ]);
  } finally {
    service.process.kill('SIGTERM');
    await service.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
