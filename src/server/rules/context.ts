import type { FastifyBaseLogger } from 'fastify';
import type { ServingCache } from '../cache/serving-cache.js';
import type { MetadataStore } from '../db/metadata-store.js';
import type { ServiceConfig } from '../ground/config.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { DiskReserve } from '../storage/disk-reserve.js';

/**
 * What the rules and the domain read: the settings, the stores, the clock and the log,
 * passed explicitly instead of living in module globals. The service's whole context
 * (`context.ts`) adds the domain's own workers (the scanner, image variants, imports); a
 * module asks only for what it uses, so nothing below HTTP imports from above it.
 */
export interface CoreContext {
  config: ServiceConfig;
  /** Public base URLs of the API and the CDN, fixed once both servers are bound. */
  urls: { api: string; cdn: string };
  db: MetadataStore;
  blobs: BlobStore;
  rateLimiter: RateLimiter;
  /** Space held back on a local disk for deletes on a full disk; null at scale. */
  reserve: DiskReserve | null;
  /** What the CDN keeps in memory; a delete must `forget` its file there. */
  servingCache: ServingCache;
  now: () => number;
  log: FastifyBaseLogger;
  /** Told when an event was recorded here, so its webhooks go out at once. */
  events: { kick(): void };
  /** The key of signed CDN links (`rules/signed-link.ts`), the same on every instance. */
  linkKey: Buffer;
  /** This instance's metrics (`metrics/`), when `FILEHOST_METRICS_PORT` serves them; else null. */
  metrics: ServiceMetrics | null;
}
