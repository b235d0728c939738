/**
 * `npm run bench:server`: the reference service measured beside the physical limit on
 * this machine, in one run. Prints a table; numbers are medians over several runs.
 *
 * 1. Ingest: a 100 MiB one-request upload and a 1 GiB multi-step upload through the
 *    service, beside a plain node:http server streaming the same bytes to disk (without and
 *    with the final fsync the service does for durability).
 * 2. Peak memory (VmHWM) of a fresh service process that ingests 1 GiB, then 100 MiB.
 * 3. List latency (first page and a deep page) at 1,000 and at 1,000,000 files.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FileListResponse, SignResponse } from '../../src/api/types.js';
import type { FileRow } from '../../src/server/db/metadata-store.js';
import { SqliteMetadataStore } from '../../src/server/db/sqlite-store.js';
import { newId } from '../../src/server/secrets.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { median, percentile, startPeer } from './support.js';

const MiB = 1024 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHUNK = Buffer.alloc(MiB, 0x5a);

function body(bytes: number): Readable {
  let left = bytes;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const size = Math.min(left, CHUNK.length);
      left -= size;
      this.push(size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size));
    },
  });
}

/** Streams `bytes` bytes with node:http and resolves with the answer's status and text. */
function send(url: string, method: string, bytes: number, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: { ...headers, 'Content-Length': String(bytes) }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    body(bytes).pipe(req);
  });
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function startPlain(
  dir: string,
  fsync: boolean,
): Promise<{ url: string; child: ChildProcess }> {
  const { port, child } = await startPeer('test/bench/plain-server.ts', [dir], {
    PLAIN_FSYNC: fsync ? '1' : '0',
  });
  return { url: `http://127.0.0.1:${port}/`, child };
}

async function rss(pid: number): Promise<{ now: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { now: field('VmRSS'), peak: field('VmHWM') };
}

async function multiStepUpload(
  service: ChildService,
  bytes: number,
  concurrency: number,
): Promise<void> {
  const auth = { Authorization: `Bearer ${service.secretKey}` };
  const signed = (await (
    await fetch(`${service.apiUrl}/v1/uploads/sign`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'big.bin', size: bytes }),
    })
  ).json()) as SignResponse;
  const queue = [...signed.parts];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let part = queue.shift(); part; part = queue.shift()) {
        const answer = await send(part.url, 'PUT', part.size, part.headers);
        if (answer.status !== 200) throw new Error(`part ${part.partNumber}: ${answer.text}`);
      }
    }),
  );
  const done = await fetch(`${service.apiUrl}/v1/uploads/${signed.id}/complete`, {
    method: 'POST',
    headers: auth,
  });
  if (done.status !== 200) throw new Error(await done.text());
  await fetch(`${service.apiUrl}/v1/files/${signed.id}`, { method: 'DELETE', headers: auth });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-bench-'));
  const rows: string[][] = [];
  const line = (...cells: (string | number)[]) => rows.push(cells.map(String));
  try {
    // ---- Ingest -----------------------------------------------------------------------
    const service = await spawnService({
      FILEHOST_DATA_DIR: join(dir, 'service'),
      FILEHOST_PLAN: 'paid',
      FILEHOST_LOG_LEVEL: 'error',
    });
    const plain = await startPlain(dir, false);
    const plainSync = await startPlain(dir, true);
    const auth = { Authorization: `Bearer ${service.secretKey}` };

    const throughput = async (
      label: string,
      bytes: number,
      runs: number,
      fn: () => Promise<void>,
    ) => {
      const seconds: number[] = [];
      for (let run = 0; run < runs; run++) seconds.push(await timed(fn));
      const mibPerSecond = bytes / MiB / median(seconds);
      return { label, mibPerSecond };
    };
    const plainPut = (url: string, bytes: number) => async () => {
      const answer = await send(url, 'PUT', bytes, { 'Content-Type': 'application/octet-stream' });
      if (answer.status !== 201) throw new Error('plain server failed');
      await rm(answer.text, { force: true });
    };

    const small = 100 * MiB;
    const big = 1024 * MiB;
    const bigRuns = RUNS;
    const results = [
      await throughput('plain node:http, 100 MiB', small, RUNS, plainPut(plain.url, small)),
      await throughput(
        'plain node:http + fsync, 100 MiB',
        small,
        RUNS,
        plainPut(plainSync.url, small),
      ),
      await throughput('filehost POST /v1/upload, 100 MiB', small, RUNS, async () => {
        const answer = await send(`${service.apiUrl}/v1/upload`, 'POST', small, {
          ...auth,
          'Content-Type': 'application/octet-stream',
        });
        if (answer.status !== 201) throw new Error(answer.text);
        const { id } = JSON.parse(answer.text) as { id: string };
        await fetch(`${service.apiUrl}/v1/files/${id}`, { method: 'DELETE', headers: auth });
      }),
      await throughput('plain node:http, 1 GiB', big, bigRuns, plainPut(plain.url, big)),
      await throughput(
        'plain node:http + fsync, 1 GiB',
        big,
        bigRuns,
        plainPut(plainSync.url, big),
      ),
      await throughput('filehost multi-step (16 MiB parts, 2 at a time), 1 GiB', big, bigRuns, () =>
        multiStepUpload(service, big, 2),
      ),
    ];
    const by = (label: string) =>
      results.find((r) => r.label === label)?.mibPerSecond ?? Number.NaN;
    line('Ingest', 'MiB/s (median)', 'vs plain', 'vs plain + fsync');
    for (const result of results) {
      const size = result.label.endsWith('1 GiB') ? '1 GiB' : '100 MiB';
      line(
        result.label,
        result.mibPerSecond.toFixed(0),
        (result.mibPerSecond / by(`plain node:http, ${size}`)).toFixed(2),
        (result.mibPerSecond / by(`plain node:http + fsync, ${size}`)).toFixed(2),
      );
    }

    // ---- Peak memory ------------------------------------------------------------------
    // A fresh service, so its high-water mark (VmHWM) covers only start-up and this upload.
    const fresh = await spawnService({
      FILEHOST_DATA_DIR: join(dir, 'memory'),
      FILEHOST_PLAN: 'paid',
      FILEHOST_LOG_LEVEL: 'error',
    });
    const pid = fresh.process.pid as number;
    const atRest = await rss(pid);
    await multiStepUpload(fresh, big, 2);
    const afterMultiStep = await rss(pid);
    const one = await send(`${fresh.apiUrl}/v1/upload`, 'POST', small, {
      Authorization: `Bearer ${fresh.secretKey}`,
    });
    if (one.status !== 201) throw new Error(one.text);
    const afterOneRequest = await rss(pid);
    fresh.process.kill('SIGTERM');
    await fresh.exited;
    line('');
    line('Service memory (fresh process)', 'MiB');
    line('RSS at rest after start', atRest.now.toFixed(0));
    line('peak RSS through a 1 GiB multi-step upload', afterMultiStep.peak.toFixed(0));
    line('peak RSS through a further 100 MiB one-request upload', afterOneRequest.peak.toFixed(0));

    plain.child.kill();
    plainSync.child.kill();
    service.process.kill('SIGTERM');
    await service.exited;

    // ---- List latency -----------------------------------------------------------------
    line('');
    line('List latency (GET /v1/files?limit=50)', 'p50 ms', 'p99 ms', 'vs 1k');
    let baseline: { first: number; deep: number } | null = null;
    for (const count of [1_000, 1_000_000]) {
      const dataDir = join(dir, `list-${count}`);
      const seed = await spawnService({ FILEHOST_DATA_DIR: dataDir, FILEHOST_LOG_LEVEL: 'error' });
      const { projectId } = JSON.parse(
        await readFile(join(dataDir, 'default-project.json'), 'utf8'),
      ) as { projectId: string };
      seed.process.kill('SIGTERM');
      await seed.exited;
      const started = Date.now();
      const store = new SqliteMetadataStore(join(dataDir, 'filehost.db'));
      const base = 1_700_000_000_000;
      function* generate(): Generator<FileRow> {
        for (let index = 0; index < count; index++) {
          yield {
            id: newId(),
            projectId,
            name: `file-${index}.jpg`,
            mime: 'image/jpeg',
            size: 1000 + index,
            // Several files per millisecond, as a busy project has.
            createdAt: base + Math.floor(index / 3),
            status: 'ready',
            metadata: { user: `u${index % 100}` },
            partSize: null,
            storageUploadId: null,
            expiresAt: null,
            deletedAt: null,
          };
        }
      }
      store.insertFilesBulk(generate());
      await store.close();
      const seeded = (Date.now() - started) / 1000;

      const server = await spawnService({
        FILEHOST_DATA_DIR: dataDir,
        FILEHOST_LOG_LEVEL: 'error',
      });
      const headers = { Authorization: `Bearer ${server.secretKey}` };
      const get = async (query: string) => {
        const response = await fetch(`${server.apiUrl}/v1/files?${query}`, { headers });
        return (await response.json()) as FileListResponse;
      };
      // A cursor in the middle of the project: a deep page.
      const middle = base + Math.floor(count / 6);
      const deepCursor = `${middle}_zzzzzzzzzzzzzzzzzzzzzz`;
      const sample = async (query: string) => {
        for (let warm = 0; warm < 20; warm++) await get(query);
        const times: number[] = [];
        for (let run = 0; run < 300; run++) {
          times.push((await timed(async () => void (await get(query)))) * 1000);
        }
        return times;
      };
      const first = await sample('limit=50');
      const deep = await sample(`limit=50&cursor=${deepCursor}`);
      const page = await get(`limit=50&cursor=${deepCursor}`);
      if (page.files.length !== 50) throw new Error('deep page came back short');
      const firstP50 = median(first);
      const deepP50 = median(deep);
      baseline ??= { first: firstP50, deep: deepP50 };
      const label = count.toLocaleString('en-US');
      line(
        `${label} files, first page (seeded in ${seeded.toFixed(1)} s)`,
        firstP50.toFixed(2),
        percentile(first, 99).toFixed(2),
        (firstP50 / baseline.first).toFixed(2),
      );
      line(
        `${label} files, deep page`,
        deepP50.toFixed(2),
        percentile(deep, 99).toFixed(2),
        (deepP50 / baseline.deep).toFixed(2),
      );
      server.process.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const widths = rows.reduce<number[]>(
    (acc, row) => row.map((cell, i) => Math.max(acc[i] ?? 0, cell.length)),
    [],
  );
  console.log(
    `\nfilehost server bench — ${new Date().toISOString()} — ${process.version}, ${(await import('node:os')).cpus().length} cores\n`,
  );
  for (const row of rows)
    console.log(
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  '),
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
