/**
 * `npm run bench:element-ab`: two builds of `<file-uploader>` taking turns in one headless
 * Chromium against one service, so that a change worth a few per cent can be told from this
 * machine's drift (which moves a single run by a third): A is a git revision (`BASE`,
 * default HEAD), B is the working tree. Each pair loads A's page and B's page, each in a tab
 * of its own (in turns, the order swapped every pair), warms each up with one upload, then
 * times `TIMED` uploads of each, taking turns (A B B A): COUNT files of SIZE bytes added at
 * once (default 200 x 20 KiB), until `upload-complete`.
 * Prints both medians and each pair's B/A, and B's speed over A's with the sign test's
 * interval of its median and whether that shows B within 3% (`paired-ratios.ts`); a run of A
 * against itself spread 0.96 to 1.06 (median 1.006) on 2026-11-24.
 *
 * Files of 16 MiB and more are written to disk and chosen through a file input, as a user's
 * would be (`SIZE=268435456 COUNT=1` for the 256 MiB file): a big Blob made in page memory
 * breaks Chromium's blob storage mid-upload (ERR_BLOB_REFERENCED_BLOB_BROKEN).
 *
 * `UPLINK_MBIT` throttles the page's uploads to that many Mbit/s (Chromium's network
 * emulation, DevTools protocol), as a user's link would: e.g. `UPLINK_MBIT=100` or `1000`.
 * `WARMUP=0` skips the warm-up upload (a slow link makes it cost as much as the timed one).
 *
 * `ATTRS_A` / `ATTRS_B` add attributes to one side's element (e.g. `ATTRS_B=no-resume`, to
 * measure what remembering uploads costs).
 *
 * `AUTH_A` / `AUTH_B`: how one side's element is let upload: `key` (the default, the
 * publishable key), `token` (the publishable key and an upload token minted for the page with
 * the secret key, as `upload-token`), `provider` (a `tokenProvider` that answers such a token,
 * `{ token, expiresAt }`), or `token-as-key` (the token as `api-key`: how an element from
 * before tokens sends one; its uploads are not held to the service's cap on anonymous pending
 * uploads per address, 200, which a page of 2,000 files from before the cap passes). A token
 * is minted for each page load. Each bundle is built from its tree's
 * `src/script-tag.ts` by esbuild, minified and split at its dynamic imports as the
 * script-tag build is (the MD5 chunk is a file of its own, which its worker imports): both
 * sides alike.
 *
 * `DEPLOYMENT=scale` runs the service on PostgreSQL and S3 (a throwaway cluster and a
 * one-node Ceph RGW, as `test/run-node-tests.ts --scale` has them): parts go to the gateway,
 * checked with MD5 instead of SHA-256.
 *
 * `BENCH_METRICS=1` measures what Prometheus metrics cost the upload path instead: both sides
 * load the same build (`BASE` and the tree alike: commit first), A uploads to a service without
 * metrics, B to a second one with `FILEHOST_METRICS_PORT` set and scraped every second.
 *
 * Besides the time, each upload reports what it cost the page's main thread: its tasks'
 * total time (DevTools' `TaskDuration`) and the longest gap between two frames.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { type CDPSession, chromium, type Page } from 'playwright-core';
import { type ChildService, spawnService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import {
  SelfTimes,
  summarize,
  type TracedRequest,
  type TraceSummary,
  traceRequests,
} from './element-trace.js';
import { BENCH_METRICS, metricsEnv, scrapeEverySecond } from './metrics-scraper.js';
import { summariseRatios, verdict } from './paired-ratios.js';
import { treeCpuMs } from './process-cpu.js';
import { mean, median, startBenchScale } from './support.js';

const BASE = process.env.BASE ?? 'HEAD';
const PAIRS = Number(process.env.PAIRS ?? 6);
const COUNT = Number(process.env.COUNT ?? 200);
const SIZE = Number(process.env.SIZE ?? 20 * 1024);
const UPLINK_MBIT = Number(process.env.UPLINK_MBIT ?? 0);
const WARMUP = process.env.WARMUP !== '0';
/**
 * Timed uploads per side in each pair (`TIMED`, default 2), taking turns in a palindrome (A B
 * B A, the next pair B A A B): a drift of the machine within a pair then weighs on both sides
 * alike, and a pair's ratio is of the means of its sides' uploads.
 */
const TIMED = Number(process.env.TIMED ?? 2);
const SCALE = process.env.DEPLOYMENT === 'scale';
/** Where each file's time goes, from the page's requests (`element-trace.ts`). */
const TRACE = process.env.BENCH_TRACE === '1' || Boolean(process.env.BENCH_TRACE_DIR);
/**
 * `BENCH_TRACE_DIR=dir`: each upload's requests as traced, written there as JSON (`A-0.json`,
 * `A-0-warmup.json`, ...), for `element-timeline.ts` to line up file by file.
 */
const TRACE_DIR = process.env.BENCH_TRACE_DIR;
/**
 * `BENCH_PROFILE=1`: the timed uploads' main thread profiled (DevTools' sampling profiler),
 * the functions taking the most time printed per side; identifiers kept for that.
 */
const PROFILE = process.env.BENCH_PROFILE === '1';
const AUTH = { A: process.env.AUTH_A ?? 'key', B: process.env.AUTH_B ?? 'key' } as const;
for (const auth of Object.values(AUTH)) {
  if (!['key', 'token', 'provider', 'token-as-key'].includes(auth)) {
    throw new TypeError(`AUTH_A / AUTH_B: key, token, provider or token-as-key, not ${auth}`);
  }
}
/** From disk, as a user's file would be (see above). */
const FROM_DISK = SIZE >= 16 * 1024 * 1024;
type Side = 'A' | 'B';
/** A side's page and its DevTools session. */
interface Tab {
  page: Page;
  devtools: CDPSession;
}

/** `count` turns of each side, in a palindrome from `first`: A B B A (A B B A A B B A ...). */
export function timedOrder(first: readonly Side[], count: number): Side[] {
  const order: Side[] = [];
  for (let turn = 0; turn < count; turn++)
    order.push(...(turn % 2 === 0 ? first : [...first].reverse()));
  return order;
}

/** The bundle's files by name; the entry is `script-tag.js`. */
async function bundleOf(root: string): Promise<Map<string, string>> {
  const built = await build({
    entryPoints: [join(root, 'src/script-tag.ts')],
    bundle: true,
    format: 'esm',
    splitting: true,
    outdir: join(root, 'bench-bundle'),
    write: false,
    minify: true,
    minifyIdentifiers: !PROFILE,
  });
  return new Map(built.outputFiles.map((file) => [`/${basename(file.path)}`, file.text]));
}

async function servePage(bundle: Map<string, string>, attributes: string): Promise<Server> {
  const server = createServer((request, response) => {
    const script = bundle.get(request.url ?? '');
    if (script) {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
      return;
    }
    response
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end(
        `<!doctype html><input type="file" id="source" multiple><file-uploader multiple ${attributes}></file-uploader><script type="module" src="/script-tag.js"></script>`,
      );
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return server;
}

const originOf = (server: Server) =>
  `http://localhost:${(server.address() as { port: number }).port}`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-element-ab-'));
  const base = join(dir, 'base');
  execFileSync('git', ['worktree', 'add', '--detach', base, BASE], { stdio: 'ignore' });
  await symlink(resolve('node_modules'), join(base, 'node_modules'));
  const servers: Record<Side, Server> = {
    A: await servePage(await bundleOf(base), process.env.ATTRS_A ?? ''),
    B: await servePage(await bundleOf('.'), process.env.ATTRS_B ?? ''),
  };
  const origins = [originOf(servers.A), originOf(servers.B)];
  const scale = SCALE
    ? await startBenchScale(origins, PAIRS * 2 * (TIMED + (WARMUP ? 1 : 0)) * COUNT * SIZE)
    : null;
  const serviceEnv = {
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_PLAN: 'paid',
    FILEHOST_ALLOWED_ORIGINS: origins.join(','),
    FILEHOST_RATE_LIMIT: '1000000',
    FILEHOST_LOG_LEVEL: 'error',
    ...scale?.env,
  };
  const service = await spawnService(serviceEnv);
  const metrics = BENCH_METRICS ? await metricsEnv() : null;
  // With metrics: a service of its own for side B, on its own data (or database and bucket).
  const measured = metrics
    ? await spawnService({
        ...serviceEnv,
        FILEHOST_DATA_DIR: join(dir, 'service-metrics'),
        ...(scale ? await scale.another() : {}),
        ...metrics.env,
      })
    : service;
  const services: Record<Side, ChildService> = { A: service, B: measured };
  const scraper = metrics ? scrapeEverySecond(metrics.url) : null;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const results: Record<Side, number[]> = { A: [], B: [] };
  /** Per upload: the page's main-thread task time, and its longest gap between frames (ms). */
  const mainThread: Record<Side, { busy: number[]; frameGap: number[] }> = {
    A: { busy: [], frameGap: [] },
    B: { busy: [], frameGap: [] },
  };
  const traces: Record<Side, TraceSummary[]> = { A: [], B: [] };
  /**
   * Per upload: the CPU time of the service(s) and of the browser (every Chromium process,
   * with this bench's own), ms: what the upload cost the two cores, whatever else ran.
   */
  const cpu: Record<Side, { service: number[]; browser: number[] }> = {
    A: { service: [], browser: [] },
    B: { service: [], browser: [] },
  };
  const servicePids = [...new Set([service.process.pid, measured.process.pid])].filter(
    (pid): pid is number => pid !== undefined,
  );
  /** Service and browser CPU so far (null without `/proc`). */
  const cpuNow = () => {
    const totals = treeCpuMs([...servicePids, process.pid]);
    if (!totals) return null;
    const browserMs = totals.pop() ?? 0;
    return { service: totals.reduce((sum, ms) => sum + ms, 0), browser: browserMs };
  };
  const profiler = new SelfTimes();
  const diskFiles = FROM_DISK
    ? Array.from({ length: COUNT }, (_, i) => join(dir, `ab${i}.bin`))
    : [];
  for (const [i, path] of diskFiles.entries()) await writeFile(path, Buffer.alloc(SIZE, i % 256));
  try {
    /** One page per side, each kept for a whole pair, so that the sides' uploads can interleave. */
    const openTab = async () => {
      const page = await browser.newPage();
      if (TRACE) await page.addInitScript(traceRequests);
      const devtools = await page.context().newCDPSession(page);
      // Traced: the tasks' time on the main thread's CPU, which the machine's load inflates
      // far less than their wall time.
      await devtools.send('Performance.enable', TRACE ? { timeDomain: 'threadTicks' } : {});
      if (UPLINK_MBIT > 0) {
        await devtools.send('Network.enable');
        await devtools.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 0,
          downloadThroughput: -1,
          uploadThroughput: (UPLINK_MBIT * 1_000_000) / 8,
        });
      }
      return { page, devtools };
    };
    const tabs: Record<Side, Tab> = { A: await openTab(), B: await openTab() };
    /** The main thread's tasks so far, ms (DevTools' cumulative `TaskDuration`, seconds). */
    const taskMs = async ({ devtools }: Tab) => {
      const { metrics } = await devtools.send('Performance.getMetrics');
      return 1000 * (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0);
    };
    /** `label`: the side, pair and which upload, naming its trace's file (`BENCH_TRACE_DIR`). */
    const upload = async (tab: Tab, label: string) => {
      const { page } = tab;
      if (FROM_DISK) await page.setInputFiles('#source', diskFiles);
      const before = await taskMs(tab);
      const cpuBefore = cpuNow();
      if (TRACE) {
        await page.evaluate(() => {
          window.__trace?.splice(0);
          for (const key of Object.keys(window.__timers ?? {})) delete window.__timers?.[key];
        });
      }
      const { ms, frameGap, started } = await page.evaluate(
        async ([count, size, fromDisk]) => {
          const element = document.querySelector('file-uploader') as HTMLElement & {
            addFiles(files: File[]): void;
            removeFile(id: string): void;
            files: { id: string }[];
          };
          for (const file of element.files) element.removeFile(file.id);
          const files = fromDisk
            ? [...((document.querySelector('#source') as HTMLInputElement).files ?? [])]
            : Array.from(
                { length: count },
                (_, i) =>
                  new File([new Uint8Array(size).fill(i % 256)], `ab${i}-${Math.random()}.bin`),
              );
          const done = new Promise<{ failed: unknown[] }>((resolve) =>
            element.addEventListener(
              'upload-complete',
              (event) => resolve((event as CustomEvent).detail),
              { once: true },
            ),
          );
          // The longest time the page went without drawing a frame: what a user sees stall.
          // (No named helpers in here: this function runs in the page as written.)
          let frameGap = 0;
          let uploading = true;
          const frames = (async () => {
            let last = performance.now();
            while (uploading) {
              const now = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
              frameGap = Math.max(frameGap, now - last);
              last = now;
            }
          })();
          const started = performance.now();
          element.addFiles(files);
          const { failed } = await done;
          uploading = false;
          await frames;
          if (failed.length > 0)
            throw new Error(`${failed.length} failed: ${JSON.stringify(failed)}`);
          return { ms: performance.now() - started, frameGap, started };
        },
        [COUNT, SIZE, FROM_DISK] as const,
      );
      const busy = (await taskMs(tab)) - before;
      const cpuAfter = cpuNow();
      const spent =
        cpuBefore && cpuAfter
          ? {
              service: cpuAfter.service - cpuBefore.service,
              browser: cpuAfter.browser - cpuBefore.browser,
            }
          : null;
      const requests = TRACE
        ? await page.evaluate(() => window.__trace?.splice(0) ?? ([] as TracedRequest[]))
        : [];
      if (TRACE_DIR) {
        await writeFile(join(TRACE_DIR, `${label}.json`), JSON.stringify({ started, requests }));
      }
      const trace = TRACE
        ? summarize(requests, started, await page.evaluate(() => ({ ...window.__timers })))
        : null;
      return { ms, frameGap, busy, trace, spent };
    };
    for (let pair = 0; pair < PAIRS; pair++) {
      const first: Side[] = pair % 2 ? ['B', 'A'] : ['A', 'B'];
      for (const side of first) {
        const { page } = tabs[side];
        await page.goto(originOf(servers[side]));
        await page.waitForFunction(() => customElements.get('file-uploader'));
        const minted = AUTH[side] === 'key' ? null : await mintToken(services[side]);
        await page.evaluate(
          ([endpoint, apiKey, auth, grant]) => {
            const element = document.querySelector('file-uploader') as HTMLElement & {
              uploadToken?: string;
              tokenProvider?: () => Promise<unknown>;
            };
            Object.assign(element, { endpoint, apiKey });
            if (auth === 'token') element.uploadToken = grant?.token;
            if (auth === 'provider') element.tokenProvider = async () => grant;
            if (auth === 'token-as-key') Object.assign(element, { apiKey: grant?.token });
          },
          [services[side].apiUrl, services[side].publishableKey, AUTH[side], minted] as const,
        );
        if (WARMUP) await upload(tabs[side], `${side}-${pair}-warmup`);
      }
      const times: Record<Side, number[]> = { A: [], B: [] };
      for (const side of timedOrder(first, TIMED)) {
        if (PROFILE) await profiler.start(tabs[side].devtools);
        const nth = times[side].length;
        const timed = await upload(tabs[side], `${side}-${pair}${nth > 0 ? `-${nth}` : ''}`);
        if (PROFILE) await profiler.stop(tabs[side].devtools, side);
        times[side].push(timed.ms);
        mainThread[side].busy.push(timed.busy);
        mainThread[side].frameGap.push(timed.frameGap);
        if (timed.trace) traces[side].push(timed.trace);
        if (timed.spent) {
          cpu[side].service.push(timed.spent.service);
          cpu[side].browser.push(timed.spent.browser);
        }
      }
      for (const side of first) results[side].push(mean(times[side]));
    }
  } finally {
    await browser.close();
    await scraper?.stop();
    for (const running of new Set([service, measured])) {
      running.process.kill('SIGTERM');
      await running.exited;
    }
    for (const server of Object.values(servers)) server.close();
    await scale?.stop();
    execFileSync('git', ['worktree', 'remove', '--force', base], { stdio: 'ignore' });
    await rm(dir, { recursive: true, force: true });
  }
  const ratios = results.B.map((b, i) => b / (results.A[i] ?? b));
  const ms = (values: number[]) => values.map((value) => value.toFixed(0)).join(' ');
  const link = UPLINK_MBIT > 0 ? `, uplink ${UPLINK_MBIT} Mbit/s` : '';
  const where = SCALE ? ', scale (PostgreSQL + Ceph RGW)' : ', embedded';
  console.log(
    `${COUNT} x ${SIZE} bytes, ${PAIRS} pairs of ${TIMED} timed uploads a side${link}${where}; A = ${BASE}, B = the working tree`,
  );
  console.log(
    `A: ${process.env.ATTRS_A ?? ''} (${AUTH.A}); B: ${process.env.ATTRS_B ?? ''} (${AUTH.B})${BENCH_METRICS ? '; A: service without metrics, B: with metrics, scraped every second' : ''}`,
  );
  console.log(`A ms: ${ms(results.A)} (median ${median(results.A).toFixed(0)})`);
  console.log(`B ms: ${ms(results.B)} (median ${median(results.B).toFixed(0)})`);
  console.log(
    `B/A per pair: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios).toFixed(3)}`,
  );
  // As a speed (A's time over B's), judged as bench:serving's metrics pairs are
  // (`paired-ratios.ts`); here both sides keep their service for every pair, so the pairs
  // are independent only as far as one process's luck does not last the bench.
  const speed = summariseRatios(results.A.map((a, i) => a / (results.B[i] ?? a)));
  console.log(
    `B's speed / A's (A ms / B ms): median ${speed.median.toFixed(3)}, ${(speed.interval.confidence * 100).toFixed(1)}% interval of the median ${speed.interval.low.toFixed(3)}-${speed.interval.high.toFixed(3)}; ${verdict(speed, 0.97)}`,
  );
  for (const side of ['A', 'B'] as const) {
    const { busy, frameGap } = mainThread[side];
    console.log(
      `${side} main thread: tasks${TRACE ? ' (CPU time)' : ''} ${ms(busy)} ms (median ${median(busy).toFixed(0)}); longest frame gap ${ms(frameGap)} ms (median ${median(frameGap).toFixed(0)})`,
    );
  }
  for (const part of ['service', 'browser'] as const) {
    const [a, b] = [cpu.A[part], cpu.B[part]];
    if (a.length === 0) continue;
    const perPair = b.map((ms, i) => ms / (a[i] ?? ms));
    console.log(
      `CPU of the ${part === 'service' ? 'service' : 'browser (all its processes)'} per upload, ms: A ${ms(a)} (median ${median(a).toFixed(0)}); B ${ms(b)} (median ${median(b).toFixed(0)}); B/A per timed upload (in turns) ${perPair.map((r) => r.toFixed(2)).join(' ')}, median ${median(perPair).toFixed(3)}`,
    );
  }
  if (TRACE) printTraces(traces);
  if (PROFILE) profiler.print();
}

/** Per side: the median over the pairs of each step's median per file, and the calls. */
function printTraces(traces: Record<Side, TraceSummary[]>): void {
  const of = (list: TraceSummary[], pick: (trace: TraceSummary) => number) =>
    median(list.map(pick)).toFixed(1);
  const first = traces.A[0];
  if (!first) return;
  console.log('Trace (ms, median over pairs of the median per file): A | B');
  for (const gap of Object.keys(first.gaps)) {
    console.log(
      `  ${gap}: ${of(traces.A, (trace) => trace.gaps[gap] ?? 0)} | ${of(traces.B, (trace) => trace.gaps[gap] ?? 0)}`,
    );
  }
  for (const step of Object.keys(first.at)) {
    console.log(
      `  ${step} at (median file / last file): ${of(traces.A, (trace) => trace.at[step] ?? 0)} / ${of(traces.A, (trace) => trace.last[step] ?? 0)} | ${of(traces.B, (trace) => trace.at[step] ?? 0)} / ${of(traces.B, (trace) => trace.last[step] ?? 0)}`,
    );
  }
  for (const calls of ['files', 'signCalls', 'putCalls', 'completeCalls'] as const) {
    console.log(
      `  ${calls}: ${traces.A.map((trace) => trace[calls]).join(' ')} | ${traces.B.map((trace) => trace[calls]).join(' ')}`,
    );
  }
  const timerKeys = new Set(
    [...traces.A, ...traces.B].flatMap((trace) => Object.keys(trace.timers)),
  );
  for (const key of [...timerKeys].sort()) {
    console.log(
      `  ${key}: ${traces.A.map((trace) => trace.timers[key] ?? 0).join(' ')} | ${traces.B.map((trace) => trace.timers[key] ?? 0).join(' ')}`,
    );
  }
}

/** An upload token for one page, minted as its backend would (the secret key, no limits). */
async function mintToken(service: {
  apiUrl: string;
  secretKey: string;
}): Promise<{ token: string; expiresAt: number }> {
  const answer = await fetch(`${service.apiUrl}/v1/upload-tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${service.secretKey}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  if (answer.status !== 201) throw new Error(`mint: ${answer.status} ${await answer.text()}`);
  const { token, expiresAt } = (await answer.json()) as { token: string; expiresAt: number };
  return { token, expiresAt };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
