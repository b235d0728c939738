import type { FileMetadata, FileRecord, ImportProgress, Visibility } from '../api/types.js';
import type { ApiError } from './api-error.js';
import type { CallOptions, FilehostClientOptions } from './connection.js';
import type { UploadBody } from './upload-body.js';
import type { RememberedUpload } from './upload-sequence.js';
import type { TokenSource } from './upload-token.js';

/**
 * What the client's calls take and give besides the wire types: the options of its calls
 * and of its whole uploads, and their results. Types only, apart from the calls
 * (`api.ts`, `calls.ts`) and the uploads that drive them (`client.ts`).
 */

/**
 * `FilehostApi`'s options: the client's, or, instead of `uploadToken` and `tokenProvider`,
 * where its upload calls get their token (`<file-uploader>` loads that code only when a
 * page sets a token).
 */
export interface FilehostApiOptions extends FilehostClientOptions {
  tokens?: TokenSource;
}

/** A call on one pending upload: its token, which its sign answered (needed with a publishable key). */
export interface UploadCallOptions extends CallOptions {
  uploadToken?: string | null;
}

/** `importFromUrl`'s options: the import's fields, how often to look, and what to tell. */
export interface ImportFromUrlOptions extends CallOptions {
  /** Default: the remote file name (`Content-Disposition`), else the URL's last segment. */
  name?: string;
  metadata?: FileMetadata;
  visibility?: Visibility;
  /** How often to ask how the import is going, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Told the bytes received (and the declared total, when known) while the import runs. */
  onProgress?: (progress: ImportProgress, record: FileRecord) => void;
}

/** Something a multi-step upload can read a byte range of, any number of times. */
export interface UploadSource {
  size: number;
  name?: string;
  type?: string;
  /** The bytes `[start, end)` as a body; called again when a part is retried. */
  slice(start: number, end: number): UploadBody | Promise<UploadBody>;
  /**
   * What tells these bytes apart from any others across runs (`fileSource` makes one from
   * the path, size, modification time and a hash of the first and last MiB): with a
   * `resume` store, an upload of the same fingerprint cut off before resumes. Asked only
   * when there is a store: it may read the file.
   */
  fingerprint?: () => Promise<string>;
}

/**
 * Where `uploadFile` remembers unfinished uploads, by the source's fingerprint and the
 * endpoint, so that a later run resumes them (`fileResumeStore` in `filehost/client/node`
 * keeps them in a file).
 */
export interface ResumeStore {
  get(key: string): Promise<RememberedUpload | undefined>;
  set(key: string, upload: RememberedUpload): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface UploadProgress {
  bytesUploaded: number;
  bytesTotal: number;
}

export interface UploadFileOptions extends CallOptions {
  name?: string;
  type?: string;
  metadata?: FileMetadata;
  /** Default `public`. A `private` file has no URL; a backend asks for a `signedUrl`. */
  visibility?: Visibility;
  /** Parts sent at once. Default 4: enough to fill a link, few enough to resume cheaply. */
  concurrency?: number;
  /** Retries of each part and call on transient failures (network, 408, 429, 5xx). Default 3. */
  retries?: number;
  /** Called as bytes go out: per chunk for streams (Node), per part for Blobs (browsers). */
  onProgress?: (progress: UploadProgress) => void;
  /** Resume an upload signed earlier (its id) instead of signing a new one. */
  resumeUploadId?: string;
  /** The token the sign of `resumeUploadId` answered (needed with a publishable key). */
  resumeUploadToken?: string;
  /**
   * Remember the upload while it runs (sources with a `fingerprint`), and resume one of the
   * same bytes to the same endpoint that was cut off: only the parts the service does not
   * hold are sent. One the service no longer knows (expired, deleted) starts afresh.
   */
  resume?: ResumeStore;
  /**
   * Default true: sign with `checksum: true` and send each part with the digest of its
   * bytes, so the storage refuses a part damaged on the way (it is sent again). Costs one
   * extra read of each part (browsers: the part in memory once); in a browser, parts
   * stored on S3 (MD5) go unchecked, as WebCrypto has no MD5.
   */
  checksum?: boolean;
}

/** One file of `uploadFiles`: its bytes, and what a single sign would be told of it. */
export interface UploadFilesItem extends UploadSource {
  metadata?: FileMetadata;
  /** This file's visibility; default the options' `visibility`, else `public`. */
  visibility?: Visibility;
}

export interface UploadFilesOptions extends CallOptions {
  /**
   * Part PUTs in flight at once, across all files. Default 6, the browser's connection
   * limit per host: more would only queue inside the browser.
   */
  concurrency?: number;
  /** Retries of each part and call on transient failures (network, 408, 429, 5xx). Default 3. */
  retries?: number;
  /** Bytes sent of all files together: per chunk for streams (Node), per part for Blobs. */
  onProgress?: (progress: UploadProgress) => void;
  /** Called once per file, as soon as its outcome is known (in the order they finish). */
  onFileDone?: (index: number, result: UploadFileResult) => void;
  /** Default true: see `UploadFileOptions.checksum`. */
  checksum?: boolean;
  /** Visibility of every file that does not say its own. Default `public`. */
  visibility?: Visibility;
  /** Remember each file while it runs, and resume it if cut off: see `UploadFileOptions.resume`. */
  resume?: ResumeStore;
}

/** One upload's outcome in `completeMany`: the ready file, or the service's error for it. */
export type CompleteResult =
  | { file: FileRecord; error?: undefined }
  | { file?: undefined; error: ApiError };

/**
 * The outcome of one file of `uploadFiles`: the ready file, or why it is not: an `ApiError`
 * for anything the service or the network answered, or the error reading the source threw.
 */
export type UploadFileResult =
  | { file: FileRecord; error?: undefined }
  | { file?: undefined; error: Error };
