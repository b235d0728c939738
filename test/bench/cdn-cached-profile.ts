/**
 * `npx tsx test/bench/cdn-cached-profile.ts`: where a CDN answer from memory spends its CPU
 * beside plain `node:http` answering the same bytes with the same headers from memory
 * (`plain-cdn-server.ts memory`). Both run under `node --cpu-prof`, each driven by wrk in
 * turns; from each profile, the self time of every function (bottom-up) while wrk ran, in
 * microseconds per request, side by side, largest difference first. Also prints each
 * side's CPU time per request (all threads, /proc) and the bytes of one answer's head.
 *
 * `PROFILE_BYTES` (default 1024), `BENCH_RUNS` turns (default 3), `BENCH_SECONDS` of wrk per
 * turn (default 5), `PROFILE_TOP` rows (default 40); `PROFILE_KEEP=<dir>` keeps both profiles
 * (`.cpuprofile`, for Chrome's DevTools) and the windows wrk ran in. The profiler's sampling costs CPU on
 * both sides alike; read the differences, not the absolute times.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { patternBytes } from '../helpers/bytes.js';
import { spawnService } from '../helpers/service.js';
import { monotonicMicros, type Profile, type ProfileNode } from './cpu-profile.js';
import { cpuMs, plainMemoryArgs, upload, writePlainHeaders } from './serving-support.js';

const BYTES = Number(process.env.PROFILE_BYTES ?? 1024);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TOP = Number(process.env.PROFILE_TOP ?? 40);

function frameName(frame: ProfileNode['callFrame']): string {
  const where = frame.url.replace(/.*\/(node_modules|src|test)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${where}${where ? `:${frame.lineNumber + 1}` : ''}`;
}

/** Self time (µs) per function over the samples taken inside `windows`. */
function selfTimes(profile: Profile, windows: [number, number][]): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const times = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((sample, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (!windows.some(([from, to]) => at >= from && at <= to)) return;
    const frame = byId.get(sample)?.callFrame;
    if (!frame || frame.functionName === '(idle)') return;
    const name = frameName(frame);
    // A sample stands for the time since the one before it.
    times.set(name, (times.get(name) ?? 0) + delta);
  });
  return times;
}

interface Side {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
  profileDir: string;
  windows: [number, number][];
  requests: number;
  cpuMs: number;
}

/** One answer's head as it goes on the wire, read from a raw socket. */
async function headOf(url: string): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end !== -1) {
        socket.destroy();
        resolve(text.slice(0, end + 4));
      }
    });
    socket.on('error', reject);
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

const dir = await mkdtemp(join(tmpdir(), 'cdn-cached-profile-'));
try {
  const serviceProfile = join(dir, 'profile-filehost');
  const service = await spawnService(
    { FILEHOST_DATA_DIR: join(dir, 'data'), FILEHOST_LOG_LEVEL: 'error' },
    ['--cpu-prof', `--cpu-prof-dir=${serviceProfile}`],
  );
  const bytes = patternBytes(BYTES);
  const served = await upload(service, bytes);
  await writeFile(join(dir, 'file'), bytes);
  await writePlainHeaders(dir, served.url);
  // The plain server writes its profile only on a clean exit.
  await writeFile(join(dir, 'exit-on-term.mjs'), "process.on('SIGTERM', () => process.exit(0));\n");
  const plainProfile = join(dir, 'profile-plain');
  const plain = spawn(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${plainProfile}`,
      '--import',
      join(dir, 'exit-on-term.mjs'),
      ...plainMemoryArgs(dir),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    plain.once('exit', (code) => reject(new Error(`plain server exited (${code})`)));
    plain.stdout?.on('data', (chunk: Buffer) => {
      const match = /PORT (\d+)/.exec(String(chunk));
      if (match?.[1]) resolve(Number(match[1]));
    });
  });
  const sides: Side[] = [
    {
      name: 'filehost',
      url: served.url,
      pid: service.process.pid ?? 0,
      profileDir: serviceProfile,
      windows: [],
      requests: 0,
      cpuMs: 0,
      async stop() {
        service.process.kill('SIGTERM');
        await service.exited;
      },
    },
    {
      name: 'node, memory',
      url: `http://127.0.0.1:${port}/file`,
      pid: plain.pid ?? 0,
      profileDir: plainProfile,
      windows: [],
      requests: 0,
      cpuMs: 0,
      async stop() {
        plain.kill('SIGTERM');
        await exited(plain);
      },
    },
  ];
  for (const side of sides) {
    const head = await headOf(side.url);
    console.log(`\n${side.name}: head ${Buffer.byteLength(head, 'latin1')} B\n${head.trimEnd()}`);
    execFileSync('wrk', ['-t1', '-c32', '-d2s', side.url]);
  }
  for (let run = 0; run < RUNS; run++) {
    for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
      const before = cpuMs(side.pid);
      const from = monotonicMicros();
      const output = execFileSync('wrk', ['-t1', '-c32', `-d${SECONDS}s`, side.url], {
        encoding: 'utf8',
      });
      side.windows.push([from, monotonicMicros()]);
      side.cpuMs += cpuMs(side.pid) - before;
      side.requests += Number(/(\d+) requests in/.exec(output)?.[1]);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
      console.log(`run ${run + 1} ${side.name}: ${Math.round(rps)} requests/s`);
    }
  }
  const perRequest: Map<string, number>[] = [];
  for (const side of sides) {
    await side.stop();
    const [file] = await readdir(side.profileDir);
    if (!file) throw new Error(`no profile in ${side.profileDir}`);
    const text = await readFile(join(side.profileDir, file), 'utf8');
    if (process.env.PROFILE_KEEP) {
      await writeFile(
        join(process.env.PROFILE_KEEP, `${side.name.replaceAll(/\W+/g, '-')}.cpuprofile`),
        text,
      );
      await writeFile(
        join(process.env.PROFILE_KEEP, `${side.name.replaceAll(/\W+/g, '-')}.windows.json`),
        JSON.stringify({ windows: side.windows, requests: side.requests }),
      );
    }
    const profile = JSON.parse(text) as Profile;
    const times = selfTimes(profile, side.windows);
    const micros = new Map([...times].map(([name, us]) => [name, us / side.requests]));
    perRequest.push(micros);
    const busy = [...micros.values()].reduce((sum, us) => sum + us, 0);
    console.log(
      `${side.name}: ${((side.cpuMs * 1000) / side.requests).toFixed(2)} µs CPU per request (all threads), main thread busy ${busy.toFixed(2)} µs in the profile`,
    );
  }
  const [ours, theirs] = perRequest as [Map<string, number>, Map<string, number>];
  const names = new Set([...ours.keys(), ...theirs.keys()]);
  const rows = [...names]
    .map((name) => [name, ours.get(name) ?? 0, theirs.get(name) ?? 0] as const)
    .sort((a, b) => Math.abs(b[1] - b[2]) - Math.abs(a[1] - a[2]))
    .slice(0, TOP);
  console.log('\nself time, µs per request: filehost | node, memory | difference');
  for (const [name, a, b] of rows) {
    console.log(
      `${a.toFixed(3).padStart(8)} | ${b.toFixed(3).padStart(8)} | ${(a - b).toFixed(3).padStart(7)}  ${name}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
