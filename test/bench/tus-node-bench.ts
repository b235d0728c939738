/**
 * `npx tsx test/bench/tus-node-bench.ts` (`DEPLOYMENT=scale` for PostgreSQL + Ceph RGW): one
 * 256 MiB file from Node three ways, each server in its own process on this machine:
 * tus-js-client (5 MiB chunks) through filehost's `/v1/tus`; the same bytes through
 * `FilehostClient.uploadFile` (filehost's own protocol: sign, parts, complete); and
 * tus-js-client to `@tus/server` with `@tus/file-store` alone (tusd's equivalent, no keys,
 * quotas, scanning or events). At scale filehost writes to Ceph RGW while `@tus/server`
 * still writes to local disk (no fsync). Each run times the three in turn, in an order that
 * rotates from run to run, so a machine whose load drifts favours none; each run's own
 * ratio is printed beside the medians'. Goal (#56): tus through filehost >= 0.8x
 * `@tus/server` alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilehostClient } from '../../src/client/client.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { tusUpload } from '../helpers/tus-client.js';
import { median, reportRows, startBenchScale, startPeer, withBaselineCheckout } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZE = Number(process.env.BENCH_BIG_MIB ?? 256) * 1024 * 1024;
const CHUNK = 5 * 1024 * 1024;
const SCALE = process.env.DEPLOYMENT === 'scale';

async function timed(work: () => Promise<void>): Promise<number> {
  execFileSync('sync');
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** tus-js-client to a filehost service's `/v1/tus` with its secret key; answers the file's id. */
async function throughFilehostTus(service: ChildService, bytes: Buffer): Promise<string> {
  const outcome = await tusUpload(bytes, {
    endpoint: `${service.apiUrl}/v1/tus`,
    chunkSize: CHUNK,
    headers: { Authorization: `Bearer ${service.secretKey}` },
    metadata: { filename: 'big.bin' },
  });
  if (!outcome.fileId) throw new Error(`filehost tus: ${outcome.status} ${outcome.body}`);
  return outcome.fileId;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-tus-node-bench-'));
  const bytes = Buffer.alloc(SIZE, 7);
  // Every upload of the run stays in the bucket's memory (see startBenchScale).
  const scale = SCALE ? await startBenchScale(['http://localhost'], RUNS * 2 * SIZE) : null;
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_PLAN: 'paid',
    FILEHOST_RATE_LIMIT: '1000000',
    FILEHOST_LOG_LEVEL: 'error',
    ...scale?.env,
  });
  await mkdir(join(dir, 'tus'), { recursive: true });
  const peer = await startPeer('test/bench/tus-server.ts', [join(dir, 'tus')]);
  const peerUrl = `http://127.0.0.1:${peer.port}/files`;
  const headers = { Authorization: `Bearer ${service.secretKey}` };
  const client = new FilehostClient({ endpoint: service.apiUrl, apiKey: service.secretKey });
  const remove = (id: string) =>
    fetch(`${service.apiUrl}/v1/files/${id}`, { method: 'DELETE', headers }).then((r) =>
      r.arrayBuffer(),
    );
  const times = { tus: [] as number[], client: [] as number[], peer: [] as number[] };
  const loads: number[] = [];
  let uploaded = '';
  try {
    const contenders: { name: keyof typeof times; upload: () => Promise<void> }[] = [
      {
        name: 'peer',
        upload: async () => {
          const outcome = await tusUpload(bytes, { endpoint: peerUrl, chunkSize: CHUNK });
          if (outcome.status) throw new Error(`@tus/server: ${outcome.status}`);
        },
      },
      {
        name: 'tus',
        upload: async () => {
          uploaded = await throughFilehostTus(service, bytes);
        },
      },
      {
        name: 'client',
        upload: async () => {
          const record = await client.uploadFile(
            { size: SIZE, slice: (start, end) => new Blob([bytes.subarray(start, end)]) },
            { name: 'big.bin' },
          );
          uploaded = record.id;
        },
      },
    ];
    for (let run = 0; run < RUNS; run++) {
      loads.push(loadavg()[0] as number);
      for (let turn = 0; turn < contenders.length; turn++) {
        const contender = contenders[(run + turn) % contenders.length] as (typeof contenders)[0];
        uploaded = '';
        times[contender.name].push(await timed(contender.upload));
        if (uploaded) await remove(uploaded);
      }
    }
  } finally {
    peer.child.kill();
    service.process.kill('SIGTERM');
    await service.exited;
    await scale?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const mib = SIZE / 1024 / 1024;
  const rate = (ms: number) => mib / (ms / 1000);
  const seconds = (list: number[]) => list.map((t) => (t / 1000).toFixed(2)).join(', ');
  const [tus, own, peerTime] = [median(times.tus), median(times.client), median(times.peer)];
  const where = SCALE ? 'scale (PostgreSQL + Ceph RGW)' : 'embedded';
  console.log(
    `\ntus from Node — ${new Date().toISOString()} — ${where}, ${mib} MiB, median of ${RUNS}; load average (1 min) at each run: ${loads.map((l) => l.toFixed(1)).join(', ')}`,
  );
  console.log(
    `runs (s): @tus/server ${seconds(times.peer)}; filehost tus ${seconds(times.tus)}; FilehostClient ${seconds(times.client)}`,
  );
  const perRun = times.peer.map((peerMs, run) => peerMs / (times.tus[run] as number));
  console.log(
    `filehost tus / @tus/server, each run: ${perRun.map((r) => r.toFixed(2)).join(', ')} (median ${median(perRun).toFixed(2)})`,
  );
  console.log(`tus-js-client -> @tus/server + file store: ${rate(peerTime).toFixed(0)} MiB/s`);
  console.log(
    `tus-js-client -> filehost /v1/tus:           ${rate(tus).toFixed(0)} MiB/s = ${(peerTime / tus).toFixed(2)}x @tus/server`,
  );
  console.log(
    `FilehostClient.uploadFile -> filehost:       ${rate(own).toFixed(0)} MiB/s = ${(peerTime / own).toFixed(2)}x @tus/server, ${(tus / own).toFixed(2)}x filehost tus`,
  );
  await reportRows([
    {
      comparison: `tus from Node (${where})`,
      measure: `${mib} MiB upload, MiB/s`,
      filehost: rate(tus),
      peer: { name: 'tus-js-client to @tus/server + file store', value: rate(peerTime) },
      goal: { op: '>=', target: 0.8 },
      runs: RUNS,
    },
  ]);
}

/**
 * `BENCH_BASELINE=<git revision>` (or `BENCH_BASELINE_DIR=<a checkout with node_modules>`):
 * instead, embedded only, tus-js-client to the service of that revision and of this tree,
 * taking turns (each pair starting with the other side); the median of the pairs' ratios
 * tells a change from this machine's drift, which two separate runs of the bench cannot.
 */
async function compareWithBaseline(base: string, label: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-tus-node-ab-'));
  const bytes = Buffer.alloc(SIZE, 7);
  const env = (name: string) => ({
    FILEHOST_DATA_DIR: join(dir, name),
    FILEHOST_PLAN: 'paid',
    FILEHOST_RATE_LIMIT: '1000000',
    FILEHOST_LOG_LEVEL: 'error',
  });
  const before = await spawnService(env('before'), [], { cwd: base });
  const after = await spawnService(env('after'));
  const upload = (service: ChildService) => async () => {
    const id = await throughFilehostTus(service, bytes);
    await fetch(`${service.apiUrl}/v1/files/${id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${service.secretKey}` },
    });
  };
  const pairs: { before: number; after: number; load: number }[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const load = loadavg()[0] as number;
      const first = run % 2 === 0 ? before : after;
      const one = await timed(upload(first));
      const two = await timed(upload(first === before ? after : before));
      pairs.push(
        first === before ? { before: one, after: two, load } : { before: two, after: one, load },
      );
    }
  } finally {
    for (const service of [before, after]) service.process.kill('SIGTERM');
    await Promise.all([before.exited, after.exited]);
    await rm(dir, { recursive: true, force: true });
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const ratios = pairs.map((pair) => pair.before / pair.after);
  console.log(
    `\ntus from Node, ${label} (before) vs this tree (after) — ${new Date().toISOString()} — embedded, ${SIZE / 1024 / 1024} MiB, ${RUNS} pairs taking turns`,
  );
  for (const [index, pair] of pairs.entries()) {
    console.log(
      `  pair ${index + 1}: before ${seconds(pair.before)} s, after ${seconds(pair.after)} s, speed after / before ${(ratios[index] as number).toFixed(2)} (load ${pair.load.toFixed(1)})`,
    );
  }
  console.log(
    `speed after / before, median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
  );
}

const BASELINE = process.env.BENCH_BASELINE;
const BASELINE_DIR = process.env.BENCH_BASELINE_DIR;
(BASELINE_DIR
  ? compareWithBaseline(BASELINE_DIR, BASELINE_DIR)
  : BASELINE
    ? withBaselineCheckout(BASELINE, (checkout) => compareWithBaseline(checkout, BASELINE))
    : main()
).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
