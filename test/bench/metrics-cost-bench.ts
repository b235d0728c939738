/**
 * `npm run bench:metrics-cost`: what counting one request costs, in CPU time per request,
 * measured in this process (so another session's load stretches the wall clock but hardly
 * the CPU time each operation takes): the CDN memory path's counting (two clock reads, a
 * route read from the URL, three map lookups, one histogram cell), the listener every other
 * CDN answer gets, and prom-client's own `labels(...).observe` for comparison (what the
 * cells avoid). Compare with the CPU time per request `bench:serving` prints for the whole
 * answer (`BENCH_METRICS=1`). For the API (the upload path): the same small route answered
 * by fastify (`inject`) with and without the metrics hook, in alternating rounds.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Fastify from 'fastify';
import { Histogram, Registry } from 'prom-client';
import { countApiTraffic } from '../../src/server/metrics/api-traffic.js';
import { countCdnAnswer, countMemoryAnswer } from '../../src/server/metrics/cdn-traffic.js';
import { DURATION_BUCKETS } from '../../src/server/metrics/http-traffic.js';
import { ServiceMetrics } from '../../src/server/metrics/service-metrics.js';
import { median } from './support.js';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 7);
const N = Number(process.env.BENCH_OPS ?? 500_000);

/** CPU nanoseconds per call of `op` (user and system), the median of `ROUNDS` rounds of `N`. */
function nsPerOp(op: (index: number) => void): { median: number; low: number; high: number } {
  for (let index = 0; index < N / 10; index++) op(index);
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let index = 0; index < N; index++) op(index);
    const used = process.cpuUsage(before);
    rounds.push(((used.user + used.system) * 1000) / N);
  }
  return { median: median(rounds), low: Math.min(...rounds), high: Math.max(...rounds) };
}

const metrics = new ServiceMetrics();
const urls = ['/f_abcdefghijklmnop', '/f_abcdefghijklmnop/photo.jpg'];
const baseline = nsPerOp((index) => {
  // The loop and the clock read the memory path makes anyway, without metrics: nothing.
  if (urls[index & 1] === undefined) throw new Error('unreachable');
});
const memory = nsPerOp((index) => {
  const startedAt = performance.now();
  countMemoryAnswer(metrics, urls[index & 1] as string, 1024, startedAt);
});
const responses = Array.from({ length: 1024 }, () => {
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = urls[0] as string;
  return { request, response: new ServerResponse(request) };
});
const other = nsPerOp((index) => {
  const { request, response } = responses[index & 1023] as (typeof responses)[number];
  countCdnAnswer(metrics, request, response, performance.now());
  response.emit('close');
});
const registry = new Registry();
const promClient = new Histogram({
  name: 'x_seconds',
  help: 'h',
  labelNames: ['server', 'route', 'method', 'status'],
  buckets: DURATION_BUCKETS,
  registers: [registry],
});
const children = [
  promClient.labels({ server: 'cdn', route: '/:id', method: 'GET', status: '200' }),
  promClient.labels({ server: 'cdn', route: '/:id/*', method: 'GET', status: '200' }),
];
const promClientChild = nsPerOp((index) => {
  const startedAt = performance.now();
  (children[index & 1] as (typeof children)[number]).observe(
    (performance.now() - startedAt) / 1000,
  );
});

const show = (name: string, cost: { median: number; low: number; high: number }) =>
  console.log(
    `${name.padEnd(62)} ${(cost.median - baseline.median).toFixed(0).padStart(6)} ns (${(cost.low - baseline.median).toFixed(0)}-${(cost.high - baseline.median).toFixed(0)})`,
  );
console.log(
  `CPU time added per request by metrics, median of ${ROUNDS} rounds of ${N} (the empty loop's ${baseline.median.toFixed(1)} ns taken off)`,
);
show('CDN memory path: clocks, route, cell, bytes, cache hit', memory);
show('any other CDN answer: its close listener, clocks, route, cell', other);
show("for comparison: prom-client's labels(...).observe with clocks", promClientChild);

/** CPU microseconds per `inject` of a small route, with and without the API's metrics hook. */
async function apiHookCost(): Promise<{ without: number[]; with: number[] }> {
  const app = (counted: boolean) => {
    const made = Fastify();
    if (counted) countApiTraffic(made, new ServiceMetrics());
    made.post('/v1/uploads/:id/complete', async () => ({ ok: true }));
    return made;
  };
  const apps = { without: app(false), with: app(true) };
  const costs = { without: [] as number[], with: [] as number[] };
  const requests = Math.max(2000, N / 50);
  for (let round = 0; round <= ROUNDS; round++) {
    const order = round % 2 ? (['with', 'without'] as const) : (['without', 'with'] as const);
    for (const side of order) {
      const before = process.cpuUsage();
      for (let index = 0; index < requests; index++) {
        await apps[side].inject({ method: 'POST', url: `/v1/uploads/u_${index}/complete` });
      }
      const used = process.cpuUsage(before);
      // The first round warms both up.
      if (round > 0) costs[side].push((used.user + used.system) / requests);
    }
  }
  return costs;
}

const api = await apiHookCost();
const ratios = api.with.map((value, round) => value / (api.without[round] as number));
console.log(
  `API answer through fastify (inject), CPU µs/request: without ${median(api.without).toFixed(2)}, with the hook ${median(api.with).toFixed(2)}; with/without per round ${ratios.map((r) => r.toFixed(3)).join(' ')}, median ${median(ratios).toFixed(3)}`,
);

/**
 * What metrics cost per second rather than per request, in alternating rounds with and
 * without: prom-client's GC observer (a `gc` PerformanceObserver observing each collection
 * into a histogram), per collection; the event-loop delay monitor (a timer every 10 ms),
 * per second of an idle process (when the service is busy its loop is awake anyway, so this
 * is the most it costs); and one scrape of a ServiceMetrics with the CDN's and the API's
 * usual label combinations. Multiplied by the collections and scrapes a second of serving
 * makes, they bound what metrics cost a service whose main thread is saturated.
 */
async function perSecondCosts(): Promise<void> {
  // Scavenges, forced: a serving process's collections are mostly these, and forcing them
  // makes the observer's share of each one measurable.
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as (options: { type: 'minor' }) => void;
  const makeGarbage = () => {
    for (let index = 0; index < 2_000; index++) collect({ type: 'minor' });
  };
  const gcHistogram = new Histogram({
    name: 'gc_seconds',
    help: 'h',
    labelNames: ['kind'],
    buckets: [0.001, 0.01, 0.1, 1, 2, 5],
    registers: [new Registry()],
  });
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    // As prom-client's observer does: the first entry of each batch.
    const entry = list.getEntries()[0];
    collections += list.getEntries().length;
    gcHistogram.observe({ kind: 'minor' }, (entry?.duration ?? 0) / 1000);
  });
  const gc = { without: [] as number[], with: [] as number[], perRound: [] as number[] };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const side of round % 2
      ? (['with', 'without'] as const)
      : (['without', 'with'] as const)) {
      if (side === 'with') observer.observe({ entryTypes: ['gc'] });
      const counted = collections;
      const before = process.cpuUsage();
      makeGarbage();
      // The observer's callbacks run after the work, on the loop: let them.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const used = process.cpuUsage(before);
      if (side === 'with') {
        observer.disconnect();
        gc.perRound.push(collections - counted);
      }
      if (round > 0) gc[side].push(used.user + used.system);
    }
  }
  const perCollection =
    (median(gc.with) - median(gc.without)) / Math.max(1, median(gc.perRound.slice(1)));
  console.log(
    `GC observer: ${median(gc.perRound).toFixed(0)} collections a round, CPU µs a round without ${median(gc.without).toFixed(0)}, with ${median(gc.with).toFixed(0)}: ${perCollection.toFixed(1)} µs per collection`,
  );

  const idle = { without: [] as number[], with: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2
      ? (['with', 'without'] as const)
      : (['without', 'with'] as const)) {
      const monitor = side === 'with' ? monitorEventLoopDelay({ resolution: 10 }) : null;
      monitor?.enable();
      const before = process.cpuUsage();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const used = process.cpuUsage(before);
      monitor?.disable();
      idle[side].push(used.user + used.system);
    }
  }
  console.log(
    `event-loop delay monitor (10 ms), an idle second: CPU µs without ${median(idle.without).toFixed(0)}, with ${median(idle.with).toFixed(0)}`,
  );

  const scraped = new ServiceMetrics();
  for (const route of ['/:id', '/:id/*', 'unmatched'])
    for (const status of [200, 206, 304, 404])
      scraped.http.answered('cdn', route, 'GET', status, 0.001);
  for (const route of ['/v1/upload', '/v1/files', '/v1/files/:id', '/v1/uploads/:id/complete'])
    for (const status of [200, 201, 400, 404])
      scraped.http.answered('api', route, 'POST', status, 0.01);
  for (let index = 0; index < 20; index++) await scraped.scrape();
  const scrapes: number[] = [];
  for (let round = 0; round < ROUNDS * 10; round++) {
    const before = process.cpuUsage();
    await scraped.scrape();
    const used = process.cpuUsage(before);
    scrapes.push(used.user + used.system);
  }
  console.log(
    `one scrape (32 label combinations of the HTTP histogram, prom-client's defaults): CPU µs median ${median(scrapes).toFixed(0)} (${Math.min(...scrapes).toFixed(0)}-${Math.max(...scrapes).toFixed(0)})`,
  );
}

await perSecondCosts();
