import type { ServiceContext } from '../context.js';
import type { ServiceConfig } from '../ground/config.js';
import { metricsPartsWithout } from '../metrics/bench-ablation.js';
import { type MetricsServer, serveMetrics } from '../metrics/metrics-server.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';

/**
 * A new instance's metrics when `FILEHOST_METRICS_PORT` asks for them; else null (nothing is
 * counted). `FILEHOST_BENCH_METRICS_WITHOUT` takes parts out, for a bench (`bench-ablation.ts`).
 */
export function metricsFor(
  config: ServiceConfig,
  env: NodeJS.ProcessEnv = process.env,
): ServiceMetrics | null {
  if (config.metricsPort === undefined) return null;
  return new ServiceMetrics(metricsPartsWithout(env.FILEHOST_BENCH_METRICS_WITHOUT));
}

/**
 * Connects the metrics to what they read at a scrape (the outbox, the queues, the cache)
 * and to the scanner's and the encoder's timings, then serves them on their port. Null
 * when metrics are off.
 */
export async function startMetrics(ctx: ServiceContext): Promise<MetricsServer | null> {
  const { metrics, config } = ctx;
  if (!metrics || config.metricsPort === undefined) return null;
  metrics.watch({
    outbox: () => ctx.db.outboxBacklog(),
    variants: () => ctx.variants.encoder.stats,
    scans: () => ctx.scanner?.load ?? null,
    cdnCache: () => ctx.servingCache.size,
    now: ctx.now,
    warn: (error, what) => ctx.log.warn({ err: error }, what),
  });
  ctx.variants.encoder.onEncoded = (format, seconds) => metrics.encode(format, seconds);
  if (ctx.scanner) ctx.scanner.onScanned = (verdict, seconds) => metrics.scan(verdict, seconds);
  if (metrics.without.has('metrics-server')) return null;
  return serveMetrics(metrics, config.metricsHost, config.metricsPort);
}
