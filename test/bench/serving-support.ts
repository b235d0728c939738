import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildService } from '../helpers/service.js';

/** What `bench:serving`'s modes share: the tools they drive, and how a server's CPU is read. */

/** The path of a Debian tool, installed with apt-get when it is missing (root on Debian). */
export function ensure(binary: string, pkg: string): string {
  const path = [`/usr/sbin/${binary}`, `/usr/bin/${binary}`].find((candidate) =>
    existsSync(candidate),
  );
  if (path) return path;
  console.log(`installing ${pkg} (apt-get)…`);
  execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit' });
  return ensure(binary, pkg);
}

/**
 * CPU time a process has used so far, in ms (`/proc/<pid>/stat`: utime and stime, in ticks
 * of 10 ms); with `thread`, that thread's alone (the main thread's id is the process's).
 */
export function cpuMs(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU ms a process and all its descendants have used so far, those that exited included
 * (their time is in their parent's `cutime`/`cstime` once reaped): PostgreSQL's server,
 * whose backends come and go with the pools' connections.
 */
export function treeCpuMs(pid: number): number {
  let stat: string;
  let children: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  } catch {
    return 0; // exited meanwhile: its time is its parent's now
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = [11, 12, 13, 14].reduce((sum, at) => sum + Number(fields[at]), 0) * 10;
  const live = children ? children.split(' ').map(Number) : [];
  return live.reduce((sum, child) => sum + treeCpuMs(child), own);
}

/** A process and its children (nginx's master and its worker). */
export function withChildren(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return [pid, ...(children ? children.split(' ').map(Number) : [])];
}

/**
 * nginx's `http` lines for proxying the bucket at `rgwPort` on `nginxPort`, as a deployment
 * would: HTTP/1.1 and kept-alive connections upstream, buffering on by default.
 */
export function rgwProxyConfig(rgwPort: string | number, nginxPort: number): string {
  return `  upstream rgw { server 127.0.0.1:${rgwPort}; keepalive 16; }
  server { listen 127.0.0.1:${nginxPort};
    location / { proxy_pass http://rgw; proxy_http_version 1.1; proxy_set_header Connection ""; } }`;
}

/** nginx (one worker, no access log) with the given `http` block lines, under `dir`. */
export function startNginx(nginxPath: string, dir: string, http: string) {
  return writeFile(
    join(dir, 'nginx.conf'),
    `daemon off; worker_processes 1; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')};
events { worker_connections 1024; }
http { access_log off; keepalive_requests 100000;
${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `  ${name}_temp_path ${join(dir, `${name}_temp`)};`).join('\n')}
${http}
}`,
  ).then(async () => {
    const child = spawn(nginxPath, ['-c', join(dir, 'nginx.conf'), '-p', dir], {
      stdio: 'ignore',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode})`);
    return child;
  });
}

/**
 * A run's rate, and the CPU time per request (user and system, all its processes) its server
 * took and, at scale, the bucket's gateway took for it.
 */
export type Measured = {
  rps: number;
  mibPerSecond: number;
  cpuMicros: number;
  storeCpuMicros: number;
  /** At scale: PostgreSQL's, all its processes (`treeCpuMs`). */
  databaseCpuMicros: number;
};

/** CPU ms the processes `pids` have used so far. */
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);

/**
 * wrk (one thread) on `url` for `seconds` over `connections`, and the CPU `pids` took
 * meanwhile (and `storePids`, the bucket's gateway at scale).
 */
export function wrk(
  path: string,
  url: string,
  pids: number[],
  {
    seconds,
    connections,
    storePids = [],
    databasePid,
    headers = [],
  }: {
    seconds: number;
    connections: number;
    storePids?: number[];
    /** PostgreSQL's main process, at scale. */
    databasePid?: number;
    /** Request headers wrk adds to every request (`-H`). */
    headers?: [string, string][];
  },
): Measured {
  const cpuBefore = cpuOf(pids);
  const storeBefore = cpuOf(storePids);
  const databaseBefore = databasePid ? treeCpuMs(databasePid) : 0;
  const headerArgs = headers.flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const output = execFileSync(
    path,
    ['-t1', `-c${connections}`, `-d${seconds}s`, ...headerArgs, url],
    { encoding: 'utf8' },
  );
  const cpu = cpuOf(pids) - cpuBefore;
  const storeCpu = cpuOf(storePids) - storeBefore;
  const databaseCpu = databasePid ? treeCpuMs(databasePid) - databaseBefore : 0;
  const requests = Number(/(\d+) requests in/.exec(output)?.[1]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const transfer = /Transfer\/sec:\s+([\d.]+)(\w+)/.exec(output);
  const unit = { B: 1 / 1024 / 1024, KB: 1 / 1024, MB: 1, GB: 1024 }[transfer?.[2] ?? 'MB'] ?? 1;
  if (/Non-2xx/.test(output)) throw new Error(`wrk saw errors on ${url}:\n${output}`);
  return {
    rps,
    mibPerSecond: Number(transfer?.[1]) * unit,
    cpuMicros: (cpu * 1000) / requests,
    storeCpuMicros: (storeCpu * 1000) / requests,
    databaseCpuMicros: (databaseCpu * 1000) / requests,
  };
}

/** Uploads `bytes` to a service as a public file: its id and its CDN URL (on 127.0.0.1). */
export async function upload(
  target: ChildService,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<{ id: string; url: string }> {
  const response = await fetch(`${target.apiUrl}/v1/upload`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${target.secretKey}`,
      'Content-Type': 'application/octet-stream',
    },
    body: bytes,
  });
  if (!response.ok) throw new Error(`upload: ${response.status} ${await response.text()}`);
  const { id } = (await response.json()) as { id: string };
  return { id, url: `${target.cdnUrl.replace('localhost', '127.0.0.1')}/${id}` };
}

/** A file size as `BENCH_SIZES` names it: bytes, or a number with `KiB` or `MiB`. */
export function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(KiB|MiB)?\s*$/i.exec(text);
  if (!match) throw new Error(`not a size: ${text} (bytes, or e.g. 1KiB, 1MiB)`);
  const unit = { kib: 1024, mib: 1024 * 1024 }[match[2]?.toLowerCase() ?? ''] ?? 1;
  return Math.round(Number(match[1]) * unit);
}

/** A size as the tables name it: `1 KiB`, `1 MiB`, else bytes. */
export function labelOf(size: number): string {
  if (size >= 1024 * 1024 && size % (1024 * 1024) === 0) return `${size / 1024 / 1024} MiB`;
  if (size >= 1024 && size % 1024 === 0) return `${size / 1024} KiB`;
  return `${size} B`;
}

/** The headers the CDN answers a URL with, but those of the connection and the moment. */
export async function servedHeaders(url: string): Promise<Record<string, string>> {
  const response = await fetch(url);
  await response.arrayBuffer();
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) {
      headers[name] = value;
    }
  }
  return headers;
}

/**
 * Writes `<dir>/headers.json` with the headers the service answered `url` with (bar the
 * connection's own and `Date`), for plain-cdn-server.ts to send the same for `file`.
 */
export async function writePlainHeaders(dir: string, url: string): Promise<void> {
  await writeFile(join(dir, 'headers.json'), JSON.stringify({ file: await servedHeaders(url) }));
}

/** Node's arguments for plain-cdn-server.ts answering `dir`'s `file` from memory. */
export function plainMemoryArgs(dir: string): string[] {
  return [
    '--import',
    'tsx',
    'test/bench/plain-cdn-server.ts',
    'memory',
    dir,
    join(dir, 'headers.json'),
  ];
}
