/**
 * `npx tsx test/bench/placeholder-bench.ts`: what a placeholder (#58) costs a 12 MP JPEG on
 * its way to ready, in one run. Two services of this tree, each a process of its own on the
 * embedded deployment, location stripped as by default: A without placeholders (its ingest
 * step given a module that finds no image: `without-placeholder.mjs`), B as it is. They
 * take turns uploading the same file (one-request upload, the secret key), the order
 * swapped every pair; the answer is B / A of the medians of upload to ready, and the median
 * of the per-pair ratios. Two files: a noise JPEG (6.6 MB: the worst case for the JPEG
 * decoder, which must entropy-decode every byte even when it shrinks on load) and a
 * photo-like one (3.6 MB at quality 90: `photo-like-jpeg.ts`). Beside them, in this
 * process, the placeholder alone (sharp's shrink-on-load decode and ThumbHash) of each.
 *
 * `BENCH_RUNS` pairs per file (default 9); `BENCH_CLAMD=1` gives both services the tests'
 * throwaway clamd (`FILEHOST_CLAMD`), so the placeholder also runs beside a scan.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeholderOf } from '../../src/server/ingest/placeholder.js';
import { startClamd } from '../helpers/clamd.js';
import { noiseJpeg } from '../helpers/images.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { photoLikeJpeg } from './photo-like-jpeg.js';
import { cpuMs } from './serving-support.js';
import { median } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const WARM_UP = 2;

interface Contender {
  name: string;
  service: ChildService;
}

/** One one-request upload of `bytes`, timed from the request to the `201` with its record. */
async function upload(
  service: ChildService,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<{ ms: number; id: string }> {
  const started = performance.now();
  const response = await fetch(`${service.apiUrl}/v1/upload`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${service.secretKey}`,
      'Content-Type': 'image/jpeg',
      'X-Filename': 'photo.jpg',
    },
    body: bytes,
  });
  const record = (await response.json()) as { id: string };
  const ms = performance.now() - started;
  if (response.status !== 201)
    throw new Error(`upload: ${response.status} ${JSON.stringify(record)}`);
  return { ms, id: record.id };
}

/** The placeholder of the file `id` as its record says (the upload's answer has none). */
async function placeholderIn(service: ChildService, id: string): Promise<string | null> {
  const response = await fetch(`${service.apiUrl}/v1/files/${id}`, {
    headers: { Authorization: `Bearer ${service.secretKey}` },
  });
  const record = (await response.json()) as { placeholder?: string | null };
  if (response.status !== 200)
    throw new Error(`record: ${response.status} ${JSON.stringify(record)}`);
  return record.placeholder ?? null;
}

async function measure(label: string, file: Buffer, a: Contender, b: Contender): Promise<void> {
  const path = join(tmpdir(), `placeholder-bench-${process.pid}.jpg`);
  await writeFile(path, file);
  const bytes = new Uint8Array(file);
  const times: Record<string, number[]> = { [a.name]: [], [b.name]: [] };
  const cpu: Record<string, number> = { [a.name]: 0, [b.name]: 0 };
  const alone: number[] = [];
  const ratios: number[] = [];
  try {
    // Each service must be what it claims: B answers a placeholder, A none.
    const withoutOne = await placeholderIn(a.service, (await upload(a.service, bytes)).id);
    const withOne = await placeholderIn(b.service, (await upload(b.service, bytes)).id);
    if (withoutOne !== null || withOne === null) {
      throw new Error(`A gave the placeholder ${withoutOne}, B ${withOne}`);
    }
    for (let i = 0; i < WARM_UP; i++) {
      await upload(a.service, bytes);
      await upload(b.service, bytes);
    }
    for (let run = 0; run < RUNS; run++) {
      const order = run % 2 === 0 ? [a, b] : [b, a];
      const pair: Record<string, number> = {};
      for (const contender of order) {
        const pid = contender.service.process.pid as number;
        const cpuBefore = cpuMs(pid);
        const { ms } = await upload(contender.service, bytes);
        cpu[contender.name] = (cpu[contender.name] as number) + cpuMs(pid) - cpuBefore;
        times[contender.name]?.push(ms);
        pair[contender.name] = ms;
      }
      ratios.push((pair[b.name] as number) / (pair[a.name] as number));
      const before = performance.now();
      await placeholderOf(path, 'image/jpeg');
      alone.push(performance.now() - before);
    }
  } finally {
    await rm(path, { force: true });
  }
  const aMs = median(times[a.name] as number[]);
  const bMs = median(times[b.name] as number[]);
  console.log(`\n${label} (${(bytes.length / 1e6).toFixed(1)} MB), medians of ${RUNS}:`);
  console.log(`  A ${a.name}: ${aMs.toFixed(0)} ms upload to ready`);
  console.log(`  B ${b.name}: ${bMs.toFixed(0)} ms upload to ready`);
  console.log(
    `  B / A: ${(bMs / aMs).toFixed(3)} (median of per-pair ratios ${median(ratios).toFixed(3)}; pairs ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
  );
  const perUpload = (name: string) => ((cpu[name] as number) / RUNS).toFixed(0);
  console.log(
    `  the service's CPU per upload: A ${perUpload(a.name)} ms, B ${perUpload(b.name)} ms`,
  );
  console.log(`  the placeholder alone, in this process: ${median(alone).toFixed(0)} ms`);
}

async function main(): Promise<void> {
  const clamd = process.env.BENCH_CLAMD === '1' ? await startClamd() : null;
  if (clamd && 'skip' in clamd) throw new Error(`BENCH_CLAMD=1: ${clamd.skip}`);
  const env: Record<string, string> = clamd ? { FILEHOST_CLAMD: clamd.socket } : {};
  const dataDirs: string[] = [];
  const started: ChildService[] = [];
  const start = async (nodeArgs: string[]) => {
    const dataDir = join(tmpdir(), `placeholder-bench-${process.pid}-${dataDirs.length}`);
    dataDirs.push(dataDir);
    const service = await spawnService({ ...env, FILEHOST_DATA_DIR: dataDir }, nodeArgs);
    started.push(service);
    return service;
  };
  try {
    const a = {
      name: 'without placeholders',
      service: await start(['--import', './test/bench/without-placeholder.mjs']),
    };
    const b = { name: 'with placeholders', service: await start([]) };
    console.log(`scanner: ${clamd ? 'clamd' : 'none'}; location stripped (the default); embedded`);
    await measure('12 MP JPEG, photo-like', await photoLikeJpeg(4000, 3000), a, b);
    await measure('12 MP JPEG, noise', await noiseJpeg(4000, 3000), a, b);
  } finally {
    for (const service of started) {
      service.process.kill('SIGTERM');
      await service.exited;
    }
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
    if (clamd) await clamd.stop();
  }
}

await main();
