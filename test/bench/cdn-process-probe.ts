/**
 * `npx tsx test/bench/cdn-process-probe.ts`: CPU per cached answer of several server
 * processes taking turns under wrk (1 thread, 32 connections), for #54 point 1's question
 * "what does the service's process cost beyond plain `node:http`?".
 *
 * `PROBE_SIDES`: comma-separated sides, each `kind[@node-flag...][#VAR=value...]`, kinds:
 * `plain` (plain-cdn-server.ts memory), `modules` / `idle-service` / `used-service`
 * (heavy-plain-server.ts: plain `node:http` after importing the service's modules / beside an
 * idle service / beside a service that first took 20 uploads from curl), `service`
 * (the service, cache on; `#API_UPLOADS=<n>` has it take n uploads of 1 KiB through its API
 * first, as a service with traffic has). `PROFILE_BYTES` (1024), `BENCH_RUNS` (6), `BENCH_SECONDS` (3).
 * `PROBE_GC=1` counts each side's collections during the turns (`--trace-gc` added). Service
 * sides start first (their file gives the plain sides its headers); CPU ratios are per run,
 * against the first service side's turn of that run. `PROBE_EXEC=<program>` runs a tool
 * instead of the turns, given `url pid name` of every side (e.g. `perf record` per side).
 * The numbers the probe gave, and what they ruled out: test/bench/README.md, "cdn-process".
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { patternBytes } from '../helpers/bytes.js';
import { spawnService } from '../helpers/service.js';
import { cpuMs, ensure, upload, writePlainHeaders } from './serving-support.js';
import { median } from './support.js';

const BYTES = Number(process.env.PROFILE_BYTES ?? 1024);
const RUNS = Number(process.env.BENCH_RUNS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const GC = process.env.PROBE_GC === '1';
const specs = (process.env.PROBE_SIDES ?? 'plain,modules,idle-service,service').split(',');

interface Side {
  name: string;
  url: string;
  pid: number;
  output: () => string;
  stop: () => void;
  cpu: number[];
  rps: number[];
  scavenges: number[];
  marks: number[];
  /** The main thread's time in scavenges, µs per answer (`--trace-gc`'s pause times). */
  scavengeMicros: number[];
}

function parse(spec: string): { kind: string; flags: string[]; env: Record<string, string> } {
  const [head = '', ...envs] = spec.split('#');
  const [kind = '', ...flags] = head.split('@');
  if (GC) flags.push('--trace-gc');
  const env = Object.fromEntries(envs.map((pair) => pair.split('=', 2) as [string, string]));
  return { kind, flags, env };
}

const wrkPath = ensure('wrk', 'wrk');
const load = () =>
  loadavg()
    .map((average) => average.toFixed(1))
    .join(' ');
const count = (text: string, what: RegExp) => (text.match(what) ?? []).length;
/** The pause time of every scavenge `--trace-gc` printed in `text`, ms (`Scavenge ..., 0.52 / 0.00 ms`). */
const scavengeMs = (text: string) =>
  [...text.matchAll(/Scavenge[^,\n]*, ([\d.]+) \/ [\d.]+ ms/g)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );

/** `RUNS` turns of wrk per side, in an order rotating from run to run, then the table. */
async function turns(sides: Side[]): Promise<void> {
  console.log(`${BYTES} B, ${RUNS} turns of ${SECONDS} s each, load ${load()}`);
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(i + run) % sides.length] as Side;
      const before = side.output().length;
      const { cpuMicros, rps, requests } = await wrk(side, SECONDS);
      const during = side.output().slice(before);
      side.cpu.push(cpuMicros);
      side.rps.push(rps);
      side.scavenges.push((count(during, /Scavenge/g) * 1e6) / requests);
      side.marks.push((count(during, /Mark-Compact|Mark-sweep/g) * 1e6) / requests);
      side.scavengeMicros.push((scavengeMs(during) * 1000) / requests);
    }
  }
  console.log(`load after ${load()}`);
  const base = sides[0] as Side;
  console.log(
    `${'side'.padEnd(48)} ${'CPU µs/answer'.padStart(14)} ${'lowest'.padStart(7)} ${'/ first'.padStart(8)} ${'rps'.padStart(8)}${GC ? '  scavenges, full GCs per 1M answers' : ''}`,
  );
  for (const side of sides) {
    // Per run, against the first side's turn of the same run.
    const ratios = side.cpu.map((cpu, run) => cpu / (base.cpu[run] as number));
    const gc = GC
      ? `  ${median(side.scavenges).toFixed(0)}, ${median(side.marks).toFixed(1)}; scavenges ${median(side.scavengeMicros).toFixed(2)} µs/answer`
      : '';
    console.log(
      `${side.name.padEnd(48)} ${median(side.cpu).toFixed(2).padStart(14)} ${Math.min(...side.cpu)
        .toFixed(2)
        .padStart(
          7,
        )} ${median(ratios).toFixed(3).padStart(8)} ${median(side.rps).toFixed(0).padStart(8)}${gc}`,
    );
  }
}

/**
 * wrk against one side, awaited (not `execFileSync`: this process keeps reading the sides'
 * output meanwhile, so a side's `--trace-gc` lines land in its turn and its pipe never fills).
 */
async function wrk(
  side: Side,
  seconds: number,
): Promise<{ cpuMicros: number; rps: number; requests: number }> {
  const before = cpuMs(side.pid);
  const child = spawn(wrkPath, ['-t1', '-c32', `-d${seconds}s`, side.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  await new Promise((resolve) => child.once('exit', resolve));
  // The side's last output of the turn (its GC lines) read before the count.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const cpu = cpuMs(side.pid) - before;
  const requests = Number(/(\d+) requests in/.exec(output)?.[1]);
  if (/Non-2xx/.test(output)) throw new Error(`wrk saw errors on ${side.url}:\n${output}`);
  return {
    cpuMicros: (cpu * 1000) / requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]),
    requests,
  };
}
const dir = await mkdtemp(join(tmpdir(), 'cdn-process-probe-'));
const sides: Side[] = [];
try {
  const bytes = patternBytes(BYTES);
  await writeFile(join(dir, 'file'), bytes);
  let headersWritten = false;
  for (const [index, spec] of specs.entries()) {
    const { kind, flags, env } = parse(spec);
    const dataDir = join(dir, `data-${index}`);
    if (kind === 'service') {
      const service = await spawnService(
        { FILEHOST_DATA_DIR: dataDir, FILEHOST_LOG_LEVEL: 'error', ...env },
        flags,
      );
      const { url } = await upload(service, bytes);
      // `#API_UPLOADS=<n>`: the API's steady traffic first (uploads of 1 KiB through it).
      for (let round = 0; round < Number(env.API_UPLOADS ?? 0); round++) {
        await upload(service, patternBytes(1024, round + 1));
      }
      if (!headersWritten) {
        await writePlainHeaders(dir, url);
        headersWritten = true;
      }
      sides.push({
        name: spec,
        url,
        pid: service.process.pid ?? 0,
        output: service.output,
        stop: () => service.process.kill('SIGTERM'),
        cpu: [],
        rps: [],
        scavenges: [],
        marks: [],
        scavengeMicros: [],
      });
    }
  }
  if (!headersWritten) throw new Error('PROBE_SIDES needs one service side (for the headers)');
  for (const [index, spec] of specs.entries()) {
    const { kind, flags, env } = parse(spec);
    if (kind === 'service') continue;
    const script =
      kind === 'plain' ? 'test/bench/plain-cdn-server.ts' : 'test/bench/heavy-plain-server.ts';
    const child: ChildProcess = spawn(
      process.execPath,
      [...flags, '--import', 'tsx', script, 'memory', dir, join(dir, 'headers.json')],
      {
        env: {
          ...process.env,
          HEAVY: { 'idle-service': 'service', 'used-service': 'service-api' }[kind] ?? 'modules',
          FILEHOST_DATA_DIR: join(dir, `data-${index}`),
          FILEHOST_API_PORT: '0',
          FILEHOST_CDN_PORT: '0',
          FILEHOST_LOG_LEVEL: 'error',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let text = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${spec} exited (${code})`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk;
        const match = /PORT (\d+)/.exec(text);
        if (match?.[1]) resolve(Number(match[1]));
      });
    });
    sides.push({
      name: spec,
      url: `http://127.0.0.1:${port}/file`,
      pid: child.pid ?? 0,
      output: () => text,
      stop: () => child.kill('SIGTERM'),
      cpu: [],
      rps: [],
      scavenges: [],
      marks: [],
      scavengeMicros: [],
    });
  }
  for (const side of sides) await wrk(side, 2);
  const tool = process.env.PROBE_EXEC;
  if (tool) {
    // Another tool's turns instead of the CPU count: it is given url, pid and name per side.
    const args = sides.flatMap((side) => [
      side.url,
      String(side.pid),
      side.name.replaceAll(/\W+/g, '_'),
    ]);
    const child = spawn(tool, args, { stdio: 'inherit' });
    await new Promise((resolve) => child.once('exit', resolve));
  } else {
    await turns(sides);
  }
} finally {
  for (const side of sides) side.stop();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await rm(dir, { recursive: true, force: true });
}
