import type { UploadTokenPolicy } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';

/** What an import needs beyond its row: where from, and what bounds the file. */
export interface ImportJob {
  /** The pending row as inserted (metadata, visibility and `deleteAt` already final). */
  row: FileRow;
  url: URL;
  /** The caller's `name`, sanitised; null: from the remote answer or the URL. */
  givenName: string | null;
  /** The most bytes the file may have (plan, token, room left), counted as they arrive. */
  maxBytes: number;
  /** Why `maxBytes` is what it is, for the `too_large` message. */
  maxBytesReason: string;
  allowedTypes: readonly string[] | null;
  policy: UploadTokenPolicy | null;
}

/** What the service context holds of the imports a process runs (`importer.ts`'s `Imports`). */
export interface ImportRunner {
  /** Starts fetching; answers at once. */
  start(job: ImportJob): void;
  /** Imports under way here. */
  readonly size: number;
  /** Fails every import under way cleanly, before the stores close. */
  stop(): Promise<void>;
}
