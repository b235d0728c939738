import type { ImportRunner } from './imports/import-job.js';
import type { IngestContext } from './ingest/ingest-context.js';
import type { ImageVariants } from './variants/stored-variant.js';

/**
 * What every handler needs: the core (settings, stores, clock, log; `rules/context.ts`),
 * the safe ingest's workers, and the domain's own: image variants and imports. Built once
 * by the start-up (`start/service.ts`); the HTTP layer hands each module below only the part
 * it reads.
 */
export interface ServiceContext extends IngestContext {
  /** Image variants on the CDN: stored ones found, new ones made (at most a few at once). */
  variants: ImageVariants;
  /** Imports from a URL this process is fetching (`POST /v1/uploads/import`). */
  imports: ImportRunner;
  /** Whether the instance is stopping (`start/draining.ts`): `/readyz` then answers `503`. */
  draining: () => boolean;
}
