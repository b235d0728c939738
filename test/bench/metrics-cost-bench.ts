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
