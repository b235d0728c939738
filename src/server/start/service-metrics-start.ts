import type { ServiceContext } from '../context.js';
import type { ServiceConfig } from '../ground/config.js';
import { type MetricsServer, serveMetrics } from '../metrics/metrics-server.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';

/** A new instance's metrics when `FILEHOST_METRICS_PORT` asks for them; else null (nothing is counted). */
export function metricsFor(config: ServiceConfig): ServiceMetrics | null {
  return config.metricsPort === undefined ? null : new ServiceMetrics();
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
  return serveMetrics(metrics, config.metricsHost, config.metricsPort);
}
