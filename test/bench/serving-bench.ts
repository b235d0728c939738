/**
 * `npm run bench:serving`: requests per second and throughput of the CDN for a 1 KiB and
 * a 1 MiB file, beside nginx (Debian's package, one worker, sendfile) serving the same
 * bytes from disk, and beside the same service with its memory cache off
 * (`FILEHOST_CDN_CACHE_MB=0`), all driven by wrk on loopback. Each server is one process.
 * The contenders take turns within each run (the order rotating from run to run) after a
 * warm-up, and the ratios are per run, so a machine that slows down mid-bench slows
 * every contender of that run alike; the median and the spread (lowest to highest) of
 * the per-run ratios are printed. Installs nginx and wrk with apt-get when they are
 * missing (root on Debian).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { patternBytes } from '../helpers/bytes.js';
import { freePort } from '../helpers/ports.js';
import { spawnService } from '../helpers/service.js';
import { type BenchRow, median, reportRows } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function ensure(binary: string, pkg: string): string {
  const path = [`/usr/sbin/${binary}`, `/usr/bin/${binary}`].find((candidate) =>
    existsSync(candidate),
  );
  if (path) return path;
  console.log(`installing ${pkg} (apt-get)…`);
  execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit' });
  return ensure(binary, pkg);
}

const CONTENDERS = ['nginx', 'filehost', 'filehost, no cache'] as const;
type Contender = (typeof CONTENDERS)[number];
type Measured = { rps: number; mibPerSecond: number };

function wrk(path: string, url: string, seconds = SECONDS): Measured {
  const output = execFileSync(path, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, url], {
    encoding: 'utf8',
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const transfer = /Transfer\/sec:\s+([\d.]+)(\w+)/.exec(output);
  const unit = { B: 1 / 1024 / 1024, KB: 1 / 1024, MB: 1, GB: 1024 }[transfer?.[2] ?? 'MB'] ?? 1;
  if (/Non-2xx/.test(output)) throw new Error(`wrk saw errors:\n${output}`);
  return { rps, mibPerSecond: Number(transfer?.[1]) * unit };
}

async function main(): Promise<void> {
  const nginxPath = ensure('nginx', 'nginx-light');
  const wrkPath = ensure('wrk', 'wrk');
  const dir = await mkdtemp(join(tmpdir(), 'filehost-serving-'));
  // nginx's worker runs as an unprivileged user: it must be able to read the files.
  await chmod(dir, 0o755);
  const files = { '1 KiB': patternBytes(1024, 1), '1 MiB': patternBytes(1024 * 1024, 2) };
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_LOG_LEVEL: 'error',
  });
  const uncached = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service-uncached'),
    FILEHOST_LOG_LEVEL: 'error',
    FILEHOST_CDN_CACHE_MB: '0',
  });
  const nginxPort = await freePort();
  const root = join(dir, 'www');
  await mkdir(root, { recursive: true });
  const urls: Record<string, Record<Contender, string>> = {};
  const uploadTo = async (target: typeof service, bytes: Uint8Array<ArrayBuffer>) => {
    const response = await fetch(`${target.apiUrl}/v1/upload`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${target.secretKey}`,
        'Content-Type': 'application/octet-stream',
      },
      body: bytes,
    });
    const { id } = (await response.json()) as { id: string };
    return `${target.cdnUrl.replace('localhost', '127.0.0.1')}/${id}`;
  };
  for (const [label, bytes] of Object.entries(files)) {
    const name = label.replace(' ', '');
    await writeFile(join(root, name), bytes);
    urls[label] = {
      filehost: await uploadTo(service, bytes),
      'filehost, no cache': await uploadTo(uncached, bytes),
      nginx: `http://127.0.0.1:${nginxPort}/${name}`,
    };
  }
  await writeFile(
    join(dir, 'nginx.conf'),
    `daemon off; worker_processes 1; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')};
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
  server { listen 127.0.0.1:${nginxPort}; root ${root}; } }`,
  );
  const nginx = spawn(nginxPath, ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    console.log(
      `\nCDN serving bench — ${new Date().toISOString()} — wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s, median of ${RUNS}\n`,
    );
    console.log(
      'file     server              requests/s      MiB/s   vs nginx (median, lowest–highest of the runs)',
    );
    const rows: BenchRow[] = [];
    for (const label of Object.keys(files)) {
      const target = urls[label] as Record<Contender, string>;
      const results = Object.fromEntries(CONTENDERS.map((c) => [c, [] as Measured[]])) as Record<
        Contender,
        Measured[]
      >;
      for (const contender of CONTENDERS) wrk(wrkPath, target[contender], 1);
      for (let run = 0; run < RUNS; run++) {
        const order = CONTENDERS.map((_, i) => CONTENDERS[(i + run) % CONTENDERS.length]);
        for (const contender of order as Contender[]) {
          results[contender].push(wrk(wrkPath, target[contender]));
        }
      }
      const ratios = (contender: Contender) =>
        results[contender].map((r, run) => r.rps / (results.nginx[run] as Measured).rps);
      for (const contender of CONTENDERS) {
        const rps = median(results[contender].map((r) => r.rps));
        const mib = median(results[contender].map((r) => r.mibPerSecond));
        const spread = ratios(contender);
        console.log(
          `${label.padEnd(8)} ${contender.padEnd(19)} ${rps.toFixed(0).padStart(10)} ${mib.toFixed(1).padStart(10)} ${median(spread).toFixed(2).padStart(10)} (${Math.min(...spread).toFixed(2)}–${Math.max(...spread).toFixed(2)})`,
        );
      }
      rows.push({
        comparison: 'serving from the CDN',
        measure: `${label} file, requests/s`,
        filehost: median(results.filehost.map((r) => r.rps)),
        peer: { name: 'nginx (sendfile)', value: median(results.nginx.map((r) => r.rps)) },
        goal: { op: '>=', target: label === '1 KiB' ? 0.3 : 0.5 },
        runs: RUNS,
      });
      rows.push({
        comparison: 'serving from the CDN',
        measure: `${label} file, requests/s, memory cache on vs off`,
        filehost: median(results.filehost.map((r) => r.rps)),
        peer: {
          name: 'filehost, cache off',
          value: median(results['filehost, no cache'].map((r) => r.rps)),
        },
        goal: { op: '>=', target: 1 },
        runs: RUNS,
      });
    }
    await reportRows(rows);
  } finally {
    nginx.kill('SIGTERM');
    for (const running of [service, uncached]) {
      running.process.kill('SIGTERM');
      await running.exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
