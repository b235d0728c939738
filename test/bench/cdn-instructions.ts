/**
 * `npx tsx test/bench/cdn-instructions.ts`: user-space instructions per cached answer, counted
 * by valgrind's callgrind, for plain `node:http` from memory and the service's CDN (#54 point
 * 1, #55 point 6). Instruction counts do not move with the machine's load (other helpers' tests
 * and benches), unlike CPU time and rates, so two sides, or a tree before and after a change,
 * can be compared a few percent apart on a busy machine.
 *
 * Each side runs under `valgrind --tool=callgrind --instr-atstart=no` (node with
 * `--perf-basic-prof`); a keep-alive client in this process (the request wrk sends, on
 * `INSTR_CONNECTIONS` connections) gives it `INSTR_WARMUP` answers uninstrumented, then
 * `callgrind_control -i on`, exactly `INSTR_ANSWERS` answers, `-i off` and a dump, `INSTR_WINDOWS`
 * (3) times; the later half of the windows is the figure (see `measure`). A second
 * window of the same length with no request measures what the idle process runs meanwhile
 * (printed per second: at a real rate it adds rate / answers-per-second); what timers and
 * immediates ran in the counted windows is taken off (`timed`) and printed per answer. Sides with metrics on get a third window:
 * one scrape of `/metrics` (after five uncounted ones: a scraped service is scraped often).
 *
 * `INSTR_SIDES` (`plain,service`): comma-separated, each `kind[@node-flag...][#VAR=value...]`;
 * kinds `plain` (plain-cdn-server.ts memory, the service's headers), `service` (cache on),
 * `metrics` (the service with `FILEHOST_METRICS_PORT` set), `base` (the service of
 * `INSTR_BASELINE`, a revision checked out beside this one). `INSTR_SIZES` (`1KiB,1MiB`).
 * `INSTR_TOP` (25): how many functions to list by difference of self and of inclusive cost
 * from the first side (JIT frames named from /tmp/perf-<pid>.map, which callgrind does not
 * read itself). `INSTR_SIMULATE=1` adds callgrind's simulated caches and branch predictor
 * (misses per answer; hardware counters do not exist in this VM). `INSTR_KEEP=1` keeps the
 * callgrind files (`<file>.named`: JIT frames named, for `callgrind_annotate`). The counts
 * and what they found: test/bench/README.md, "cdn-instructions".
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { patternBytes } from '../helpers/bytes.js';
import { spawnService } from '../helpers/service.js';
import { metricsEnv } from './metrics-scraper.js';
import {
  labelOf,
  parseSize,
  plainMemoryArgs,
  upload,
  writePlainHeaders,
} from './serving-support.js';
import { withBaselineCheckout } from './support.js';

const SIZES = (process.env.INSTR_SIZES ?? '1KiB,1MiB').split(',').map(parseSize);
const SPECS = (process.env.INSTR_SIDES ?? 'plain,service').split(',');
const WARMUP = Number(process.env.INSTR_WARMUP ?? 20_000);
const ANSWERS = Number(process.env.INSTR_ANSWERS ?? 2_000);
const CONNECTIONS = Number(process.env.INSTR_CONNECTIONS ?? 8);
const TOP = Number(process.env.INSTR_TOP ?? 25);
const WINDOWS = Number(process.env.INSTR_WINDOWS ?? 3);
const BASELINE = process.env.INSTR_BASELINE ?? '';
const SIMULATE = process.env.INSTR_SIMULATE === '1';
const VALGRIND = [
  'valgrind',
  '--tool=callgrind',
  '--smc-check=all-non-file',
  '--instr-atstart=no',
  '--separate-threads=yes',
  // Simulated caches (valgrind's model of this CPU's L1 and last level) and branch predictor.
  ...(SIMULATE ? ['--cache-sim=yes', '--branch-sim=yes'] : []),
];

interface Side {
  name: string;
  pid: number;
  host: string;
  path: string;
  outPrefix: string;
  metricsUrl?: string;
  stop: () => Promise<void>;
}

interface Window {
  /** Instructions of all threads, and of the main thread alone. */
  all: number;
  main: number;
  /** Every event callgrind counted (all threads): `Ir`, and with `INSTR_SIMULATE` misses. */
  events: Map<string, number>;
  /** Per function ("file:function"), summed over threads. */
  self: Map<string, number>;
  inclusive: Map<string, number>;
  /** With `INSTR_SIMULATE`: last-level misses (instruction and data) per function, self. */
  llMisses: Map<string, number>;
  seconds: number;
}

const load = () =>
  loadavg()
    .map((average) => average.toFixed(1))
    .join(' ');

function parseSpec(spec: string): { kind: string; flags: string[]; env: Record<string, string> } {
  const [head = '', ...envs] = spec.split('#');
  const [kind = '', ...flags] = head.split('@');
  const env = Object.fromEntries(envs.map((pair) => pair.split('=', 2) as [string, string]));
  return { kind, flags, env };
}

/**
 * `count` answers to `GET path` over `CONNECTIONS` keep-alive connections, each asking again
 * once its answer is whole (Content-Length framed), with the request line and `Host` only
 * (what wrk sends). Exactly `count` requests are sent.
 */
async function drive(host: string, path: string, count: number): Promise<void> {
  const [hostname = '', port = ''] = host.split(':');
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let pending: Buffer = Buffer.alloc(0);
      let bodyLeft = -1;
      const next = () => {
        if (sent >= count) {
          socket.end();
          resolve();
          return;
        }
        sent++;
        socket.write(request);
      };
      socket.once('connect', next);
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (;;) {
          if (bodyLeft < 0) {
            const end = pending.indexOf('\r\n\r\n');
            if (end < 0) return;
            const head = pending.subarray(0, end).toString('latin1');
            if (!head.startsWith('HTTP/1.1 200')) {
              reject(new Error(`${host}${path}: ${head.split('\r\n')[0]}`));
              return;
            }
            bodyLeft = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
            pending = pending.subarray(end + 4);
          }
          if (pending.length < bodyLeft) {
            bodyLeft -= pending.length;
            pending = Buffer.alloc(0);
            return;
          }
          pending = pending.subarray(bodyLeft);
          bodyLeft = -1;
          next();
        }
      });
    });
  await Promise.all(Array.from({ length: CONNECTIONS }, one));
}

function control(pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
}

/** The perf map's JIT ranges, sorted by start, for naming callgrind's `0x…` functions. */
async function perfMap(pid: number): Promise<{ start: number; end: number; name: string }[]> {
  const path = `/tmp/perf-${pid}.map`;
  if (!existsSync(path)) return [];
  const ranges = (await readFile(path, 'utf8'))
    .split('\n')
    .map((line) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, start = '', size = '', name = '']) => ({
      start: Number.parseInt(start, 16),
      end: Number.parseInt(start, 16) + Number.parseInt(size, 16),
      // Code objects of one function recompiled keep their name without the address.
      name: `JIT:${name.replace(/^(\S+) /, '$1 ').trim()}`,
    }));
  return ranges.sort((a, b) => a.start - b.start);
}

function nameOf(address: number, ranges: { start: number; end: number; name: string }[]): string {
  let low = 0;
  let high = ranges.length - 1;
  let found: (typeof ranges)[number] | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle] as (typeof ranges)[number];
    if (range.start <= address) {
      found = range;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found && address < found.end ? found.name : 'JIT:(unnamed)';
}

/** Function name -> cost, from `callgrind_annotate` of one (renamed) thread file. */
function annotate(file: string, inclusive: boolean, event = 'Ir'): Map<string, number> {
  const text = execFileSync(
    'callgrind_annotate',
    [
      '--threshold=100',
      `--show=${event}`,
      `--sort=${event}`,
      `--inclusive=${inclusive ? 'yes' : 'no'}`,
      file,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const costs = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \([^)]*\)\s+(.+?)(?: \[[^\]]*\])?\s*$/.exec(line);
    if (!match?.[1] || !match[2] || match[2] === 'PROGRAM TOTALS') continue;
    const name = match[2].replace(/^\?\?\?:/, '');
    costs.set(name, (costs.get(name) ?? 0) + Number(match[1].replaceAll(',', '')));
  }
  return costs;
}

/** Dumps, then reads this window's per-thread files (renaming JIT code by the perf map). */
async function collect(side: Side, part: number, seconds: number): Promise<Window> {
  control(side.pid, '-d');
  const dir = side.outPrefix.slice(0, side.outPrefix.lastIndexOf('/'));
  const base = side.outPrefix.slice(side.outPrefix.lastIndexOf('/') + 1);
  const pattern = new RegExp(`^${base}\\.${side.pid}\\.${part}-(\\d+)$`);
  // The dump is written asynchronously by the process; wait until its files are there.
  let files: string[] = [];
  for (let tries = 0; tries < 100 && files.length === 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    files = (await readdir(dir)).filter((name) => pattern.test(name));
  }
  if (files.length === 0) throw new Error(`no dump ${part} of ${side.name}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  files = (await readdir(dir)).filter((name) => pattern.test(name));
  const ranges = await perfMap(side.pid);
  const window: Window = {
    all: 0,
    main: 0,
    events: new Map(),
    llMisses: new Map(),
    self: new Map(),
    inclusive: new Map(),
    seconds,
  };
  for (const file of files) {
    const path = join(dir, file);
    const text = (await readFile(path, 'utf8')).replace(
      /^(c?fn=\(\d+\)) 0x([0-9a-f]+)$/gm,
      (_, key: string, address: string) => `${key} ${nameOf(Number.parseInt(address, 16), ranges)}`,
    );
    await writeFile(`${path}.named`, text);
    // `totals:` is the window's sum (`summary:` can read 0 after an instrumentation toggle).
    const names = (/^events: (.+)$/m.exec(text)?.[1] ?? 'Ir').split(' ');
    const totals = (/^totals: (.+)$/m.exec(text)?.[1] ?? '0').split(' ').map(Number);
    for (const [at, name] of names.entries())
      window.events.set(name, (window.events.get(name) ?? 0) + (totals[at] ?? 0));
    const total = totals[0] ?? 0;
    window.all += total;
    if (/-01$/.test(file)) window.main = total;
    for (const [into, inclusive] of [
      [window.self, false],
      [window.inclusive, true],
    ] as const) {
      for (const [name, cost] of annotate(`${path}.named`, inclusive))
        into.set(name, (into.get(name) ?? 0) + cost);
    }
    if (!SIMULATE) continue;
    for (const event of ['ILmr', 'DLmr', 'DLmw']) {
      for (const [name, cost] of annotate(`${path}.named`, false, event))
        window.llMisses.set(name, (window.llMisses.get(name) ?? 0) + cost);
    }
  }
  return window;
}

async function startSide(
  spec: string,
  index: number,
  dir: string,
  bytes: Uint8Array<ArrayBuffer>,
  baseline: string,
): Promise<Side> {
  const { kind, flags, env } = parseSpec(spec);
  const outPrefix = join(dir, `side${index}`);
  const wrapper = [...VALGRIND, `--callgrind-out-file=${outPrefix}.%p`];
  const nodeArgs = ['--perf-basic-prof', ...flags];
  if (kind === 'plain') {
    const child: ChildProcess = spawn(
      wrapper[0] as string,
      [...wrapper.slice(1), process.execPath, ...nodeArgs, ...plainMemoryArgs(dir)],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    let text = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${spec} exited (${code}):\n${text}`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk;
        const match = /PORT (\d+)/.exec(text);
        if (match?.[1]) resolve(Number(match[1]));
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        text += chunk;
      });
    });
    return {
      name: spec,
      pid: child.pid ?? 0,
      host: `127.0.0.1:${port}`,
      path: '/file',
      outPrefix,
      stop: () => stopChild(child),
    };
  }
  const metrics = kind === 'metrics' ? await metricsEnv() : undefined;
  const service = await spawnService(
    {
      FILEHOST_DATA_DIR: join(dir, `data-${index}`),
      FILEHOST_LOG_LEVEL: 'error',
      ...metrics?.env,
      ...env,
    },
    nodeArgs,
    { wrapper, startMs: 300_000, ...(kind === 'base' ? { cwd: baseline } : {}) },
  );
  const { url } = await upload(service, bytes);
  const parsed = new URL(url);
  return {
    name: spec,
    pid: service.process.pid ?? 0,
    host: parsed.host,
    path: parsed.pathname,
    outPrefix,
    ...(metrics ? { metricsUrl: metrics.url } : {}),
    stop: () => stopChild(service.process),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Result {
  side: Side;
  /** Answers in `traffic` (the settled windows). */
  counted: number;
  traffic: Window;
  idlePerSecond: number;
  /** What timers and immediates ran in the counted windows, per answer (taken off). */
  timedPerAnswer: number;
  scrape?: number;
  perAnswer: number;
  mainPerAnswer: number;
}

async function measure(side: Side): Promise<Result> {
  await drive(side.host, side.path, WARMUP);
  // A scraped service is scraped every second: the counted scrape is not its first.
  for (let scrape = 0; side.metricsUrl && scrape < 5; scrape++) {
    await (await fetch(side.metricsUrl)).text();
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // Several windows one after another: the last is the figure; the others show whether the
  // process had settled (V8 still compiling or collecting moves a window's count).
  const windows: Window[] = [];
  let part = 0;
  for (let index = 0; index < WINDOWS; index++) {
    control(side.pid, '-i', 'on');
    const began = performance.now();
    await drive(side.host, side.path, ANSWERS);
    const seconds = (performance.now() - began) / 1000;
    control(side.pid, '-i', 'off');
    windows.push(await collect(side, ++part, seconds));
  }
  // The later half of the windows, as one: the first ones can hold V8 still compiling, and
  // a window of 2,000 answers holds a scavenge or none (a service's costs ~6 million
  // instructions, 3,000 an answer), so one window alone moves by a few percent.
  const settled = windows.slice(Math.floor(windows.length / 2));
  const traffic = merged(settled);
  const counted = ANSWERS * settled.length;
  control(side.pid, '-i', 'on');
  await new Promise((resolve) => setTimeout(resolve, (traffic.seconds / settled.length) * 1000));
  control(side.pid, '-i', 'off');
  const idle = await collect(side, ++part, traffic.seconds / settled.length);
  let scrape: number | undefined;
  if (side.metricsUrl) {
    control(side.pid, '-i', 'on');
    const response = await fetch(side.metricsUrl);
    await response.text();
    control(side.pid, '-i', 'off');
    scrape = (await collect(side, ++part, 0)).all;
  }
  const perAnswer = (window: Window, total: number) =>
    ((total - timed(window)) / ANSWERS).toFixed(0);
  console.log(
    `  ${side.name}: windows' Ir per answer, all threads ${windows.map((window) => perAnswer(window, window.all)).join(' ')}; main thread ${windows.map((window) => perAnswer(window, window.main)).join(' ')}; timers ${windows.map((window) => (timed(window) / ANSWERS).toFixed(0)).join(' ')}`,
  );
  return {
    side,
    traffic,
    idlePerSecond: idle.all / idle.seconds,
    timedPerAnswer: timed(traffic) / counted,
    ...(scrape === undefined ? {} : { scrape }),
    counted,
    perAnswer: (traffic.all - timed(traffic)) / counted,
    mainPerAnswer: (traffic.main - timed(traffic)) / counted,
  };
}

/**
 * What the window's timers and immediates ran (inclusive): the service's sweeps, webhook
 * poll, rate-limit pruning and their database writes. They come with time, not answers, and a
 * window under valgrind lasts ~50 times as long as its answers would take, so they are taken
 * off (plain `node:http` runs none; the memory path queues none). A window of no requests
 * does not serve to take them off: what runs in one is as lumpy (a sweep, a major GC's
 * marking) as what it would be taken from.
 */
function timed(window: Window): number {
  let total = 0;
  for (const [name, cost] of window.inclusive) {
    if (/^JIT:JS:.(processTimers|processImmediate) node:internal\/timers:/.test(name))
      total += cost;
  }
  return total;
}

/** Windows summed into one. */
function merged(windows: Window[]): Window {
  const sum = (maps: Map<string, number>[]) => {
    const total = new Map<string, number>();
    for (const map of maps)
      for (const [name, value] of map) total.set(name, (total.get(name) ?? 0) + value);
    return total;
  };
  return {
    all: windows.reduce((total, window) => total + window.all, 0),
    main: windows.reduce((total, window) => total + window.main, 0),
    seconds: windows.reduce((total, window) => total + window.seconds, 0),
    events: sum(windows.map((window) => window.events)),
    self: sum(windows.map((window) => window.self)),
    inclusive: sum(windows.map((window) => window.inclusive)),
    llMisses: sum(windows.map((window) => window.llMisses)),
  };
}

function topDifferences(
  first: Map<string, number>,
  firstCount: number,
  other: Map<string, number>,
  otherCount: number,
): [string, number][] {
  const names = new Set([...first.keys(), ...other.keys()]);
  return [...names]
    .map((name): [string, number] => [
      name,
      (other.get(name) ?? 0) / otherCount - (first.get(name) ?? 0) / firstCount,
    ])
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, TOP);
}

async function run(baseline: string): Promise<void> {
  for (const size of SIZES) {
    const dir = await mkdtemp(join(tmpdir(), 'cdn-instructions-'));
    const sides: Side[] = [];
    try {
      const bytes = patternBytes(size);
      await writeFile(join(dir, 'file'), bytes);
      console.log(
        `\n${labelOf(size)}: ${WARMUP} answers to warm up, ${WINDOWS} windows of ${ANSWERS} (the later half counted), ${CONNECTIONS} connections, load ${load()}`,
      );
      const results: Result[] = [];
      // Services first (the first one's answer gives plain its headers), each measured and
      // stopped before the next starts: one valgrind at a time.
      const order = SPECS.map((spec, index) => ({ spec, index })).sort(
        (a, b) => Number(a.spec.startsWith('plain')) - Number(b.spec.startsWith('plain')),
      );
      let headersWritten = false;
      for (const { spec, index } of order) {
        const side = await startSide(spec, index, dir, bytes, baseline);
        sides.push(side);
        if (!headersWritten && !spec.startsWith('plain')) {
          await writePlainHeaders(dir, `http://${side.host}${side.path}`);
          headersWritten = true;
        }
        if (spec.startsWith('plain') && !headersWritten)
          throw new Error('INSTR_SIDES needs a service side for the headers');
        results[index] = await measure(side);
        await side.stop();
        console.log(`  ${spec} measured (load ${load()})`);
      }
      const first = results[0] as Result;
      console.log(
        `${'side'.padEnd(40)} ${'Ir/answer'.padStart(10)} ${'main'.padStart(9)} ${'/ first'.padStart(8)} ${'idle Ir/s'.padStart(11)} ${'timers/ans'.padStart(11)} ${'Ir/scrape'.padStart(11)}`,
      );
      for (const result of results) {
        console.log(
          `${result.side.name.padEnd(40)} ${result.perAnswer.toFixed(0).padStart(10)} ${result.mainPerAnswer.toFixed(0).padStart(9)} ${(result.perAnswer / first.perAnswer).toFixed(3).padStart(8)} ${result.idlePerSecond.toExponential(2).padStart(11)} ${result.timedPerAnswer.toFixed(0).padStart(11)} ${(result.scrape === undefined ? '' : result.scrape.toExponential(2)).padStart(11)}`,
        );
      }
      if (SIMULATE) {
        // Misses per answer: L1 instruction and data, last level, mispredicted branches.
        const misses = ({ traffic, counted }: Result, ...names: string[]) =>
          names.reduce((sum, name) => sum + (traffic.events.get(name) ?? 0), 0) / counted;
        console.log(
          `${'side'.padEnd(40)} ${'I1 miss'.padStart(8)} ${'D1 miss'.padStart(8)} ${'LL miss'.padStart(8)} ${'branch miss'.padStart(12)}  (per answer, counted windows, timers not taken off)`,
        );
        for (const result of results) {
          console.log(
            `${result.side.name.padEnd(40)} ${misses(result, 'I1mr').toFixed(0).padStart(8)} ${misses(result, 'D1mr', 'D1mw').toFixed(0).padStart(8)} ${misses(result, 'ILmr', 'DLmr', 'DLmw').toFixed(0).padStart(8)} ${misses(result, 'Bcm', 'Bim').toFixed(0).padStart(12)}`,
          );
        }
      }
      for (const result of results.slice(1)) {
        for (const kind of SIMULATE
          ? (['llMisses', 'self', 'inclusive'] as const)
          : (['self', 'inclusive'] as const)) {
          console.log(
            `\n${result.side.name} - ${first.side.name}, ${kind === 'llMisses' ? 'last-level misses' : `${kind} Ir`} per answer (counted windows, timers not taken off):`,
          );
          for (const [name, difference] of topDifferences(
            first.traffic[kind],
            first.counted,
            result.traffic[kind],
            result.counted,
          ))
            console.log(
              `  ${difference.toFixed(kind === 'llMisses' ? 1 : 0).padStart(8)}  ${name.slice(0, 150)}`,
            );
        }
      }
    } finally {
      for (const side of sides) {
        await side.stop();
        // node's JIT map of the side (`--perf-basic-prof`), read by `collect` only.
        await rm(`/tmp/perf-${side.pid}.map`, { force: true });
      }
      if (process.env.INSTR_KEEP === '1') console.log(`callgrind files kept in ${dir}`);
      else await rm(dir, { recursive: true, force: true });
    }
  }
}

if (BASELINE) await withBaselineCheckout(BASELINE, run);
else await run('');
