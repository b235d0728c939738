/**
 * `npm run bench:scan`: what malware scanning (issue #44) costs an upload, in one run: the
 * same uploads through a service without a scanner (A) and one with `FILEHOST_CLAMD` (B),
 * taking turns, beside clamd's own client, `clamdscan --stream`, on the same file.
 *
 * 1. 256 MiB through the multi-step upload (sign, 16 MiB parts four at a time, complete).
 *    Goal: what B adds over A is no more than `clamdscan` of the same file + 10%.
 * 2. 200 files of 20 KiB, one-request uploads six at a time (a browser's connections).
 *    Goal: B within 1.3x of A.
 *
 * Both services are processes of their own on the embedded deployment (the scan streams
 * from the disk there, from the bucket at scale: the same code). clamd is the tests'
 * throwaway daemon (`test/helpers/clamd.ts`): its database is two signatures, so it measures
 * the path (streaming, the protocol, clamd's parsing) rather than a full signature set,
 * which makes clamd itself slower per byte for A, B and `clamdscan` alike. Files are random
 * bytes (nothing for the metadata step to do). `BENCH_RUNS` pairs (default 3 for the big
 * file, 5 for the small ones); `BENCH_SCAN=small` (or `big`) runs one of the two;
 * `BENCH_CLAMD_STREAMS=disk` puts clamd's `TemporaryDirectory` on the disk instead of tmpfs;
 * `BENCH_BASELINE=<git revision>` adds to the small files a third service, C: that
 * revision's, with the same clamd, taking turns with A and B (what a change to the scan
 * path did, measured in one run). `BENCH_SCAN_KEY=publishable` sends the small files as a
 * page's visitor does (the publishable key and an `Origin`, no token: anonymous uploads,
 * whose scans are bounded per client address) instead of with the secret key.
 *
 * Beside each small run's time, the CPU time it cost (from `/proc/<pid>/stat`): the service's,
 * clamd's and this process's (the client). On the shared 2-core machine the times move
 * with the other sessions' load far more than the CPU per upload does.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { SignResponse } from '../../src/api/types.js';
import { startClamd } from '../helpers/clamd.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { type BenchRow, median, reportRows, withBaselineCheckout } from './support.js';

const MiB = 1024 * 1024;
const BIG = 256 * MiB;
const PART = 16 * MiB;
const SMALL = 20 * 1024;
const SMALL_COUNT = 200;
const BIG_RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SMALL_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ONLY = process.env.BENCH_SCAN;
const AS_VISITOR = process.env.BENCH_SCAN_KEY === 'publishable';

/** CPU time a process has used so far, ms (`/proc/<pid>/stat`: utime + stime, ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** This process's CPU time so far, ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A small run's time, and the CPU it cost per upload (µs): the service, clamd, the client. */
interface SmallRun {
  ms: number;
  service: number;
  clamd: number;
  client: number;
}

const auth = (s: ChildService) => ({ Authorization: `Bearer ${s.secretKey}` });
/** A page's visitor: the publishable key from a loopback origin (the embedded default's). */
const visitor = (s: ChildService) => ({
  Authorization: `Bearer ${s.publishableKey}`,
  Origin: 'http://localhost:5173',
});

async function bigUpload(
  s: ChildService,
  file: string,
): Promise<{ total: number; complete: number }> {
  const started = performance.now();
  const answer = await fetch(`${s.apiUrl}/v1/uploads/sign`, {
    method: 'POST',
    headers: { ...auth(s), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'big.bin', size: BIG }),
  });
  if (answer.status !== 201) throw new Error(`sign: ${answer.status} ${await answer.text()}`);
  const signed = (await answer.json()) as SignResponse;
  const queue = [...signed.parts];
  const sender = async () => {
    for (let part = queue.shift(); part; part = queue.shift()) {
      const start = (part.partNumber - 1) * signed.partSize;
      const body = Readable.toWeb(
        createReadStream(file, { start, end: start + part.size - 1 }),
      ) as ReadableStream;
      const response = await fetch(part.url, {
        method: 'PUT',
        headers: { ...part.headers, 'Content-Length': String(part.size) },
        body,
        duplex: 'half',
      } as RequestInit);
      if (!response.ok) throw new Error(`part ${part.partNumber}: ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
  const completing = performance.now();
  const response = await fetch(`${s.apiUrl}/v1/uploads/${signed.id}/complete`, {
    method: 'POST',
    headers: auth(s),
  });
  if (response.status !== 200)
    throw new Error(`complete: ${response.status} ${await response.text()}`);
  const done = performance.now();
  // Keep the disk from filling over the runs.
  await fetch(`${s.apiUrl}/v1/files/${signed.id}`, { method: 'DELETE', headers: auth(s) });
  return { total: done - started, complete: done - completing };
}

async function smallUploads(s: ChildService, files: Buffer[], clamdPid = 0): Promise<SmallRun> {
  const pid = s.process.pid as number;
  const cpuBefore = {
    service: cpuMs(pid),
    clamd: clamdPid ? cpuMs(clamdPid) : 0,
    client: ownCpuMs(),
  };
  const started = performance.now();
  let next = 0;
  const sender = async () => {
    while (next < files.length) {
      const index = next++;
      const response = await fetch(`${s.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...(AS_VISITOR ? visitor(s) : auth(s)), 'X-Filename': `f${index}.bin` },
        body: new Uint8Array(files[index] as Buffer),
      });
      if (response.status !== 201) throw new Error(`upload: ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 6 }, sender));
  const ms = performance.now() - started;
  const perUpload = (before: number, after: number) => ((after - before) * 1000) / files.length;
  return {
    ms,
    service: perUpload(cpuBefore.service, cpuMs(pid)),
    clamd: clamdPid ? perUpload(cpuBefore.clamd, cpuMs(clamdPid)) : 0,
    client: perUpload(cpuBefore.client, ownCpuMs()),
  };
}

/** The multi-step 256 MiB upload on A and B, and clamdscan of the same file, taking turns. */
async function benchBig(
  plain: ChildService,
  scanning: ChildService,
  clamdscan: (file: string) => void,
  dir: string,
): Promise<BenchRow[]> {
  const file = join(dir, 'big.bin');
  const out = createWriteStream(file);
  for (let written = 0; written < BIG; written += 4 * MiB) out.write(randomBytes(4 * MiB));
  out.end();
  await finished(out);
  // Warm-up: clamd's first large stream, the file in the page cache.
  await bigUpload(plain, file);
  await bigUpload(scanning, file);
  clamdscan(file);

  const big = {
    a: [] as number[],
    aComplete: [] as number[],
    b: [] as number[],
    bComplete: [] as number[],
    clamdscan: [] as number[],
  };
  for (let run = 0; run < BIG_RUNS; run++) {
    const a = await bigUpload(plain, file);
    big.a.push(a.total);
    big.aComplete.push(a.complete);
    const b = await bigUpload(scanning, file);
    big.b.push(b.total);
    big.bComplete.push(b.complete);
    const started = performance.now();
    clamdscan(file);
    big.clamdscan.push(performance.now() - started);
  }
  await rm(file);

  const added = median(big.b) - median(big.a);
  // Per pair (the machine's load moves between pairs more than within one): what B's
  // complete adds over A's, against clamdscan run right after.
  const pairs = big.b.map(
    (_, index) =>
      ((big.bComplete[index] as number) - (big.aComplete[index] as number)) /
      (big.clamdscan[index] as number),
  );
  console.log(
    `256 MiB per pair: complete B - A over clamdscan ${pairs.map((r) => r.toFixed(2)).join(' / ')}`,
  );
  console.log(
    `256 MiB: A ${big.a.map(Math.round).join(' / ')} ms, B ${big.b.map(Math.round).join(' / ')} ms` +
      ` (complete: A ${big.aComplete.map(Math.round).join(' / ')}, B ${big.bComplete.map(Math.round).join(' / ')} ms), clamdscan ${big.clamdscan.map(Math.round).join(' / ')} ms;` +
      ` B adds ${Math.round(added)} ms`,
  );
  return [
    {
      comparison: 'scanning a 256 MiB upload',
      measure: 'time B adds over A, ms (peer: clamdscan --stream of the file)',
      filehost: added,
      peer: { name: 'clamdscan', value: median(big.clamdscan) },
      goal: { op: '<=', target: 1.1 },
      runs: BIG_RUNS,
    },
    {
      comparison: 'scanning a 256 MiB upload',
      measure: "what B's complete adds over A's, per pair over clamdscan (median ratio)",
      filehost: median(pairs),
      goal: { op: '<=', target: 1.1 },
      runs: BIG_RUNS,
    },
    {
      comparison: 'scanning a 256 MiB upload',
      measure: "B's complete (scan included), ms (peer: clamdscan --stream)",
      filehost: median(big.bComplete),
      peer: { name: 'clamdscan', value: median(big.clamdscan) },
      runs: BIG_RUNS,
    },
  ];
}

/** 200 small one-request uploads on A and B, taking turns, with the CPU each run cost. */
async function benchSmall(
  plain: ChildService,
  scanning: ChildService,
  clamdPid: () => number,
  baseline?: ChildService,
): Promise<BenchRow[]> {
  const files = Array.from({ length: SMALL_COUNT }, () => randomBytes(SMALL));
  // Warm-up: connections, the database, clamd's first streams, the JIT.
  for (const service of [plain, scanning, baseline]) {
    if (service) await smallUploads(service, files.slice(0, 30));
  }
  const small = { a: [] as SmallRun[], b: [] as SmallRun[], c: [] as SmallRun[] };
  for (let run = 0; run < SMALL_RUNS; run++) {
    small.a.push(await smallUploads(plain, files));
    small.b.push(await smallUploads(scanning, files, clamdPid()));
    if (baseline) small.c.push(await smallUploads(baseline, files, clamdPid()));
  }
  const ms = (runs: SmallRun[]) => runs.map((run) => run.ms);
  const smallPairs = small.b.map((b, index) => b.ms / (small.a[index] as SmallRun).ms);
  const cpu = (runs: SmallRun[], of: (run: SmallRun) => number) =>
    runs.map((run) => Math.round(of(run))).join(' / ');
  console.log(
    `200 x 20 KiB: A ${ms(small.a).map(Math.round).join(' / ')} ms, B ${ms(small.b).map(Math.round).join(' / ')} ms; B / A per pair ${smallPairs.map((r) => r.toFixed(2)).join(' / ')}`,
  );
  console.log(
    `CPU µs per upload: service A ${cpu(small.a, (r) => r.service)}, service B ${cpu(small.b, (r) => r.service)}, clamd ${cpu(small.b, (r) => r.clamd)}; client A ${cpu(small.a, (r) => r.client)}, client B ${cpu(small.b, (r) => r.client)}`,
  );
  const total = (run: SmallRun) => run.service + run.clamd + run.client;
  const cRows: BenchRow[] = [];
  if (baseline) {
    const cPairs = small.c.map((c, index) => c.ms / (small.a[index] as SmallRun).ms);
    console.log(
      `baseline C: ${ms(small.c).map(Math.round).join(' / ')} ms; C / A per pair ${cPairs.map((r) => r.toFixed(2)).join(' / ')}; CPU µs per upload: service C ${cpu(small.c, (r) => r.service)}, clamd ${cpu(small.c, (r) => r.clamd)}, client C ${cpu(small.c, (r) => r.client)}`,
    );
    cRows.push(
      {
        comparison: 'scanning 200 x 20 KiB uploads',
        measure: `C (${process.env.BENCH_BASELINE}) / A per pair (median ratio)`,
        filehost: median(cPairs),
        runs: SMALL_RUNS,
      },
      {
        comparison: 'scanning 200 x 20 KiB uploads',
        measure: `CPU per upload, µs, B (peer: C, ${process.env.BENCH_BASELINE})`,
        filehost: median(small.b.map(total)),
        peer: { name: 'C', value: median(small.c.map(total)) },
        runs: SMALL_RUNS,
      },
    );
  }
  return [
    {
      comparison: 'scanning 200 x 20 KiB uploads',
      measure: 'all 200, six at a time, ms (peer: the same service without a scanner)',
      filehost: median(ms(small.b)),
      peer: { name: 'no scanner', value: median(ms(small.a)) },
      goal: { op: '<=', target: 1.3 },
      runs: SMALL_RUNS,
    },
    {
      comparison: 'scanning 200 x 20 KiB uploads',
      measure: 'B / A per pair (median ratio)',
      filehost: median(smallPairs),
      goal: { op: '<=', target: 1.3 },
      runs: SMALL_RUNS,
    },
    {
      comparison: 'scanning 200 x 20 KiB uploads',
      measure: 'CPU per upload, µs: service + clamd + client (peer: the same without a scanner)',
      filehost: median(small.b.map(total)),
      peer: { name: 'no scanner', value: median(small.a.map(total)) },
      runs: SMALL_RUNS,
    },
    ...cRows,
  ];
}

async function main(): Promise<void> {
  const clamd = await startClamd({ streamsOnDisk: process.env.BENCH_CLAMD_STREAMS === 'disk' });
  if ('skip' in clamd) throw new Error(clamd.skip);
  const dir = await mkdtemp(join(tmpdir(), 'filehost-scan-bench-'));
  const services: ChildService[] = [];
  try {
    const start = async (name: string, extra: Record<string, string>, cwd?: string) => {
      const service = await spawnService(
        {
          FILEHOST_DATA_DIR: await mkdtemp(join(dir, `${name}-`)),
          FILEHOST_LOG_LEVEL: 'error',
          FILEHOST_RATE_LIMIT: '1000000',
          // The free plan caps a file below 256 MiB.
          FILEHOST_PLAN: 'paid',
          FILEHOST_PART_SIZE: String(PART),
          ...extra,
        },
        [],
        cwd ? { cwd } : {},
      );
      services.push(service);
      return service;
    };
    const plain = await start('a', {});
    const scanning = await start('b', { FILEHOST_CLAMD: clamd.socket });
    const rows: BenchRow[] = [];
    if (ONLY !== 'small') rows.push(...(await benchBig(plain, scanning, clamd.clamdscan, dir)));
    if (ONLY !== 'big') {
      const revision = process.env.BENCH_BASELINE;
      if (revision) {
        await withBaselineCheckout(revision, async (checkout) => {
          const baseline = await start('c', { FILEHOST_CLAMD: clamd.socket }, checkout);
          rows.push(...(await benchSmall(plain, scanning, clamd.pid, baseline)));
          baseline.process.kill('SIGTERM');
          await baseline.exited;
          services.splice(services.indexOf(baseline), 1);
        });
      } else {
        rows.push(...(await benchSmall(plain, scanning, clamd.pid)));
      }
    }
    await reportRows(rows);
  } finally {
    for (const service of services) {
      service.process.kill('SIGTERM');
      await service.exited;
    }
    await clamd.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
