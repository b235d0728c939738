import { get } from 'node:http';
import { join } from 'node:path';
import { type ChildService, spawnService } from '../helpers/service.js';
import { metricsEnv, scrapeEverySecond } from './metrics-scraper.js';
import { type RatioSummary, summariseRatios, verdict } from './paired-ratios.js';
import { type Measured, upload, wrk } from './serving-support.js';
import { type BenchRow, median } from './support.js';

/**
 * `BENCH_METRICS=1 npm run bench:serving`: what Prometheus metrics cost the CDN (embedded),
 * in pairs. Each pair is a fresh service without metrics (A) and a fresh one with
 * `FILEHOST_METRICS_PORT` set and scraped every second from another process (B), for each
 * cache state asked for; each file size is warmed up on both and then measured A B B A (the
 * next pair B A A B), so that a machine speeding up or slowing down within a pair weighs on
 * both sides alike. A pair's ratio is B's rate over A's (the mean of its two runs each), and
 * its CPU ratio B's CPU time per request over A's.
 *
 * Fresh processes per pair, because one process of the service can serve slower for its
 * whole life than another of the same build (test/bench/README.md): the pairs are then
 * independent draws, and the sign test's interval of their median (`paired-ratios.ts`) says
 * whether "within 3%" is shown, refuted, or not decided by this many pairs.
 *
 * `BENCH_CONTROL=1` leaves metrics off on both sides: the same schedule measuring nothing,
 * the bench's own noise (its interval should hold 1). `BENCH_SCRAPE=0` leaves B unscraped
 * while it is measured (counting only): the pair then says what counting costs apart from
 * the scrapes.
 */
export interface MetricsBenchOptions {
  wrkPath: string;
  dir: string;
  /** The files by label (`1 MiB`), each uploaded to every service. */
  files: Record<string, Uint8Array<ArrayBuffer>>;
  caches: CacheState[];
  pairs: number;
  seconds: number;
  connections: number;
  control: boolean;
  /** B scraped every second (false: B counts, and nothing reads it while it is measured). */
  scraped: boolean;
  /** The goal on B / A: 0.97 is "within 3%". */
  floor: number;
}

export type CacheState = 'cached' | 'uncached';

/** `BENCH_CACHE`: `on`, `off`, or both (`on,off`, the default). */
export function parseCacheStates(text: string | undefined): CacheState[] {
  const words = (text ?? 'on,off').split(',').map((word) => word.trim());
  const states = words.map((word) => {
    if (word === 'on') return 'cached';
    if (word === 'off') return 'uncached';
    throw new Error(`BENCH_CACHE: ${word} is neither on nor off`);
  });
  return [...new Set(states)];
}

/** One side of a pair: a running service, its files' URLs, and its metrics and scraper if any. */
interface Side {
  service: ChildService;
  urls: Record<string, string>;
  metricsUrl: string | null;
  scraper: { stop(): Promise<void> } | null;
}

/** A pair's two sides for one case, each measured twice. */
interface PairResult {
  order: 'ABBA' | 'BAAB';
  a: Measured[];
  b: Measured[];
  /** The garbage collections B's GC observer counted over the four runs (with metrics). */
  collections: number | null;
}

/**
 * One scrape on a connection of its own: a kept-alive one could meet the metrics server
 * closing it for idleness between two pairs' reads.
 */
function scrapeOnce(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(text)
          : reject(new Error(`${url}: ${response.statusCode}`)),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** The collections a side's `nodejs_gc_duration_seconds` histogram has counted, all kinds. */
async function collections(side: Side): Promise<number | null> {
  if (!side.metricsUrl) return null;
  const text = await scrapeOnce(side.metricsUrl);
  let count = 0;
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\d+)$/gm))
    count += Number(match[1]);
  return count;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** B's rate over A's, each the mean of its runs. */
const rateRatio = (pair: PairResult) =>
  mean(pair.b.map((run) => run.rps)) / mean(pair.a.map((run) => run.rps));

/** B's CPU time per request over A's (above 1: B spends more per answer). */
const cpuRatio = (pair: PairResult) =>
  mean(pair.b.map((run) => run.cpuMicros)) / mean(pair.a.map((run) => run.cpuMicros));

async function startSide(
  options: MetricsBenchOptions,
  cache: CacheState,
  withMetrics: boolean,
  name: string,
): Promise<Side> {
  const scraped = withMetrics ? await metricsEnv() : null;
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(options.dir, name),
    FILEHOST_LOG_LEVEL: 'error',
    ...(cache === 'uncached' ? { FILEHOST_CDN_CACHE_MB: '0' } : {}),
    ...scraped?.env,
  });
  const urls: Record<string, string> = {};
  for (const [label, bytes] of Object.entries(options.files))
    urls[label] = (await upload(service, bytes)).url;
  return {
    service,
    urls,
    metricsUrl: scraped?.url ?? null,
    scraper: scraped && options.scraped ? scrapeEverySecond(scraped.url) : null,
  };
}

async function stopSide(side: Side): Promise<void> {
  const scraped = side.scraper?.stop();
  side.service.process.kill('SIGTERM');
  await side.service.exited;
  // Throws when a scrape failed or none was answered: B must really have been scraped.
  await scraped;
}

function caseName(label: string, cache: CacheState): string {
  return `${label} ${cache}`;
}

export async function metricsPairsBench(options: MetricsBenchOptions): Promise<BenchRow[]> {
  const { caches, files, pairs, control } = options;
  const results = new Map<string, PairResult[]>();
  for (const label of Object.keys(files))
    for (const cache of caches) results.set(caseName(label, cache), []);
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 === 0 ? 'ABBA' : 'BAAB';
    for (const cache of caches) {
      const started = await Promise.allSettled([
        startSide(options, cache, false, `${cache}-${pair}-a`),
        startSide(options, cache, !control, `${cache}-${pair}-b`),
      ]);
      const running = started.flatMap((side) => (side.status === 'fulfilled' ? [side.value] : []));
      const failed = started.find((side) => side.status === 'rejected');
      if (failed) {
        await Promise.all(running.map(stopSide));
        throw failed.reason;
      }
      const [a, b] = running as [Side, Side];
      try {
        for (const label of Object.keys(files)) {
          const drive = (side: Side, seconds: number) =>
            wrk(options.wrkPath, side.urls[label] as string, [side.service.process.pid ?? 0], {
              seconds,
              connections: options.connections,
            });
          const sides = order === 'ABBA' ? [a, b, b, a] : [b, a, a, b];
          // Warmed up in the order measured: the first side is not the only one run cold.
          for (const side of sides.slice(0, 2)) drive(side, 1);
          const result: PairResult = { order, a: [], b: [], collections: null };
          const collectedBefore = await collections(b);
          for (const side of sides)
            (side === a ? result.a : result.b).push(drive(side, options.seconds));
          const collectedAfter = await collections(b);
          if (collectedBefore !== null && collectedAfter !== null)
            result.collections = collectedAfter - collectedBefore;
          results.get(caseName(label, cache))?.push(result);
          printPair(label, cache, pair, result, options.seconds);
        }
      } finally {
        await Promise.all([stopSide(a), stopSide(b)]);
      }
    }
  }
  console.log();
  const rows: BenchRow[] = [];
  for (const [name, measured] of results) {
    const rates = summariseRatios(measured.map(rateRatio));
    const cpu = summariseRatios(measured.map(cpuRatio));
    console.log(`${name.padEnd(16)} requests/s B / A: ${describe(rates)}`);
    console.log(`${''.padEnd(16)} ${verdict(rates, options.floor)}`);
    console.log(`${''.padEnd(16)} CPU µs/request B / A: ${describe(cpu)}`);
    const offRate = median(measured.flatMap((pair) => pair.a.map((r) => r.rps)));
    rows.push({
      comparison: 'serving from the CDN',
      measure: `${name}, ${control ? 'control: metrics off on both sides' : options.scraped ? 'metrics on' : 'metrics on, not scraped'}, requests/s (median of ${pairsOf(measured.length)})`,
      filehost: rates.median * offRate,
      peer: { name: 'metrics off', value: offRate },
      goal: { op: '>=', target: options.floor },
      runs: measured.length,
    });
  }
  return rows;
}

function printPair(
  label: string,
  cache: CacheState,
  pair: number,
  result: PairResult,
  seconds: number,
): void {
  const rates = (runs: Measured[]) => runs.map((run) => run.rps.toFixed(0)).join(', ');
  const cpu = (runs: Measured[]) => mean(runs.map((run) => run.cpuMicros)).toFixed(1);
  // Both runs of B took the same seconds: its requests are its mean rate times twice those.
  const collected =
    result.collections === null
      ? ''
      : `; B's collections: ${result.collections} (${((1000 * result.collections) / (2 * seconds * mean(result.b.map((run) => run.rps)))).toFixed(2)} per 1,000 requests)`;
  console.log(
    `${caseName(label, cache).padEnd(16)} pair ${String(pair + 1).padStart(2)} ${result.order}: B / A ${rateRatio(result).toFixed(3)} (A ${rates(result.a)}; B ${rates(result.b)} req/s), CPU µs/request A ${cpu(result.a)} B ${cpu(result.b)}: ${cpuRatio(result).toFixed(3)}${collected}`,
  );
}

function describe(summary: RatioSummary): string {
  const { quartiles, interval, count } = summary;
  return `median ${summary.median.toFixed(3)} of ${pairsOf(count)}, quartiles ${quartiles[0].toFixed(3)}-${quartiles[1].toFixed(3)}, ${(interval.confidence * 100).toFixed(1)}% interval of the median ${interval.low.toFixed(3)}-${interval.high.toFixed(3)}`;
}

const pairsOf = (count: number) => `${count} pair${count === 1 ? '' : 's'}`;
