import type { FastifyBaseLogger } from 'fastify';
import type { ServingCache } from './cdn/serving-cache.js';
import type { ImageVariants } from './cdn/variants/stored-variant.js';
import type { ServiceConfig } from './config.js';
import type { MetadataStore } from './db/metadata-store.js';
import type { DiskReserve } from './disk-reserve.js';
import type { ImportRunner } from './imports/import-job.js';
import type { ClamdScanner } from './ingest/clamd.js';
import type { MetadataStripper } from './ingest/strip-location.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import type { BlobStore } from './storage/blob-store.js';

/** What every handler needs, passed explicitly instead of living in module globals. */
export interface ServiceContext {
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
  /** Image variants on the CDN: stored ones found, new ones made (at most a few at once). */
  variants: ImageVariants;
  now: () => number;
  log: FastifyBaseLogger;
  /** Told when an event was recorded here, so its webhooks go out at once. */
  events: { kick(): void };
  /** Imports from a URL this process is fetching (`POST /v1/uploads/import`). */
  imports: ImportRunner;
  /** The key of signed CDN links (`cdn/signed-link.ts`), the same on every instance. */
  linkKey: Buffer;
  /** Safe ingest (`ingest/ingest.ts`): the malware scanner, if configured, and the photo metadata editor, unless `FILEHOST_STRIP_METADATA=none`. */
  scanner: ClamdScanner | null;
  stripper: MetadataStripper | null;
  /** This instance's metrics (`metrics/`), when `FILEHOST_METRICS_PORT` serves them; else null. */
  metrics: ServiceMetrics | null;
}
