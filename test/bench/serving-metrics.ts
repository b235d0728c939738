import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { type MetricsPart, metricsPartsWithout } from '../../src/server/metrics/bench-ablation.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { metricsEnv, scrapeEverySecond } from './metrics-scraper.js';
import { type RatioSummary, summariseRatios, verdict } from './paired-ratios.js';
import { type Measured, upload, wrk } from './serving-support.js';
import { type BenchRow, mean, median } from './support.js';

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
 *
 * `BENCH_METRICS_WITHOUT` measures several B sides in each pair, each against the same A: one
 * per space-separated word, `none` (metrics on, nothing taken out), `off` (metrics off: a
 * control inside the same schedule), or parts of metrics taken out of that B, joined by
 * commas (`src/server/metrics/bench-ablation.ts`). The sides then take turns in a palindrome
 * (A B1 B2 ... B2 B1 A, the next pair rotated by one) so that every side's two runs centre on
 * the same moment; each B's ratio is over the same pair's A. `unscraped` is metrics on with its
 * server listening and never asked, not even for the collection count the others are scraped
 * for before and after their runs.
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
  /** B scraped every second (false: B counts, and nothing reads it while it is measured). */
  scraped: boolean;
  /** The B sides of each pair (one, unless `BENCH_METRICS_WITHOUT` names several). */
  variants: MetricsVariant[];
  /** The goal on B / A: 0.97 is "within 3%". */
  floor: number;
}

export type CacheState = 'cached' | 'uncached';

/** One B side: its name, and metrics off, or on with some parts taken out. */
export interface MetricsVariant {
  name: string;
  metrics: boolean;
  without: readonly MetricsPart[];
  /**
   * Its metrics server runs and is never scraped, not even for the collection count (the
   * word `unscraped`): whether a scrape leaves a cost in the process for the answers after it.
   */
  neverScraped?: boolean;
}

/**
 * The B sides `BENCH_METRICS_WITHOUT` asks for (see above); unset, the one B of
 * `BENCH_CONTROL` (metrics off) or of metrics on.
 */
export function parseVariants(text: string | undefined, control: boolean): MetricsVariant[] {
  const words = (text ?? '').split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) {
    return [
      control
        ? { name: 'metrics off', metrics: false, without: [] }
        : { name: 'metrics on', metrics: true, without: [] },
    ];
  }
  return words.map((word) => {
    if (word === 'off') return { name: 'metrics off', metrics: false, without: [] };
    if (word === 'none') return { name: 'metrics on', metrics: true, without: [] };
    if (word === 'unscraped') {
      return { name: 'metrics on, never scraped', metrics: true, without: [], neverScraped: true };
    }
    const without = [...metricsPartsWithout(word)];
    return { name: `without ${without.join(', ')}`, metrics: true, without };
  });
}

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

/**
 * What the kernel counted of a service process besides its CPU time: minor page faults (all
 * its threads, `/proc/<pid>/stat`) and its main thread's context switches, voluntary (it
 * waited) and not (it was put off the core; `/proc/<pid>/status`). Load moves them far less
 * than the rates, and they say whether a side touches new memory or is moved about more.
 */
interface KernelCounts {
  faults: number;
  voluntary: number;
  involuntary: number;
}

function kernelCounts(pid: number): KernelCounts {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const switches = (kind: string) =>
    Number(new RegExp(`^${kind}_ctxt_switches:\\s+(\\d+)$`, 'm').exec(status)?.[1]);
  // `minflt` is the stat file's tenth field.
  return {
    faults: Number(fields[7]),
    voluntary: switches('voluntary'),
    involuntary: switches('nonvoluntary'),
  };
}

/** A measured run, with the kernel's counts per answer. */
type Run = Measured & { perAnswer: KernelCounts };

/** A pair's sides for one case, each measured twice. */
interface PairResult {
  /** The order the sides were measured in: `A`, then `B` or `B1`, `B2`... */
  order: string;
  a: Run[];
  /** Each B's runs, in `variants` order. */
  b: Run[][];
  /** The garbage collections each B's GC observer counted over its runs (with metrics). */
  collections: (number | null)[];
}

/** One B's view of a pair: its runs against A's. */
interface PairOfTwo {
  a: Run[];
  b: Run[];
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
  let count: number | null = null;
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\d+)$/gm))
    count = (count ?? 0) + Number(match[1]);
  // Null without prom-client's default collectors (a part taken out): nothing counted them.
  return count;
}

/** B's rate over A's, each the mean of its runs. */
const rateRatio = (pair: PairOfTwo) =>
  mean(pair.b.map((run) => run.rps)) / mean(pair.a.map((run) => run.rps));

/** B's CPU time per request over A's (above 1: B spends more per answer). */
const cpuRatio = (pair: PairOfTwo) =>
  mean(pair.b.map((run) => run.cpuMicros)) / mean(pair.a.map((run) => run.cpuMicros));

/** The order of a pair's `count` sides (A is 0): a palindrome, rotated by `pair`. */
export function pairOrder(count: number, pair: number): number[] {
  const first = Array.from({ length: count }, (_, index) => (index + pair) % count);
  return [...first, ...[...first].reverse()];
}

async function startSide(
  options: MetricsBenchOptions,
  cache: CacheState,
  variant: MetricsVariant | null,
  name: string,
): Promise<Side> {
  const withMetrics = variant?.metrics ?? false;
  const scraped = withMetrics ? await metricsEnv() : null;
  const without = variant?.without ?? [];
  const env = {
    FILEHOST_LOG_LEVEL: 'error',
    ...(cache === 'uncached' ? { FILEHOST_CDN_CACHE_MB: '0' } : {}),
    ...scraped?.env,
    ...(without.length > 0 ? { FILEHOST_BENCH_METRICS_WITHOUT: without.join(',') } : {}),
  };
  // Once more in a data directory of its own when a start takes longer than it is given (a
  // heavily loaded machine: one such start ended a run of six pairs at load 36).
  const service = await spawnService({ ...env, FILEHOST_DATA_DIR: join(options.dir, name) }).catch(
    () => spawnService({ ...env, FILEHOST_DATA_DIR: join(options.dir, `${name}-again`) }),
  );
  // Without its server, B's metrics are counted and never read.
  const served =
    scraped && !without.includes('metrics-server') && !variant?.neverScraped ? scraped : null;
  const urls: Record<string, string> = {};
  for (const [label, bytes] of Object.entries(options.files))
    urls[label] = (await upload(service, bytes)).url;
  return {
    service,
    urls,
    metricsUrl: served?.url ?? null,
    scraper: served && options.scraped ? scrapeEverySecond(served.url) : null,
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
  const { caches, files, pairs, variants } = options;
  const results = new Map<string, PairResult[]>();
  for (const label of Object.keys(files))
    for (const cache of caches) results.set(caseName(label, cache), []);
  for (let pair = 0; pair < pairs; pair++) {
    for (const cache of caches) {
      // One after another: several services starting at once on a loaded machine can take
      // longer than a start is given.
      const sides: Side[] = [];
      try {
        for (const [index, variant] of [null, ...variants].entries())
          sides.push(
            await startSide(
              options,
              cache,
              variant,
              `${cache}-${pair}-${index === 0 ? 'a' : `b${index}`}`,
            ),
          );
      } catch (error) {
        await Promise.all(sides.map(stopSide));
        throw error;
      }
      try {
        for (const label of Object.keys(files)) {
          const drive = (side: Side, seconds: number): Run => {
            const pid = side.service.process.pid ?? 0;
            const before = kernelCounts(pid);
            const measured = wrk(options.wrkPath, side.urls[label] as string, [pid], {
              seconds,
              connections: options.connections,
            });
            const after = kernelCounts(pid);
            const answers = Math.max(1, measured.rps * seconds);
            return {
              ...measured,
              perAnswer: {
                faults: (after.faults - before.faults) / answers,
                voluntary: (after.voluntary - before.voluntary) / answers,
                involuntary: (after.involuntary - before.involuntary) / answers,
              },
            };
          };
          const order = pairOrder(sides.length, pair);
          const sideName = (index: number) =>
            index === 0 ? 'A' : variants.length === 1 ? 'B' : `B${index}`;
          // Warmed up in the order measured: the first side is not the only one run cold.
          for (const index of order.slice(0, sides.length)) drive(sides[index] as Side, 1);
          const runs: Run[][] = sides.map(() => []);
          const before = await Promise.all(sides.slice(1).map(collections));
          for (const index of order)
            runs[index]?.push(drive(sides[index] as Side, options.seconds));
          const after = await Promise.all(sides.slice(1).map(collections));
          const result: PairResult = {
            order: order.map(sideName).join(' '),
            a: runs[0] as Run[],
            b: runs.slice(1),
            collections: before.map((count, index) => {
              const later = after[index];
              return count === null || later === null || later === undefined ? null : later - count;
            }),
          };
          results.get(caseName(label, cache))?.push(result);
          printPair(label, cache, pair, result, options);
        }
      } finally {
        await Promise.all(sides.map(stopSide));
      }
    }
  }
  console.log();
  const rows: BenchRow[] = [];
  for (const [name, measured] of results) {
    const offRate = median(measured.flatMap((pair) => pair.a.map((r) => r.rps)));
    variants.forEach((variant, index) => {
      const ofB = measured.map((pair) => ({ a: pair.a, b: pair.b[index] as Run[] }));
      const rates = summariseRatios(ofB.map(rateRatio));
      const cpu = summariseRatios(ofB.map(cpuRatio));
      const title = variants.length === 1 ? name : `${name}, B${index + 1} ${variant.name}`;
      console.log(`${title}: requests/s B / A: ${describe(rates)}`);
      console.log(`  ${verdict(rates, options.floor)}`);
      console.log(`  CPU µs/request B / A: ${describe(cpu)}`);
      console.log(
        `  per answer, medians of the pairs, A | B: ${countsOf(measured.map((pair) => pair.a))} | ${countsOf(ofB.map((pair) => pair.b))}`,
      );
      rows.push({
        comparison: 'serving from the CDN',
        measure: `${name}, ${describeVariant(variant, options)}, requests/s (median of ${pairsOf(measured.length)})`,
        filehost: rates.median * offRate,
        peer: { name: 'metrics off', value: offRate },
        goal: { op: '>=', target: options.floor },
        runs: measured.length,
      });
    });
  }
  return rows;
}

/** The median over pairs of a side's kernel counts per answer (each pair's the mean of its runs). */
function countsOf(pairs: Run[][]): string {
  const of = (key: keyof KernelCounts) =>
    median(pairs.map((runs) => mean(runs.map((run) => run.perAnswer[key])))).toFixed(3);
  return `page faults ${of('faults')}, switches ${of('voluntary')} waited, ${of('involuntary')} put off`;
}

function describeVariant(variant: MetricsVariant, options: MetricsBenchOptions): string {
  if (!variant.metrics) return 'control: metrics off on both sides';
  if (variant.neverScraped) return 'metrics on, never scraped';
  const scraped = options.scraped && !variant.without.includes('metrics-server');
  const taken = variant.without.length > 0 ? ` without ${variant.without.join(', ')}` : '';
  return `${scraped ? 'metrics on' : 'metrics on, not scraped'}${taken}`;
}

function printPair(
  label: string,
  cache: CacheState,
  pair: number,
  result: PairResult,
  options: MetricsBenchOptions,
): void {
  const rates = (runs: Run[]) => runs.map((run) => run.rps.toFixed(0)).join(', ');
  const cpu = (runs: Run[]) => mean(runs.map((run) => run.cpuMicros)).toFixed(1);
  const kernel = (runs: Run[]) =>
    `${mean(runs.map((run) => run.perAnswer.faults)).toFixed(2)} faults, ${mean(runs.map((run) => run.perAnswer.voluntary + run.perAnswer.involuntary)).toFixed(2)} switches`;
  const several = result.b.length > 1;
  const lines = result.b.map((b, index) => {
    const collected = result.collections[index] ?? null;
    // Both runs of a B took the same seconds: its requests are its mean rate times twice those.
    const collections =
      collected === null
        ? ''
        : `; collections: ${collected} (${((1000 * collected) / (2 * options.seconds * mean(b.map((run) => run.rps)))).toFixed(2)} per 1,000 requests)`;
    const name = several ? `B${index + 1}` : 'B';
    const pairOf = { a: result.a, b };
    return `${name} / A ${rateRatio(pairOf).toFixed(3)} (${name} ${rates(b)} req/s), CPU µs/request ${name} ${cpu(b)}: ${cpuRatio(pairOf).toFixed(3)}, per answer ${kernel(b)}${collections}`;
  });
  const head = `${caseName(label, cache).padEnd(16)} pair ${String(pair + 1).padStart(2)} ${result.order}: A ${rates(result.a)} req/s, CPU µs/request A ${cpu(result.a)}, per answer ${kernel(result.a)}`;
  console.log(several ? [head, ...lines].join('\n    ') : `${head}; ${lines[0]}`);
}

function describe(summary: RatioSummary): string {
  const { quartiles, interval, count } = summary;
  return `median ${summary.median.toFixed(3)} of ${pairsOf(count)}, quartiles ${quartiles[0].toFixed(3)}-${quartiles[1].toFixed(3)}, ${(interval.confidence * 100).toFixed(1)}% interval of the median ${interval.low.toFixed(3)}-${interval.high.toFixed(3)}`;
}

const pairsOf = (count: number) => `${count} pair${count === 1 ? '' : 's'}`;
