import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { patternBytes } from '../helpers/bytes.js';
import { freePort } from '../helpers/ports.js';
import { cpuMs, startNginx, withChildren } from './serving-support.js';
import { type BenchRow, median } from './support.js';

/**
 * `BENCH_MODE=mix npm run bench:serving`: a real site's traffic rather than one file. 10,000
 * files (`BENCH_MIX_FILES`) of sizes spread evenly on a log scale from 1 KiB to 1 MiB (most
 * files small, most bytes in the large ones), asked for with a Zipf popularity (the k-th most
 * popular file k^-s as often as the first, s = `BENCH_ZIPF`, default 1) in one fixed sequence
 * of 200,000 requests that wrk walks through (a Lua script), against the service with a
 * 64 MiB memory cache (`BENCH_MIX_CACHE_MB`) and nginx (one worker, sendfile) serving the
 * very files the service stored, from the same disk. Each takes a warm-up walk first (the
 * cache and the page cache filled), then they take turns. Printed: requests/s, p99 latency
 * (wrk's), the ratio per run, each server's CPU per request, and the share of the service's
 * requests its memory cache answered (1 - bodies read from the store / requests, counted by
 * the service: `serving-service.ts`).
 */

const execFileAsync = promisify(execFile);

const FILES = Number(process.env.BENCH_MIX_FILES ?? 10_000);
const ZIPF = Number(process.env.BENCH_ZIPF ?? 1);
const CACHE_MB = process.env.BENCH_MIX_CACHE_MB ?? '64';
const SEQUENCE = 200_000;
const MIN_SIZE = 1024;
const MAX_SIZE = 1024 * 1024;

/** A seeded PRNG (mulberry32): the same files and the same sequence in every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` sizes, evenly spread on a log scale from MIN_SIZE to MAX_SIZE. */
function mixedSizes(count: number, next: () => number): number[] {
  return Array.from({ length: count }, () =>
    Math.round(MIN_SIZE * (MAX_SIZE / MIN_SIZE) ** next()),
  );
}

/** `length` file indexes drawn with Zipf popularity over `count` files (index 0 the most popular). */
function zipfSequence(count: number, length: number, s: number, next: () => number): number[] {
  const cumulative: number[] = [];
  let total = 0;
  for (let k = 1; k <= count; k++) {
    total += k ** -s;
    cumulative.push(total);
  }
  return Array.from({ length }, () => {
    const target = next() * total;
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  });
}

interface MixService {
  child: ChildProcess;
  cdnUrl: string;
  apiUrl: string;
  secretKey: string;
  storeReads(): Promise<number>;
}

async function startMixService(dataDir: string): Promise<MixService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/serving-service.ts'], {
    env: {
      ...process.env,
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_API_PORT: '0',
      FILEHOST_CDN_PORT: '0',
      FILEHOST_LOG_LEVEL: 'error',
      FILEHOST_CDN_CACHE_MB: CACHE_MB,
      // 10,000 uploads in a minute or two: past the per-key rate a site would see.
      FILEHOST_RATE_LIMIT: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited (${code}):\n${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += String(chunk);
      if (/KEY \S+/.test(output)) resolve();
    });
  });
  const pick = (label: string) => new RegExp(`${label} (\\S+)`).exec(output)?.[1] as string;
  return {
    child,
    cdnUrl: pick('CDN').replace('localhost', '127.0.0.1'),
    apiUrl: pick('API'),
    secretKey: pick('KEY'),
    storeReads: () =>
      new Promise((resolve) => {
        child.once('message', (message) => resolve((message as { storeReads: number }).storeReads));
        child.send('stats');
      }),
  };
}

/** Uploads the files, a few at a time; their ids in order. */
async function uploadAll(service: MixService, sizes: number[]): Promise<string[]> {
  const ids: string[] = new Array(sizes.length);
  let next = 0;
  const worker = async () => {
    while (next < sizes.length) {
      const index = next++;
      const response = await fetch(`${service.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${service.secretKey}`,
          'Content-Type': 'application/octet-stream',
        },
        body: patternBytes(sizes[index] as number, index + 1),
      });
      if (!response.ok) throw new Error(`upload: ${response.status} ${await response.text()}`);
      ids[index] = ((await response.json()) as { id: string }).id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

/** A wrk script that asks for the paths in `pathsFile`, one a line, in turn, from the start. */
async function walkScript(dir: string, name: string, paths: string[]): Promise<string> {
  const pathsFile = join(dir, `${name}.paths`);
  await writeFile(pathsFile, `${paths.join('\n')}\n`);
  const script = join(dir, `${name}.lua`);
  await writeFile(
    script,
    `local paths = {}
for line in io.lines("${pathsFile}") do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
`,
  );
  return script;
}

interface Walked {
  rps: number;
  p99Ms: number;
  requests: number;
  cpuMicros: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

async function walk(
  wrkPath: string,
  script: string,
  base: string,
  pids: number[],
  seconds: number,
  connections: number,
): Promise<Walked> {
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const { stdout } = await execFileAsync(
    wrkPath,
    ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, base],
    { maxBuffer: 1 << 20 },
  );
  const cpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore;
  if (/Non-2xx/.test(stdout)) throw new Error(`wrk saw errors on ${base}:\n${stdout}`);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(stdout);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]),
    p99Ms: Number(p99?.[1]) * (UNIT_MS[p99?.[2] ?? 'ms'] ?? 1),
    requests,
    cpuMicros: (cpu * 1000) / requests,
  };
}

const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

/** The mix: prints its table and returns the README's rows. */
export async function mixBench(
  nginxPath: string,
  wrkPath: string,
  dir: string,
  options: { runs: number; seconds: number; connections: number },
): Promise<BenchRow[]> {
  const { runs, seconds, connections } = options;
  const next = random(54);
  const sizes = mixedSizes(FILES, next);
  const sequence = zipfSequence(FILES, SEQUENCE, ZIPF, next);
  const service = await startMixService(join(dir, 'service'));
  let nginx: ChildProcess | undefined;
  try {
    const started = Date.now();
    const ids = await uploadAll(service, sizes);
    const totalBytes = sizes.reduce((sum, size) => sum + size, 0);
    console.log(
      `${FILES} files, ${(totalBytes / 2 ** 20).toFixed(0)} MiB, uploaded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    // nginx serves the files the service stored (local disk: storage/blobs/<first two>/<id>);
    // its worker runs as an unprivileged user, so the service's private data dir is opened
    // for it to pass through.
    for (const path of ['service', 'service/storage', 'service/storage/blobs']) {
      await chmod(join(dir, path), 0o755);
    }
    const nginxPort = await freePort();
    nginx = await startNginx(
      nginxPath,
      dir,
      `  sendfile on; tcp_nopush on;
  server { listen 127.0.0.1:${nginxPort}; root ${join(dir, 'service', 'storage', 'blobs')}; }`,
    );
    const contenders = [
      {
        name: 'nginx',
        base: `http://127.0.0.1:${nginxPort}`,
        script: await walkScript(
          dir,
          'nginx',
          sequence.map((index) => `/${ids[index]?.slice(0, 2)}/${ids[index]}`),
        ),
        pids: withChildren(nginx.pid ?? 0),
      },
      {
        name: 'filehost',
        base: service.cdnUrl,
        script: await walkScript(
          dir,
          'filehost',
          sequence.map((index) => `/${ids[index]}`),
        ),
        pids: [service.child.pid ?? 0],
      },
    ];
    for (const contender of contenders) {
      await walk(wrkPath, contender.script, contender.base, contender.pids, seconds, connections);
    }
    const results = new Map(contenders.map((c) => [c.name, [] as Walked[]]));
    const hitRates: number[] = [];
    for (let run = 0; run < runs; run++) {
      for (let i = 0; i < contenders.length; i++) {
        const contender = contenders[(i + run) % contenders.length] as (typeof contenders)[number];
        const readsBefore = contender.name === 'filehost' ? await service.storeReads() : 0;
        const walked = await walk(
          wrkPath,
          contender.script,
          contender.base,
          contender.pids,
          seconds,
          connections,
        );
        if (contender.name === 'filehost') {
          hitRates.push(1 - ((await service.storeReads()) - readsBefore) / walked.requests);
        }
        results.get(contender.name)?.push(walked);
      }
    }
    const of = (name: string) => results.get(name) as Walked[];
    const ratios = of('filehost').map((r, run) => r.rps / (of('nginx')[run] as Walked).rps);
    const p99Ratios = of('filehost').map((r, run) => r.p99Ms / (of('nginx')[run] as Walked).p99Ms);
    console.log(
      `\nserver     requests/s                  p99 ms                  CPU µs/request          (median (lowest–highest) of ${runs})`,
    );
    for (const { name } of contenders) {
      const walked = of(name);
      console.log(
        `${name.padEnd(10)} ${spread(
          walked.map((r) => r.rps),
          0,
        ).padEnd(27)} ${spread(
          walked.map((r) => r.p99Ms),
          1,
        ).padEnd(23)} ${spread(
          walked.map((r) => r.cpuMicros),
          1,
        )}`,
      );
    }
    console.log(
      `per run: filehost / nginx, requests/s: ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
    );
    console.log(`per run: filehost / nginx, p99: ${p99Ratios.map((r) => r.toFixed(2)).join(' ')}`);
    console.log(
      `memory cache (${CACHE_MB} MiB) hit rate, per run: ${hitRates.map((r) => `${(r * 100).toFixed(1)}%`).join(' ')}`,
    );
    const nginxRps = median(of('nginx').map((r) => r.rps));
    const nginxP99 = median(of('nginx').map((r) => r.p99Ms));
    const measure = `${FILES.toLocaleString('en-US')} files 1 KiB-1 MiB, Zipf ${ZIPF}, cache ${CACHE_MB} MiB`;
    return [
      {
        comparison: 'serving from the CDN, a site mix',
        measure: `${measure}, requests/s`,
        filehost: median(ratios) * nginxRps,
        peer: { name: 'nginx', value: nginxRps },
        runs,
      },
      {
        comparison: 'serving from the CDN, a site mix',
        measure: `${measure}, p99 latency, ms`,
        filehost: median(p99Ratios) * nginxP99,
        peer: { name: 'nginx', value: nginxP99 },
        runs,
      },
      {
        comparison: 'serving from the CDN, a site mix',
        measure: `${measure}, memory cache hit rate, %`,
        filehost: median(hitRates) * 100,
        runs,
      },
    ];
  } finally {
    nginx?.kill('SIGTERM');
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
  }
}
