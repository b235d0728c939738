/**
 * `npm run bench:server`: the reference service measured beside the physical limit on
 * this machine, in one run. Prints a table; numbers are medians over several runs.
 *
 * 1. Ingest: a 100 MiB one-request upload and a 1 GiB multi-step upload through the
 *    service, beside a plain node:http server streaming the same bytes to disk (without and
 *    with the final fsync the service does for durability).
 * 2. Peak memory (VmHWM) of a fresh service process that ingests 1 GiB, then 100 MiB.
 * 3. List latency (first page and a deep page) at 1,000 and at 1,000,000 files, on SQLite
 *    and on PostgreSQL; goal: the 1M page at most 1.5x the 1k one.
 *
 * `BENCH_BASELINE=<git revision>`: instead, the ingest of that revision's service and the
 * working tree's, taking turns (see `compareWithBaseline`).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pgDriver from 'pg';
import type { FileListResponse, SignResponse } from '../../src/api/types.js';
import type { FileRow } from '../../src/server/db/metadata-store.js';

import { newApiKey, newId } from '../../src/server/ground/secrets.js';
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { insertFilesBulk } from '../helpers/sqlite-rows.js';
import {
  type BenchRow,
  median,
  percentile,
  reportRows,
  startPeer,
  withBaselineCheckout,
} from './support.js';

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

/** One `POST /v1/upload` of `bytes`, then the file deleted (so the disk does not fill). */
async function oneRequestUpload(service: ChildService, bytes: number): Promise<void> {
  const auth = { Authorization: `Bearer ${service.secretKey}` };
  const answer = await send(`${service.apiUrl}/v1/upload`, 'POST', bytes, {
    ...auth,
    'Content-Type': 'application/octet-stream',
  });
  if (answer.status !== 201) throw new Error(answer.text);
  const { id } = JSON.parse(answer.text) as { id: string };
  await fetch(`${service.apiUrl}/v1/files/${id}`, { method: 'DELETE', headers: auth });
}

/** Where the listing is measured: a fresh store seeded with `count` files of one project. */
interface ListingStore {
  name: string;
  /**
   * Seeds a fresh store (its schema made by a first start of the service) and answers the
   * settings of a service on it and how long the rows took to write.
   */
  seed(count: number): Promise<{ env: Record<string, string>; seconds: number }>;
}

/** The files' creation times: several per millisecond, as a busy project has. */
const LIST_BASE = 1_700_000_000_000;
const FILES_PER_MS = 3;

/** SQLite in a data dir, rows written through the store's bulk insert. */
function sqliteListing(dir: string): ListingStore {
  return {
    name: 'SQLite',
    async seed(count) {
      const dataDir = join(dir, `list-sqlite-${count}`);
      const first = await spawnService({ FILEHOST_DATA_DIR: dataDir, FILEHOST_LOG_LEVEL: 'error' });
      const { projectId } = JSON.parse(
        await readFile(join(dataDir, 'default-project.json'), 'utf8'),
      ) as { projectId: string };
      first.process.kill('SIGTERM');
      await first.exited;
      const started = Date.now();
      function* generate(): Generator<FileRow> {
        for (let index = 0; index < count; index++) {
          yield {
            id: newId(),
            projectId,
            name: `file-${index}.jpg`,
            mime: 'image/jpeg',
            size: 1000 + index,
            createdAt: LIST_BASE + Math.floor(index / FILES_PER_MS),
            status: 'ready',
            metadata: { user: `u${index % 100}` },
            partSize: null,
            storageUploadId: null,
            checksum: null,
            expiresAt: null,
            deletedAt: null,
            uploadTokenHash: null,
            completedParts: null,
            visibility: 'public',
            deleteAt: null,
            tokenId: null,
            anonymousAddress: null,
            importState: null,
          };
        }
      }
      insertFilesBulk(join(dataDir, 'filehost.db'), generate());
      return {
        env: { FILEHOST_DATA_DIR: dataDir },
        seconds: (Date.now() - started) / 1000,
      };
    },
  };
}

/**
 * PostgreSQL (a fresh database of `pg` per count), with the blobs on the local disk, a valid
 * single-instance combination: a listing never touches the bytes, and a bucket's daemons
 * would only take CPU from the measurement. The same rows as the SQLite ones (ids of the
 * same shape, in random order), written by one `INSERT … SELECT` over `generate_series`
 * (seconds, where a million single inserts would take minutes).
 */
function postgresListing(pg: TestPostgres, dir: string): ListingStore {
  // At scale the keys come from the environment (see bootstrap.ts); a second start with
  // the same keys finds the same default project.
  const keys = {
    FILEHOST_SECRET_KEY: newApiKey('secret'),
    FILEHOST_PUBLISHABLE_KEY: newApiKey('publishable'),
  };
  return {
    name: 'PostgreSQL',
    async seed(count) {
      const env = {
        ...keys,
        FILEHOST_DATABASE_URL: await pg.createDatabase(),
        FILEHOST_DATA_DIR: join(dir, `list-pg-${count}`),
      };
      const first = await spawnService({ ...env, FILEHOST_LOG_LEVEL: 'error' });
      first.process.kill('SIGTERM');
      await first.exited;
      const started = Date.now();
      const client = new pgDriver.Client({ connectionString: env.FILEHOST_DATABASE_URL });
      await client.connect();
      try {
        const project = await client.query<{ value: string }>(
          "SELECT value FROM settings WHERE name = 'default-project-id'",
        );
        const projectId = project.rows[0]?.value;
        if (!projectId) throw new Error('the first start recorded no default project');
        // md5 of the index, as base64url without padding: 22 characters like newId()'s,
        // unique, and unordered against the creation times as random ids are.
        await client.query(
          `INSERT INTO files (id, project_id, name, mime, size, created_at, status, metadata)
           SELECT translate(encode(decode(md5(i::text), 'hex'), 'base64'), '+/=', '-_'),
                  $1, 'file-' || i || '.jpg', 'image/jpeg', 1000 + i,
                  $2::bigint + i / $3::int, 'ready', ('{"user":"u' || (i % 100) || '"}')::json
           FROM generate_series(0, $4::int - 1) AS i`,
          [projectId, LIST_BASE, FILES_PER_MS, count],
        );
        // What autovacuum would do soon after a bulk load in production; without statistics
        // the planner could pick another plan than a live database runs.
        await client.query('ANALYZE files');
      } finally {
        await client.end();
      }
      return { env, seconds: (Date.now() - started) / 1000 };
    },
  };
}

/** The p50 of the first page and of a deep one, in ms. */
interface PageLatency {
  first: number;
  deep: number;
}

/** The goal of the scale-out issue: a page at 1,000,000 files at most 1.5x one at 1,000. */
const LIST_GOAL = { op: '<=', target: 1.5 } as const;

/**
 * List latency on `store` at 1,000 and at 1,000,000 files: the first page and a deep page
 * (a cursor in the middle of the project), 300 timed requests each after 20 to warm up,
 * from a fresh service process on the seeded store. Adds lines to the printed table and
 * answers the rows (1M beside 1k, with the goal).
 */
async function listLatency(
  store: ListingStore,
  line: (...cells: (string | number)[]) => void,
): Promise<BenchRow[]> {
  const p50s: PageLatency[] = [];
  for (const count of [1_000, 1_000_000]) {
    const { env, seconds: seeded } = await store.seed(count);
    const server = await spawnService({ ...env, FILEHOST_LOG_LEVEL: 'error' });
    try {
      const headers = { Authorization: `Bearer ${server.secretKey}` };
      const get = async (query: string) => {
        const response = await fetch(`${server.apiUrl}/v1/files?${query}`, { headers });
        return (await response.json()) as FileListResponse;
      };
      // A cursor in the middle of the project: a deep page.
      const middle = LIST_BASE + Math.floor(count / (2 * FILES_PER_MS));
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
      const p50: PageLatency = { first: median(first), deep: median(deep) };
      p50s.push(p50);
      const baseline = p50s[0] as PageLatency;
      const label = `${store.name}, ${count.toLocaleString('en-US')} files`;
      line(
        `${label}, first page (seeded in ${seeded.toFixed(1)} s)`,
        p50.first.toFixed(2),
        percentile(first, 99).toFixed(2),
        (p50.first / baseline.first).toFixed(2),
      );
      line(
        `${label}, deep page`,
        p50.deep.toFixed(2),
        percentile(deep, 99).toFixed(2),
        (p50.deep / baseline.deep).toFixed(2),
      );
    } finally {
      server.process.kill('SIGTERM');
      await server.exited;
    }
  }
  const [small, large] = p50s as [PageLatency, PageLatency];
  const comparison = `list latency, ${store.name}`;
  return (['first', 'deep'] as const).map((page) => ({
    comparison,
    measure: `GET /v1/files?limit=50, ${page} page at 1,000,000 files, p50 ms`,
    filehost: large[page],
    peer: { name: '1,000 files', value: small[page] },
    goal: LIST_GOAL,
    runs: 300,
  }));
}

/**
 * `BENCH_BASELINE=<git revision>`: ingest only, the service of that revision (checked out
 * beside this one) and of the working tree, both running, taking turns upload by upload
 * (each run starting with the other side): what a change of the service costs, told
 * apart from the machine's drift, which moves absolute numbers by half between runs.
 */
async function compareWithBaseline(revision: string): Promise<void> {
  await withBaselineCheckout(revision, async (base) => {
    const dir = await mkdtemp(join(tmpdir(), 'filehost-bench-'));
    const start = (name: string, cwd?: string) =>
      spawnService(
        { FILEHOST_DATA_DIR: join(dir, name), FILEHOST_PLAN: 'paid', FILEHOST_LOG_LEVEL: 'error' },
        [],
        { cwd },
      );
    const sides = { before: await start('before', base), after: await start('after') };
    try {
      const uploads = [
        ['POST /v1/upload, 100 MiB', 100 * MiB, oneRequestUpload],
        [
          'multi-step (16 MiB parts, 2 at a time), 1 GiB',
          1024 * MiB,
          (service: ChildService, bytes: number) => multiStepUpload(service, bytes, 2),
        ],
      ] as const;
      console.log(`filehost server bench, ingest, ${revision} vs the working tree`);
      console.log(`${RUNS} uploads each, taking turns; MiB/s, median (after / before):`);
      for (const [label, bytes, upload] of uploads) {
        const seconds = { before: [] as number[], after: [] as number[] };
        for (let run = 0; run < RUNS; run++) {
          const order =
            run % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
          for (const side of order) {
            seconds[side].push(await timed(() => upload(sides[side], bytes)));
          }
        }
        const rate = (side: 'before' | 'after') => bytes / MiB / median(seconds[side]);
        console.log(
          `  ${label.padEnd(48)} before ${rate('before').toFixed(0)}, after ${rate('after').toFixed(0)}: ${(rate('after') / rate('before')).toFixed(3)}x`,
        );
      }
    } finally {
      for (const service of Object.values(sides)) {
        service.process.kill('SIGTERM');
        await service.exited;
      }
      await rm(dir, { recursive: true, force: true });
    }
  });
}

async function main(): Promise<void> {
  const baseline = process.env.BENCH_BASELINE;
  if (baseline) {
    await compareWithBaseline(baseline);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'filehost-bench-'));
  const rows: string[][] = [];
  const line = (...cells: (string | number)[]) => rows.push(cells.map(String));
  const listRows: BenchRow[] = [];
  // Installed (or refused) now, not after minutes of the other measurements.
  const missing = postgresAvailable();
  if (missing) throw new Error(missing.skip);
  try {
    // ---- Ingest -----------------------------------------------------------------------
    const service = await spawnService({
      FILEHOST_DATA_DIR: join(dir, 'service'),
      FILEHOST_PLAN: 'paid',
      FILEHOST_LOG_LEVEL: 'error',
    });
    const plain = await startPlain(dir, false);
    const plainSync = await startPlain(dir, true);

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
      await throughput('filehost POST /v1/upload, 100 MiB', small, RUNS, () =>
        oneRequestUpload(service, small),
      ),
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
    listRows.push(...(await listLatency(sqliteListing(dir), line)));
    const pg = await startPostgres();
    if ('skip' in pg) throw new Error(pg.skip);
    try {
      listRows.push(...(await listLatency(postgresListing(pg, dir), line)));
    } finally {
      await pg.stop();
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
  await reportRows(listRows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
