import type { CoreContext } from '../rules/context.js';
import type { ClamdScanner } from './clamd.js';
import type { MetadataStripper } from './strip-location.js';

/** What safe ingest (`ingest.ts`) reads: the core, and its own workers. */
export interface IngestContext extends CoreContext {
  /** The malware scanner, if configured. */
  scanner: ClamdScanner | null;
  /** The photo metadata editor, unless `FILEHOST_STRIP_METADATA=none`. */
  stripper: MetadataStripper | null;
}
