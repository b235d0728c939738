/**
 * `npm run bench:serving`: requests per second and throughput of the CDN for a 1 KiB and
 * a 1 MiB file, beside nginx (Debian's package, one worker, sendfile) serving the same
 * bytes from disk, both driven by wrk on loopback. Each server is one process. Installs
 * nginx and wrk with apt-get when they are missing (root on Debian).
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

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
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

function wrk(path: string, url: string): { rps: number; mibPerSecond: number } {
  const output = execFileSync(path, ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, url], {
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
  const nginxPort = await freePort();
  const root = join(dir, 'www');
  await mkdir(root, { recursive: true });
  const urls: Record<string, { filehost: string; nginx: string }> = {};
  for (const [label, bytes] of Object.entries(files)) {
    const response = await fetch(`${service.apiUrl}/v1/upload`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${service.secretKey}`,
        'Content-Type': 'application/octet-stream',
      },
      body: bytes,
    });
    const { id } = (await response.json()) as { id: string };
    const name = label.replace(' ', '');
    await writeFile(join(root, name), bytes);
    urls[label] = {
      filehost: `${service.cdnUrl.replace('localhost', '127.0.0.1')}/${id}`,
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
    console.log('file     server     requests/s      MiB/s   vs nginx');
    const rows: BenchRow[] = [];
    for (const label of Object.keys(files)) {
      const target = urls[label] as { filehost: string; nginx: string };
      const results = {
        filehost: [] as { rps: number; mibPerSecond: number }[],
        nginx: [] as { rps: number; mibPerSecond: number }[],
      };
      for (let run = 0; run < RUNS; run++) {
        results.nginx.push(wrk(wrkPath, target.nginx));
        results.filehost.push(wrk(wrkPath, target.filehost));
      }
      const nginxRps = median(results.nginx.map((r) => r.rps));
      for (const server of ['nginx', 'filehost'] as const) {
        const rps = median(results[server].map((r) => r.rps));
        const mib = median(results[server].map((r) => r.mibPerSecond));
        console.log(
          `${label.padEnd(8)} ${server.padEnd(9)} ${rps.toFixed(0).padStart(11)} ${mib.toFixed(1).padStart(10)} ${(rps / nginxRps).toFixed(2).padStart(10)}`,
        );
      }
      rows.push({
        comparison: 'serving from the CDN',
        measure: `${label} file, requests/s`,
        filehost: median(results.filehost.map((r) => r.rps)),
        peer: { name: 'nginx (sendfile)', value: nginxRps },
        // The goal is for the 1 MiB file; the 1 KiB row is reported without one.
        ...(label === '1 MiB' ? { goal: { op: '>=', target: 0.5 } as const } : {}),
        runs: RUNS,
      });
    }
    await reportRows(rows);
  } finally {
    nginx.kill('SIGTERM');
    service.process.kill('SIGTERM');
    await service.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
