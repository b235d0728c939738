/**
 * `npx tsx test/bench/metrics-profile.ts`: where the CDN's CPU goes with metrics on and off. Starts
 * the service (embedded) with and without `FILEHOST_METRICS_PORT` (scraped every second
 * from another process, as `bench:serving` does), in turns, drives one file with wrk, and
 * prints per run the CPU time per request, then, from a `--cpu-prof` profile of each
 * service, the share of its samples spent in each part (prom-client, perf_hooks, the
 * garbage collector, the service's metrics code, the rest) and the functions that moved
 * most between off and on.
 *
 * `PROFILE_CASE`: `1k-cached` (default), `1m-cached` or `1m-uncached`; `BENCH_RUNS` turns of off/on
 * (default 3); `BENCH_SECONDS` of wrk per run (default 5); `PROFILE=0` leaves out the
 * profiles (their sampling costs CPU too). Only the samples taken while wrk ran are counted.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { patternBytes } from '../helpers/bytes.js';
import { spawnService } from '../helpers/service.js';
import { monotonicMicros, type Profile, type ProfileNode } from './cpu-profile.js';
import { metricsEnv, scrapeEverySecond } from './metrics-scraper.js';
import { cpuMs } from './serving-support.js';

const CASES = {
  '1k-cached': { bytes: 1024, cacheOff: false },
  '1m-cached': { bytes: 1024 * 1024, cacheOff: false },
  '1m-uncached': { bytes: 1024 * 1024, cacheOff: true },
} as const;
const CASE = (process.env.PROFILE_CASE ?? '1k-cached') as keyof typeof CASES;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PROFILE = process.env.PROFILE !== '0';

/** The part of the program a frame belongs to, by its script. */
function partOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'gc';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'program';
  if (url.includes('prom-client')) return 'prom-client';
  if (url.includes('perf_hooks') || url.includes('internal/histogram')) return 'perf_hooks';
  if (url.includes('/src/server/metrics/')) return 'metrics code';
  if (url.includes('/src/server/')) return 'service';
  if (url.includes('node_modules')) return 'packages';
  if (url.startsWith('node:') || url === '') return 'node';
  return 'other';
}

/** The samples taken while wrk ran (`window`, monotonic microseconds): start-up left out. */
function summarise(profile: Profile, window: [number, number]) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((sample, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (at >= window[0] && at <= window[1]) counts.set(sample, (counts.get(sample) ?? 0) + 1);
  });
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, count] of counts) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const part = partOf(frame);
    if (part === 'idle') continue;
    total += count;
    parts.set(part, (parts.get(part) ?? 0) + count);
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + count);
  }
  return { total, parts, functions };
}

async function run(dir: string, metrics: boolean, index: number) {
  const scraped = metrics ? await metricsEnv() : null;
  const profileDir = join(dir, `profile-${metrics ? 'on' : 'off'}-${index}`);
  const service = await spawnService(
    {
      FILEHOST_DATA_DIR: join(dir, `data-${metrics ? 'on' : 'off'}-${index}`),
      FILEHOST_LOG_LEVEL: 'error',
      ...(CASES[CASE].cacheOff ? { FILEHOST_CDN_CACHE_MB: '0' } : {}),
      ...scraped?.env,
    },
    PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const scraper = scraped ? scrapeEverySecond(scraped.url) : null;
  const response = await fetch(`${service.apiUrl}/v1/upload`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${service.secretKey}`,
      'Content-Type': 'application/octet-stream',
    },
    body: patternBytes(CASES[CASE].bytes),
  });
  const { id } = (await response.json()) as { id: string };
  const url = `${service.cdnUrl.replace('localhost', '127.0.0.1')}/${id}`;
  const pid = service.process.pid ?? 0;
  execFileSync('wrk', ['-t1', '-c32', '-d1s', url]);
  const mainCpu = () => cpuMs(pid, pid);
  const mainBefore = mainCpu();
  const before = cpuMs(pid);
  const startedAt = monotonicMicros();
  const output = execFileSync('wrk', ['-t1', '-c32', `-d${SECONDS}s`, url], { encoding: 'utf8' });
  const window: [number, number] = [startedAt, monotonicMicros()];
  const cpu = cpuMs(pid) - before;
  const main = mainCpu() - mainBefore;
  const requests = Number(/(\d+) requests in/.exec(output)?.[1]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  await scraper?.stop();
  service.process.kill('SIGTERM');
  await service.exited;
  const files = PROFILE ? await readdir(profileDir) : [];
  const profile = files[0]
    ? (JSON.parse(await readFile(join(profileDir, files[0]), 'utf8')) as Profile)
    : null;
  return {
    rps,
    cpuMicros: (cpu * 1000) / requests,
    mainMicros: (main * 1000) / requests,
    profile,
    window,
  };
}

const dir = await mkdtemp(join(tmpdir(), 'metrics-profile-'));
try {
  const totals = { off: new Map<string, number>(), on: new Map<string, number>() };
  const parts = { off: new Map<string, number>(), on: new Map<string, number>() };
  const samples = { off: 0, on: 0 };
  console.log(`metrics profile, ${CASE}, ${SECONDS} s per run, wrk 1 thread 32 connections`);
  for (let index = 0; index < RUNS; index++) {
    for (const metrics of index % 2 === 0 ? [false, true] : [true, false]) {
      const side = metrics ? 'on' : 'off';
      const measured = await run(dir, metrics, index);
      console.log(
        `run ${index + 1} metrics ${side}: ${Math.round(measured.rps)} req/s, ${measured.cpuMicros.toFixed(1)} us CPU/request (main thread ${measured.mainMicros.toFixed(1)})`,
      );
      if (!measured.profile) continue;
      const summary = summarise(measured.profile, measured.window);
      samples[side] += summary.total;
      for (const [name, count] of summary.functions)
        totals[side].set(name, (totals[side].get(name) ?? 0) + count);
      for (const [name, count] of summary.parts)
        parts[side].set(name, (parts[side].get(name) ?? 0) + count);
    }
  }
  if (PROFILE) {
    const share = (side: 'off' | 'on', count: number) =>
      `${((100 * count) / samples[side]).toFixed(2)}%`;
    console.log('\nshare of busy samples by part (off | on):');
    const names = new Set([...parts.off.keys(), ...parts.on.keys()]);
    for (const name of names)
      console.log(
        `  ${name.padEnd(14)} ${share('off', parts.off.get(name) ?? 0).padStart(7)} | ${share('on', parts.on.get(name) ?? 0).padStart(7)}`,
      );
    console.log('\ntop functions with metrics on (self time, share; off beside):');
    const top = [...totals.on].sort((a, b) => b[1] - a[1]).slice(0, 30);
    for (const [name, count] of top)
      console.log(
        `  ${share('on', count).padStart(7)} | ${share('off', totals.off.get(name) ?? 0).padStart(7)}  ${name}`,
      );
    console.log('\nfunctions only (or mostly) with metrics on:');
    const moved = [...totals.on]
      .map(
        ([name, count]) =>
          [name, count / samples.on - (totals.off.get(name) ?? 0) / samples.off] as const,
      )
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20);
    for (const [name, delta] of moved) console.log(`  +${(100 * delta).toFixed(2)}%  ${name}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
