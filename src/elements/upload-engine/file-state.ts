import { cleanName } from '../../api/names.js';
import type { FileMetadata, FileRecord, Visibility } from '../../api/types.js';
import type { UploadPlan } from '../../client/upload-plan.js';
import type { UploadTokenProvider } from '../../client/upload-token.js';
import type { UploadFailure } from './failure.js';
import type { FailureCause } from './failure-cause.js';
import type { FileStatus, FileSummary, FileView } from './file-view.js';
import type { UploadRate } from './upload-rate.js';

/**
 * Where and as what one file is uploaded. Taken from the element's settings when the file
 * starts, and kept once the file is signed: a page that changes `endpoint`, `api-key`,
 * `metadata` or `visibility` while a file is on its way changes it for that file's next fresh start (a
 * retry after a refused key, say), never between its sign, its PUTs and its complete.
 */
export interface UploadTarget {
  readonly endpoint: string;
  readonly apiKey: string;
  readonly metadata: FileMetadata;
  readonly visibility: Visibility | undefined;
  /** The element's `upload-token` and `tokenProvider` when the file started (see there). */
  readonly uploadToken?: string;
  readonly tokenProvider?: UploadTokenProvider;
}

/** Where an element's uploads go, as one string: its endpoint and its key. */
export const placeOf = (endpoint: string, apiKey: string) => `${endpoint}\n${apiKey}`;

/**
 * Everything the engine knows of one file besides Uppy's own state: one record per file.
 * The optional fields are absent until an attempt first sets them (absent reads as null or
 * false): a new record spells out only what the page can read of it (`fileView`).
 */
export interface FileUpload {
  target: UploadTarget;
  /** Object URL of a small picture, for images, once made (see `previewImage`). */
  thumbnail: string | null;
  /** Its path in a chosen or dropped folder, stored as the `relativePath` metadata. */
  readonly relativePath: string | null;
  /** The signed upload: its id and parts (kept across retries, so a retry resumes). */
  plan?: UploadPlan | null;
  /** The service's record, once complete answered `ready`. */
  record: FileRecord | null;
  /** Why the last attempt failed, as it was: what the retry rules decide on. */
  cause?: FailureCause | null;
  /** The same in the page's words (kept while a retry waits, to say why it waits). */
  failure: UploadFailure | null;
  /** Automatic retries since the user last asked for one. */
  attempts: number;
  retry?: { timer: ReturnType<typeof setTimeout>; at: number } | null;
  /** Stops the attempt under way: its sign, its part PUTs (several parts) and its complete. */
  abort?: AbortController | null;
  /** Paused by the user: nothing more is sent until it is resumed. */
  paused?: boolean;
  /**
   * What tells the file apart, once its upload is remembered across reloads (null until
   * then), so that it is forgotten when done or removed.
   */
  fingerprint?: string | null;
  /** Its plan came from an upload remembered before a reload: one the service forgot is said so. */
  recalled: boolean;
  /** Lets go of the lock that tells other tabs this page runs the remembered upload. */
  unlock?: (() => void) | null;
  /** Signed by a batch call (then completed by one too, even alone). */
  signedTogether?: boolean;
  /**
   * The attempt under way reached its send step, or ended (it never rejects: failures are
   * recorded).
   */
  prepared?: Promise<void> | null;
  /** Ends the send step of the attempt under way (set while Uppy's uploaders send it). */
  sent?: { resolve(): void; reject(reason: unknown): void } | null;
  /**
   * Its batch upload's request (`batch-upload.ts`): settles once that request's answer for
   * it was heard (or it was left out). A file resumed before waits for it instead of sending
   * its bytes again (`UploadRuns.resume`).
   */
  batch?: Promise<void> | null;
  /** Our own step under way, between Uppy's events. */
  step?: 'preparing' | 'finishing' | null;
  /** How its upload went since the page last heard "all done"; null when it has not run. */
  outcome: 'running' | 'succeeded' | 'failed' | null;
  /** Its speed in the attempt under way (from Uppy's progress reports). */
  rate?: UploadRate | null;
}

export function newFileUpload(
  target: UploadTarget,
  thumbnail: string | null,
  relativePath: string | null = null,
): FileUpload {
  return {
    target,
    thumbnail,
    relativePath,
    record: null,
    failure: null,
    attempts: 0,
    recalled: false,
    outcome: null,
  };
}

/** What the view needs of Uppy's file (structurally; the engine passes Uppy's own). */
export interface EngineFile {
  id: string;
  name?: string;
  size: number | null;
  type?: string;
  error?: string | null;
  progress: {
    uploadStarted: number | null;
    uploadComplete?: boolean;
    bytesUploaded: number | false;
  };
}

/** Where a file stands, from Uppy's state and ours; the first that holds wins. */
export function fileStatus(file: EngineFile, upload: FileUpload): FileStatus {
  if (upload.record) return 'done';
  if (upload.paused) return 'paused';
  if (upload.retry) return 'retrying';
  if (file.error && upload.failure) return 'failed';
  if (upload.step === 'finishing' || file.progress.uploadComplete) return 'finishing';
  if (upload.step === 'preparing') return 'preparing';
  if (file.progress.uploadStarted) return 'uploading';
  // Started, and waiting for its turn to be signed.
  if (upload.outcome === 'running') return 'preparing';
  return 'queued';
}

/** What the page hears of a file as it goes (Uppy's, as its events describe it). */
export function summary(file: EngineFile): FileSummary {
  return {
    id: file.id,
    name: cleanName(file.name ?? '') || 'upload',
    size: file.size ?? 0,
    type: file.type ?? '',
  };
}

/** What the element renders for one file the engine holds. */
export function fileView(file: EngineFile, upload: FileUpload): FileView {
  const { record } = upload;
  const described = summary(file);
  const { size } = described;
  const sent = file.progress.bytesUploaded;
  const bytesUploaded = record ? size : typeof sent === 'number' ? sent : 0;
  const status = fileStatus(file, upload);
  return {
    ...described,
    // The stored name once there is one; until then the chosen name, made safe to show.
    name: record?.name ?? described.name,
    thumbnail: upload.thumbnail,
    status,
    bytesUploaded,
    fraction: size > 0 ? Math.min(1, bytesUploaded / size) : 0,
    // Shown while it fails, and while a retry waits (to say why).
    failure: status === 'failed' || status === 'retrying' ? upload.failure : null,
    record,
    retryAt: upload.retry?.at ?? null,
  };
}
