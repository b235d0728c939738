/**
 * `npm run bench:serving`: requests per second and throughput of the CDN for a 1 KiB and
 * a 1 MiB file, beside what else could serve the same bytes, all driven by wrk on loopback.
 * Each server is one process.
 *
 * Embedded (the default): nginx (Debian's package, one worker, sendfile) serving the bytes
 * from disk; the runtime's own limit, plain `node:http` answering the same bytes with the
 * same headers from memory (`node, memory`) and streaming them from disk (`node, disk`;
 * `plain-cdn-server.ts`); the service; and the service with its memory cache off
 * (`FILEHOST_CDN_CACHE_MB=0`).
 *
 * `DEPLOYMENT=scale`: one instance on PostgreSQL and S3 (a throwaway Ceph RGW), beside
 * nginx proxying the same bucket objects (`proxy_pass` to the gateway, the objects made
 * readable without a signature for it); and the instance with its memory cache off.
 *
 * The contenders take turns within each run (the order rotating from run to run) after a
 * warm-up, and the ratios are per run, so a machine that slows down mid-bench slows
 * every contender of that run alike; the median and the spread (lowest to highest) of
 * the per-run ratios are printed. Embedded, each server's CPU time per request is printed
 * too (user and system, from /proc): on a machine shared with other work it moves far
 * less than the rates do. `BENCH_SIZES` (comma-separated: bytes, or `1KiB`, `1MiB`) measures other
 * file sizes (the memory cache's size limit was chosen so). `BENCH_MODE=mix` measures a
 * site's traffic instead: thousands of files of mixed sizes with a Zipf popularity against
 * nginx (`serving-mix.ts`). Installs nginx and wrk with apt-get when they are missing (root
 * on Debian).
 *
 * `BENCH_METRICS=1` measures what Prometheus metrics cost the CDN instead (embedded): fresh
 * pairs of services, metrics off and on, each pair measured A B B A, with the median ratio
 * and its interval (`serving-metrics.ts`). `BENCH_PAIRS` pairs (default 8), `BENCH_CACHE`
 * `on`, `off` or both, `BENCH_SIZES` as above; `BENCH_CONTROL=1` leaves metrics off on both
 * sides, to show the bench's own noise; `BENCH_SCRAPE=0` leaves B unscraped (counting only).
 * `BENCH_METRICS_WITHOUT=<part>` takes one part of "metrics on" out of B, to find by ablation
 * which part costs what the pairs measure (`src/server/metrics/bench-ablation.ts`): B then
 * counts with everything but that part, against A without metrics. Several words, space-
 * separated, make several B sides in each pair, each against the same A (`none`: metrics on,
 * nothing out; `off`: metrics off, a control in the same schedule). The parts:
 * `memory-count` (the memory path's counting call), `metrics-server` (the metrics port's
 * server not started: B is then never scraped), `registered-metrics` (every metric made and
 * counted into, none registered: the scrape is empty), `default-collectors` (prom-client's
 * `collectDefaultMetrics` not called), `parser-refusals` (the servers' `clientErrorHandler`
 * not told of parser refusals), `clock` (the memory path's `performance.now()` calls).
 * Comma-separated, several parts go out together.
 *
 * `BENCH_CPU_PROF=<dir>` writes a CPU profile of each service (embedded or at scale) into
 * `<dir>`, taken during the bench itself.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectAclCommand } from '@aws-sdk/client-s3';
import { patternBytes } from '../helpers/bytes.js';
import { rgwClient, startRgw, type TestRgw } from '../helpers/ceph-rgw.js';
import { freePort } from '../helpers/ports.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { scaleEnv } from '../helpers/scale.js';
import { spawnService } from '../helpers/service.js';
import { BENCH_METRICS } from './metrics-scraper.js';
import { metricsPairsBench, parseCacheStates, parseVariants } from './serving-metrics.js';
import { mixBench } from './serving-mix.js';
import {
  ensure,
  labelOf,
  type Measured,
  parseSize,
  rgwProxyConfig,
  servedHeaders,
  startNginx,
  upload,
  withChildren,
  wrk,
} from './serving-support.js';
import { type BenchRow, median, reportRows, startPeer } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SCALE = process.env.DEPLOYMENT === 'scale';
const SIZES = (process.env.BENCH_SIZES ?? '1024,1048576').split(',').map(parseSize);
/** `BENCH_METRICS`: fresh pairs of services, metrics off and on (`serving-metrics.ts`). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 8);
const CONTROL = process.env.BENCH_CONTROL === '1';
const SCRAPED = process.env.BENCH_SCRAPE !== '0';
/** `BENCH_METRICS_WITHOUT`: the B sides of each pair, parts of metrics taken out (`serving-metrics.ts`). */
const VARIANTS = parseVariants(process.env.BENCH_METRICS_WITHOUT, CONTROL);
/** The service with its memory cache off: every body read from the store. */
const NO_CACHE = 'filehost, no cache';
/**
 * `BENCH_CPU_PROF=<dir>`: each service of the bench writes a V8 CPU profile of its whole
 * run under `<dir>/<its name>/` when it stops (`node --cpu-prof`), so the service is
 * profiled in the bench's own scenario, its contenders taking turns beside it.
 */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

function profiled(name: string): string[] {
  if (!CPU_PROF_DIR) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF_DIR, name.replaceAll(/\W+/g, '-'))}`];
}

type Urls = Record<string, string>;

/** A contender: its name and the URL of each file (by label) on it. */
interface Contender {
  name: string;
  urls: Record<string, string>;
  /** The server's processes, whose CPU time is counted. */
  pids: number[];
}

/** What a setup gives: the contenders (the first is what ratios are taken against), and how to stop. */
interface Setup {
  contenders: Contender[];
  /** The names ratios are printed against (the first is the README's "vs nginx"). */
  baselines: string[];
  /** At scale: the bucket's gateway, whose CPU time per request is printed beside each server's. */
  storePids?: number[];
  /** At scale: PostgreSQL's main process, whose CPU (backends included) is printed too. */
  databasePid?: number;
  stop(): Promise<void>;
}

async function embedded(
  nginxPath: string,
  dir: string,
  files: Record<string, Uint8Array<ArrayBuffer>>,
): Promise<Setup> {
  const service = await spawnService(
    { FILEHOST_DATA_DIR: join(dir, 'service'), FILEHOST_LOG_LEVEL: 'error' },
    profiled('filehost'),
  );
  const uncached = await spawnService(
    {
      FILEHOST_DATA_DIR: join(dir, 'service-uncached'),
      FILEHOST_LOG_LEVEL: 'error',
      FILEHOST_CDN_CACHE_MB: '0',
    },
    profiled(NO_CACHE),
  );
  const nginxPort = await freePort();
  const root = join(dir, 'www');
  await mkdir(root, { recursive: true });
  const contenders: Contender[] = [
    'nginx',
    'node, memory',
    'node, disk',
    'filehost',
    'filehost, no cache',
  ].map((name) => ({ name, urls: {}, pids: [] as number[] }));
  const [nginxUrls, memoryUrls, diskUrls, filehostUrls, uncachedUrls] = contenders.map(
    (c) => c.urls,
  ) as [Urls, Urls, Urls, Urls, Urls];
  const headersByName: Record<string, Record<string, string>> = {};
  for (const [label, bytes] of Object.entries(files)) {
    const name = label.replace(' ', '');
    await writeFile(join(root, name), bytes);
    const cached = await upload(service, bytes);
    filehostUrls[label] = cached.url;
    uncachedUrls[label] = (await upload(uncached, bytes)).url;
    nginxUrls[label] = `http://127.0.0.1:${nginxPort}/${name}`;
    headersByName[name] = await servedHeaders(cached.url);
  }
  await writeFile(join(dir, 'headers.json'), JSON.stringify(headersByName));
  const plain = async (mode: 'memory' | 'disk', urls: Record<string, string>) => {
    const peer = await startPeer('test/bench/plain-cdn-server.ts', [
      mode,
      root,
      join(dir, 'headers.json'),
    ]);
    for (const label of Object.keys(files)) {
      urls[label] = `http://127.0.0.1:${peer.port}/${label.replace(' ', '')}`;
    }
    return peer.child;
  };
  const peers = [await plain('memory', memoryUrls), await plain('disk', diskUrls)];
  const nginx = await startNginx(
    nginxPath,
    dir,
    `  sendfile on; tcp_nopush on;
  server { listen 127.0.0.1:${nginxPort}; root ${root}; }`,
  );
  // The CPU each takes (at scale the gateway's would count too, so only here).
  const pids = [withChildren(nginx.pid ?? 0), ...peers.map((peer) => [peer.pid ?? 0])];
  pids.push([service.process.pid ?? 0], [uncached.process.pid ?? 0]);
  contenders.forEach((contender, index) => {
    contender.pids = pids[index] ?? [];
  });
  return {
    contenders,
    baselines: ['nginx', 'node, memory', 'node, disk'],
    async stop() {
      nginx.kill('SIGTERM');
      for (const peer of peers) peer.kill('SIGTERM');
      for (const running of [service, uncached]) {
        running.process.kill('SIGTERM');
        await running.exited;
      }
    },
  };
}

/** The bucket's CORS rule needs an origin; nothing here runs in a browser. */
const ORIGINS = ['http://localhost'];

async function scale(
  nginxPath: string,
  dir: string,
  files: Record<string, Uint8Array<ArrayBuffer>>,
): Promise<Setup> {
  const [pg, rgw] = await Promise.all([startPostgres(), startRgw()]);
  const stopStores = async () => {
    if (!('skip' in pg)) await pg.stop();
    if (!('skip' in rgw)) await rgw.stop();
  };
  if ('skip' in pg || 'skip' in rgw) {
    await stopStores();
    throw new Error(('skip' in pg ? pg.skip : '') || ('skip' in rgw ? rgw.skip : ''));
  }
  try {
    return await scaleContenders(pg, rgw, nginxPath, dir, files, stopStores);
  } catch (error) {
    await stopStores();
    throw error;
  }
}

async function scaleContenders(
  pg: TestPostgres,
  rgw: TestRgw,
  nginxPath: string,
  dir: string,
  files: Record<string, Uint8Array<ArrayBuffer>>,
  stopStores: () => Promise<void>,
): Promise<Setup> {
  const env = await scaleEnv(pg, rgw, ORIGINS);
  const service = await spawnService({ ...env, FILEHOST_LOG_LEVEL: 'error' }, profiled('filehost'));
  const uncached = await spawnService(
    {
      ...(await scaleEnv(pg, rgw, ORIGINS)),
      FILEHOST_LOG_LEVEL: 'error',
      FILEHOST_CDN_CACHE_MB: '0',
    },
    profiled(NO_CACHE),
  );
  const s3 = rgwClient(rgw);
  const rgwPort = new URL(rgw.endpoint).port;
  const nginxPort = await freePort();
  const contenders: Contender[] = ['nginx -> RGW', 'filehost', 'filehost, no cache'].map(
    (name) => ({ name, urls: {}, pids: [] as number[] }),
  );
  const [rgwUrls, filehostUrls, uncachedUrls] = contenders.map((c) => c.urls) as [Urls, Urls, Urls];
  for (const [label, bytes] of Object.entries(files)) {
    const cached = await upload(service, bytes);
    filehostUrls[label] = cached.url;
    uncachedUrls[label] = (await upload(uncached, bytes)).url;
    // The very object the instance serves, readable by nginx without a signature.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: env.FILEHOST_S3_BUCKET }));
    const key = listed.Contents?.map((object) => object.Key ?? '').find((k) =>
      k.includes(cached.id),
    );
    if (!key) throw new Error(`no object for ${cached.id} in the bucket`);
    await s3.send(
      new PutObjectAclCommand({ Bucket: env.FILEHOST_S3_BUCKET, Key: key, ACL: 'public-read' }),
    );
    rgwUrls[label] = `http://127.0.0.1:${nginxPort}/${env.FILEHOST_S3_BUCKET}/${key}`;
  }
  const nginx = await startNginx(nginxPath, dir, rgwProxyConfig(rgwPort, nginxPort));
  const [nginxSide, serviceSide, uncachedSide] = contenders as [Contender, Contender, Contender];
  nginxSide.pids = withChildren(nginx.pid ?? 0);
  serviceSide.pids = [service.process.pid ?? 0];
  uncachedSide.pids = [uncached.process.pid ?? 0];
  return {
    contenders,
    baselines: ['nginx -> RGW'],
    storePids: rgw.pids(),
    ...(pg.postmasterPid ? { databasePid: pg.postmasterPid() } : {}),
    async stop() {
      nginx.kill('SIGTERM');
      for (const running of [service, uncached]) {
        running.process.kill('SIGTERM');
        await running.exited;
      }
      await stopStores();
    },
  };
}

async function main(): Promise<void> {
  const nginxPath = ensure('nginx', 'nginx-light');
  const wrkPath = ensure('wrk', 'wrk');
  const dir = await mkdtemp(join(tmpdir(), 'filehost-serving-'));
  // nginx's worker runs as an unprivileged user: it must be able to read the files.
  await chmod(dir, 0o755);
  if (process.env.BENCH_MODE === 'mix') {
    try {
      console.log(
        `\nCDN serving bench, a site's mix (embedded) — ${new Date().toISOString()} — wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s, ${RUNS} runs`,
      );
      await reportRows(
        await mixBench(nginxPath, wrkPath, dir, {
          runs: RUNS,
          seconds: SECONDS,
          connections: CONNECTIONS,
        }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return;
  }
  const files = Object.fromEntries(
    SIZES.map((size, index) => [labelOf(size), patternBytes(size, index + 1)]),
  );
  if (BENCH_METRICS) {
    try {
      console.log(
        `\nCDN serving bench, metrics on (B) against off (A), embedded — ${new Date().toISOString()} — wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s per run, ${PAIRS} pairs, each measured ${VARIANTS.length > 1 ? 'in a palindrome (A B1 ... B1 A), rotated by one each pair' : 'A B B A or B A A B'}${CONTROL ? '; CONTROL: metrics off on both sides' : SCRAPED ? '' : '; B not scraped'}${VARIANTS.length > 1 || VARIANTS[0]?.without.length ? `; B sides: ${VARIANTS.map((variant, index) => `B${index + 1} ${variant.name}`).join('; ')}` : ''}\n`,
      );
      await reportRows(
        await metricsPairsBench({
          wrkPath,
          dir,
          files,
          caches: parseCacheStates(process.env.BENCH_CACHE),
          pairs: PAIRS,
          seconds: SECONDS,
          connections: CONNECTIONS,
          scraped: SCRAPED,
          variants: VARIANTS,
          floor: 0.97,
        }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return;
  }
  const setup = await (SCALE ? scale : embedded)(nginxPath, dir, files);
  const { contenders, baselines, storePids, databasePid } = setup;
  // The pairs the goals are on: the cache on against the runtime from memory, the cache off
  // against the runtime from disk (embedded) or nginx proxying the bucket (at scale).
  const goalPairs: [string, string][] = SCALE
    ? [
        ['filehost', 'nginx -> RGW'],
        [NO_CACHE, 'nginx -> RGW'],
      ]
    : [
        ['filehost', 'node, memory'],
        [NO_CACHE, 'node, disk'],
      ];
  try {
    console.log(
      `\nCDN serving bench (${SCALE ? 'scale' : 'embedded'}) — ${new Date().toISOString()} — wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s, median of ${RUNS}\n`,
    );
    console.log(
      `file     server                    requests/s      MiB/s   ${baselines.map((b) => `vs ${b} (median, lowest–highest)`.padEnd(40)).join('')}CPU µs/request (median, lowest–highest)${SCALE ? '; RGW, PostgreSQL for it' : ''}`,
    );
    const rows: BenchRow[] = [];
    for (const label of Object.keys(files)) {
      const results = new Map<string, Measured[]>(contenders.map((c) => [c.name, []]));
      const drive = (contender: Contender, seconds = SECONDS) =>
        wrk(wrkPath, contender.urls[label] as string, contender.pids, {
          seconds,
          connections: CONNECTIONS,
          storePids,
          ...(databasePid ? { databasePid } : {}),
        });
      for (const contender of contenders) drive(contender, 1);
      for (let run = 0; run < RUNS; run++) {
        for (let i = 0; i < contenders.length; i++) {
          const contender = contenders[(i + run) % contenders.length] as Contender;
          results.get(contender.name)?.push(drive(contender));
        }
      }
      const of = (name: string) => results.get(name) as Measured[];
      const ratios = (name: string, baseline: string) =>
        of(name).map((r, run) => r.rps / (of(baseline)[run] as Measured).rps);
      const rps = (name: string) => median(of(name).map((r) => r.rps));
      for (const { name } of contenders) {
        const mib = median(of(name).map((r) => r.mibPerSecond));
        const columns = baselines.map((baseline) => {
          const spread = ratios(name, baseline);
          return `${median(spread).toFixed(2).padStart(6)} (${Math.min(...spread).toFixed(2)}–${Math.max(...spread).toFixed(2)})`.padEnd(
            40,
          );
        });
        // The server's own CPU time per request: what the other sessions' load moves least.
        const cpu = of(name).map((r) => r.cpuMicros);
        const storeCpu = median(of(name).map((r) => r.storeCpuMicros));
        const databaseCpu = median(of(name).map((r) => r.databaseCpuMicros));
        const cpuColumn = `${median(cpu).toFixed(1).padStart(6)} (${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)})${SCALE ? `; RGW ${storeCpu.toFixed(1)}, PostgreSQL ${databaseCpu.toFixed(1)}` : ''}`;
        console.log(
          `${label.padEnd(8)} ${name.padEnd(25)} ${rps(name).toFixed(0).padStart(10)} ${mib.toFixed(1).padStart(10)}   ${columns.join('')}${cpuColumn}`,
        );
      }
      // The goals' ratios run by run: their spread is how far one run can be trusted.
      for (const [name, peer] of goalPairs) {
        const each = ratios(name, peer).map((ratio) => ratio.toFixed(2));
        console.log(`${label.padEnd(8)} per run: ${name} / ${peer}: ${each.join(' ')}`);
      }
      // The README's rows: medians of the per-run ratios.
      const row = (measure: string, name: string, peer: string, target?: number): BenchRow => {
        const ratio = median(ratios(name, peer));
        return {
          comparison: 'serving from the CDN',
          measure,
          filehost: ratio * rps(peer),
          peer: { name: peer, value: rps(peer) },
          ...(target === undefined ? {} : { goal: { op: '>=' as const, target } }),
          runs: RUNS,
        };
      };
      if (SCALE) {
        rows.push(row(`${label} file at scale, cache on, requests/s`, 'filehost', 'nginx -> RGW'));
        rows.push(
          row(`${label} file at scale, cache off, requests/s`, NO_CACHE, 'nginx -> RGW', 0.8),
        );
      } else {
        rows.push(row(`${label} file, cache on, requests/s`, 'filehost', 'node, memory', 0.9));
        rows.push(row(`${label} file, cache off, requests/s`, NO_CACHE, 'node, disk', 0.8));
        rows.push(row(`${label} file, cache on, requests/s`, 'filehost', 'nginx', 0.6));
        rows.push(row(`${label} file, cache off, requests/s`, NO_CACHE, 'nginx'));
      }
      console.log();
    }
    await reportRows(rows);
  } finally {
    await setup.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
