/**
 * `npm run bench:load`: 50 concurrent clients, each uploading 10 files of mixed sizes
 * through the multi-step flow with the typed client, in one run against both deployments:
 * the embedded one (one service process, SQLite + local disk), then the scale one (two
 * instances behind nginx, round robin, on PostgreSQL and a Ceph RADOS Gateway bucket).
 * Afterwards every file is fetched from the CDN (through nginx at scale) and compared byte
 * for byte. Prints, for each, the throughput, p50/p99 of sign and complete, and the count
 * of errors and mismatches; the scale rows carry their ratio to the embedded ones.
 *
 * `BENCH_BASELINE=<git revision>`: instead, the embedded deployment only, the service of
 * that revision (checked out beside this one) and of the working tree taking turns,
 * `BENCH_ROUNDS` pairs (default 3), with the same client: what a change of the service
 * costs, told apart from the machine's drift. Prints each pair and the median ratios.
 *
 * `BENCH_WEBHOOK=1`: the same, embedded, with and without a webhook registered for every
 * event (a receiver in this process, answering at once), taking turns: what telling a
 * backend of every file costs, and whether every event arrived (events lost).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilehostClient } from '../../src/client/client.js';
import { DEMO_ORIGINS } from '../../src/server/start/config-from-env.js';
import { patternBytes } from '../helpers/bytes.js';
import { rgwAvailable, startRgw } from '../helpers/ceph-rgw.js';
import { nginxAvailable, startNginx } from '../helpers/nginx.js';
import { freePort } from '../helpers/ports.js';
import { postgresAvailable, startPostgres } from '../helpers/postgres.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { scaleEnv } from '../helpers/scale.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { type BenchRow, percentile, reportRows, withBaselineCheckout } from './support.js';

// The AWS SDK warns on every client it makes under Node 20; the service children inherit it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
/**
 * 10, not the 20 this bench ran before the scale run: 50 x 20 files is 2.3 GB, more than
 * the test gateway's RAM-backed store holds (`memstore device bytes`, 2 GiB, in
 * test/helpers/ceph-rgw.ts), and deleting verified files would not make room in time (the
 * gateway frees deleted parts by garbage collection, hours later). Both runs upload this
 * same smaller set, so their rows compare the same work.
 */
const FILES_EACH = Number(process.env.BENCH_FILES_EACH ?? 10);
const KiB = 1024;
const MiB = 1024 * KiB;
/** Mostly small files, some that take several parts. */
const SIZES = [1 * KiB, 20 * KiB, 150 * KiB, 700 * KiB, 2 * MiB, 11 * MiB];
/** What the scale run may put in the bucket: the memstore's 2 GiB, less room for metadata. */
const SCALE_BUDGET_BYTES = 1.5 * 1024 * MiB;
const PART_SIZE = 5 * MiB;

/**
 * Every file's bytes are a window of one pattern made before the clock starts, each file at
 * its own offset, so no two files are alike. (Making each file's bytes as it went, and
 * hashing them, had been 60% of this process's CPU, on the two cores it shares with the
 * service: the bench had measured itself.)
 */
const STRIDE = 4 * KiB;
const POOL = patternBytes(CLIENTS * FILES_EACH * STRIDE + Math.max(...SIZES), 7);

function sizeOf(clientIndex: number, fileIndex: number): number {
  return SIZES[(clientIndex + fileIndex) % SIZES.length] as number;
}

function contentOf(clientIndex: number, fileIndex: number, size: number): Uint8Array<ArrayBuffer> {
  const offset = (clientIndex * FILES_EACH + fileIndex) * STRIDE;
  return POOL.subarray(offset, offset + size);
}

const TOTAL_BYTES = Array.from({ length: CLIENTS * FILES_EACH }, (_, index) =>
  sizeOf(Math.floor(index / FILES_EACH), index % FILES_EACH),
).reduce((sum, size) => sum + size, 0);

/** Where the clients upload: the service's (or the load balancer's) public URLs. */
interface Target {
  apiUrl: string;
  cdnUrl: string;
  secretKey: string;
}

interface LoadResult {
  files: number;
  bytes: number;
  seconds: number;
  sign: number[];
  complete: number[];
  errors: number;
  mismatches: number;
}

/**
 * The load itself, the same for either deployment: every client uploads its files one
 * after another (two parts at a time), then every uploaded file is fetched from the CDN and
 * compared with what was sent. Only the uploads are timed.
 */
async function runLoad(target: Target): Promise<LoadResult> {
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
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, clientIndex) => {
      const client = new FilehostClient({
        endpoint: target.apiUrl,
        apiKey: target.secretKey,
        fetch: timedFetch,
      });
      for (let fileIndex = 0; fileIndex < FILES_EACH; fileIndex++) {
        const size = sizeOf(clientIndex, fileIndex);
        const content = contentOf(clientIndex, fileIndex, size);
        try {
          const record = await client.uploadFile(
            { size, slice: (start, end) => new Blob([content.subarray(start, end)]) },
            { name: `c${clientIndex}-f${fileIndex}.bin`, concurrency: 2 },
          );
          uploaded.push({ url: publicUrlOf(record), content });
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
        // A URL elsewhere would verify some other path than the one measured.
        if (!item.url.startsWith(`${target.cdnUrl}/`)) {
          throw new Error(`file URL ${item.url} is not on the CDN ${target.cdnUrl}`);
        }
        const response = await fetch(item.url);
        const body = Buffer.from(await response.arrayBuffer());
        if (response.status !== 200 || !body.equals(item.content)) mismatches++;
      }
    }),
  );
  return { files: uploaded.length, bytes, seconds, ...timings, errors, mismatches };
}

function printRun(name: string, result: LoadResult): void {
  const { sign, complete } = result;
  console.log(`\n${name}`);
  console.log(
    `  files uploaded: ${result.files} of ${CLIENTS * FILES_EACH}, ${(result.bytes / MiB).toFixed(0)} MiB in ${result.seconds.toFixed(1)} s`,
  );
  console.log(
    `  throughput: ${(result.bytes / MiB / result.seconds).toFixed(1)} MiB/s, ${(result.files / result.seconds).toFixed(1)} files/s`,
  );
  console.log(
    `  sign:     p50 ${percentile(sign, 50).toFixed(1)} ms, p99 ${percentile(sign, 99).toFixed(1)} ms (${sign.length} calls)`,
  );
  console.log(
    `  complete: p50 ${percentile(complete, 50).toFixed(1)} ms, p99 ${percentile(complete, 99).toFixed(1)} ms (${complete.length} calls)`,
  );
  console.log(`  errors: ${result.errors}, byte mismatches on the CDN: ${result.mismatches}`);
}

const MEASURES: [string, (result: LoadResult) => number][] = [
  ['throughput, MiB/s', (r) => r.bytes / MiB / r.seconds],
  ['files per second', (r) => r.files / r.seconds],
  ['sign p50, ms', (r) => percentile(r.sign, 50)],
  ['sign p99, ms', (r) => percentile(r.sign, 99)],
  ['complete p50, ms', (r) => percentile(r.complete, 50)],
  ['complete p99, ms', (r) => percentile(r.complete, 99)],
];

/** A run's rows; beside `peer` (the embedded run) each measure shows its ratio to it. */
function rowsOf(comparison: string, result: LoadResult, peer?: LoadResult): BenchRow[] {
  return [
    ...MEASURES.map(([measure, of]) => ({
      comparison,
      measure,
      filehost: of(result),
      ...(peer ? { peer: { name: 'embedded', value: of(peer) } } : {}),
      runs: 1,
    })),
    {
      comparison,
      measure: 'errors',
      filehost: result.errors,
      goal: { op: '<=', target: 0 },
      runs: 1,
    },
    {
      comparison,
      measure: 'byte mismatches on the CDN',
      filehost: result.mismatches,
      goal: { op: '<=', target: 0 },
      runs: 1,
    },
  ];
}

/** The same settings in both deployments, so only the deployment differs. */
const COMMON_ENV = {
  FILEHOST_PLAN: 'paid',
  FILEHOST_PART_SIZE: String(PART_SIZE),
  FILEHOST_LOG_LEVEL: 'error',
};

async function stopService(service: ChildService): Promise<void> {
  service.process.kill('SIGTERM');
  await service.exited;
}

/**
 * The embedded deployment: one service process, from this checkout or from `cwd`; with
 * `webhookUrl`, the default project tells that endpoint of every event.
 */
async function runEmbedded(cwd?: string, webhookUrl?: string): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-load-'));
  try {
    const service = await spawnService(
      {
        ...COMMON_ENV,
        FILEHOST_DATA_DIR: dir,
        ...(webhookUrl
          ? { FILEHOST_WEBHOOK_URL: webhookUrl, FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true' }
          : {}),
      },
      [],
      { cwd },
    );
    try {
      return await runLoad(service);
    } finally {
      await stopService(service);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `BENCH_WEBHOOK`: with and without a webhook for every event, taking turns. */
async function compareWithWebhook(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const receiver = await startReceiver();
  const pairs: { before: LoadResult; after: LoadResult }[] = [];
  let lost = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const withHook = async () => {
        const seen = receiver.received.length;
        const result = await runEmbedded(undefined, receiver.url);
        // Every ready file's event, delivered before the service stopped (or after: none).
        const events = new Set(
          receiver.received.slice(seen).map((request) => request.headers['webhook-id']),
        );
        lost += result.files - events.size;
        return result;
      };
      const withoutHook = () => runEmbedded();
      const first = round % 2 === 0 ? 'before' : 'after';
      const one = first === 'before' ? await withoutHook() : await withHook();
      const two = first === 'before' ? await withHook() : await withoutHook();
      const pair = first === 'before' ? { before: one, after: two } : { before: two, after: one };
      pairs.push(pair);
      printRun(`round ${round + 1}: no webhook`, pair.before);
      printRun(`round ${round + 1}: a webhook for every event`, pair.after);
    }
  } finally {
    await receiver.close();
  }
  console.log(
    `\nfilehost load bench, embedded, without vs with a webhook — ${new Date().toISOString()}`,
  );
  console.log(
    `${CLIENTS} clients x ${FILES_EACH} files, ${rounds} pairs taking turns; with / without, median (range):`,
  );
  for (const [measure, of] of MEASURES) {
    const ratios = pairs.map(({ before, after }) => of(after) / of(before));
    console.log(
      `  ${measure.padEnd(20)} ${median(ratios).toFixed(3)}x (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
    );
  }
  const errors = pairs.reduce((sum, { before, after }) => sum + before.errors + after.errors, 0);
  console.log(`  errors ${errors}, events lost ${lost}`);
}

/**
 * PostgreSQL, a one-node Ceph RADOS Gateway and nginx in front of two instances, as
 * test/server/many-instances.test.ts wires them (ports picked first, nginx started on
 * them, then the instances with nginx's URLs as their public ones). Everything started is
 * stopped, in reverse order, whatever fails.
 */
async function runScale(): Promise<LoadResult> {
  const stops: (() => Promise<void>)[] = [];
  try {
    const servers = await Promise.allSettled([startPostgres(), startRgw()]);
    for (const server of servers) {
      if (server.status === 'fulfilled' && !('skip' in server.value)) {
        const { value } = server;
        stops.push(() => value.stop());
      }
    }
    const pg = running(servers[0]);
    const rgw = running(servers[1]);

    const ports = [
      { api: await freePort(), cdn: await freePort() },
      { api: await freePort(), cdn: await freePort() },
    ];
    const nginx = await startNginx(
      ports.map((port) => ({ api: `127.0.0.1:${port.api}`, cdn: `127.0.0.1:${port.cdn}` })),
    );
    if ('skip' in nginx) throw new Error(nginx.skip);
    stops.push(() => nginx.stop());

    const env = {
      ...COMMON_ENV,
      ...(await scaleEnv(pg, rgw, DEMO_ORIGINS)),
      FILEHOST_API_URL: nginx.apiUrl,
      FILEHOST_CDN_URL: nginx.cdnUrl,
      FILEHOST_TRUST_PROXY: '1',
    };
    // Started together, as a deployment starts them: they agree on the migrations, the
    // default project and the signing secret through the database.
    const instances = await Promise.allSettled(
      ports.map((port) =>
        spawnService({
          ...env,
          FILEHOST_API_PORT: String(port.api),
          FILEHOST_CDN_PORT: String(port.cdn),
        }),
      ),
    );
    for (const instance of instances) {
      if (instance.status === 'fulfilled') stops.push(() => stopService(instance.value));
    }
    for (const instance of instances) if (instance.status === 'rejected') throw instance.reason;

    return await runLoad({
      apiUrl: nginx.apiUrl,
      cdnUrl: nginx.cdnUrl,
      secretKey: env.FILEHOST_SECRET_KEY,
    });
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => console.error('stopping:', error));
    }
  }
}

/** The server a start answered (its stop already registered), or why it did not start. */
function running<T>(result: PromiseSettledResult<T | { skip: string }>): T {
  if (result.status === 'rejected') throw result.reason;
  if (typeof result.value === 'object' && result.value !== null && 'skip' in result.value) {
    throw new Error(result.value.skip);
  }
  return result.value as T;
}

/** The median of a list of numbers. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** `BENCH_BASELINE`: the service of a revision and of the working tree, taking turns. */
async function compareWithBaseline(revision: string): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  await withBaselineCheckout(revision, async (base) => {
    const pairs: { before: LoadResult; after: LoadResult }[] = [];
    for (let round = 0; round < rounds; round++) {
      // Each pair starts with the other side, so neither always runs on a warmer machine.
      const first = round % 2 === 0 ? 'before' : 'after';
      const one = await runEmbedded(first === 'before' ? base : undefined);
      const two = await runEmbedded(first === 'before' ? undefined : base);
      const pair = first === 'before' ? { before: one, after: two } : { before: two, after: one };
      pairs.push(pair);
      printRun(`round ${round + 1}: ${revision} (before)`, pair.before);
      printRun(`round ${round + 1}: working tree (after)`, pair.after);
    }
    console.log(
      `\nfilehost load bench, embedded, ${revision} vs the working tree — ${new Date().toISOString()}`,
    );
    console.log(
      `${CLIENTS} clients x ${FILES_EACH} files, ${rounds} pairs taking turns; after / before, median (range):`,
    );
    for (const [measure, of] of MEASURES) {
      const ratios = pairs.map(({ before, after }) => of(after) / of(before));
      console.log(
        `  ${measure.padEnd(20)} ${median(ratios).toFixed(3)}x (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}); before ${median(pairs.map((p) => of(p.before))).toFixed(1)}, after ${median(pairs.map((p) => of(p.after))).toFixed(1)}`,
      );
    }
    const errors = pairs.reduce((sum, { before, after }) => sum + before.errors + after.errors, 0);
    const mismatches = pairs.reduce((sum, p) => sum + p.before.mismatches + p.after.mismatches, 0);
    console.log(`  errors ${errors}, byte mismatches on the CDN ${mismatches}`);
  });
}

async function main(): Promise<void> {
  if (process.env.BENCH_WEBHOOK) {
    await compareWithWebhook();
    return;
  }
  const baseline = process.env.BENCH_BASELINE;
  if (baseline) {
    await compareWithBaseline(baseline);
    return;
  }
  if (TOTAL_BYTES > SCALE_BUDGET_BYTES) {
    throw new Error(
      `${CLIENTS} clients x ${FILES_EACH} files is ${(TOTAL_BYTES / MiB).toFixed(0)} MiB, more than the test bucket holds (${SCALE_BUDGET_BYTES / MiB} MiB): lower BENCH_CLIENTS or BENCH_FILES_EACH`,
    );
  }
  // Installed (or refused) before the embedded run, not after it.
  const missing = postgresAvailable() ?? rgwAvailable() ?? nginxAvailable();
  if (missing) throw new Error(missing.skip);

  // One after the other, the embedded run first while nothing else runs: the scale run's
  // daemons would take from the two cores even when idle.
  const embedded = await runEmbedded();
  const scale = await runScale();

  console.log(`\nfilehost load bench — ${new Date().toISOString()} — ${process.version}\n`);
  console.log(
    `${CLIENTS} clients × ${FILES_EACH} files (${SIZES.map((s) => (s >= MiB ? `${s / MiB} MiB` : `${s / KiB} KiB`)).join(', ')}), ${(TOTAL_BYTES / MiB).toFixed(0)} MiB in all, multi-step flow, 2 parts at a time per client; the same files in both runs (${FILES_EACH} each, not 20, so they fit the test bucket's 2 GiB RAM store)`,
  );
  printRun('embedded: one process, SQLite + local disk', embedded);
  printRun(
    'scale: two instances behind nginx (round robin), PostgreSQL + S3 (one-node Ceph RGW on memstore, sharing the two cores)',
    scale,
  );
  console.log(
    `\nscale ÷ embedded: throughput ${(scale.bytes / scale.seconds / (embedded.bytes / embedded.seconds)).toFixed(2)}x, files/s ${(scale.files / scale.seconds / (embedded.files / embedded.seconds)).toFixed(2)}x`,
  );
  const load = `load: ${CLIENTS} clients x ${FILES_EACH} files`;
  await reportRows([
    ...rowsOf(`${load}, embedded`, embedded),
    ...rowsOf(`${load}, PG + S3, 2 instances + nginx`, scale, embedded),
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
