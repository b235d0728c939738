import type { Readable } from 'node:stream';

export interface ByteRange {
  /** Inclusive offsets, as in HTTP `Range`. */
  start: number;
  end: number;
}

export interface PartPlacement {
  partNumber: number;
  /** Byte offset of the part in the whole file. */
  offset: number;
  size: number;
}

/** The multipart upload is gone (aborted, completed, or never created). */
export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`No multipart upload or blob for ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

/** A part write or completion collided with a completion or abort under way. */
export class BlobBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobBusyError';
  }
}

/**
 * Where file bytes live. Semantics follow S3 so an S3-compatible store can implement it:
 * an object appears whole or not at all; multipart parts are independent until completion;
 * re-writing a part replaces it. Every implementation passes
 * `test/server/storage/blob-store.conformance.ts`.
 */
export interface BlobStore {
  /** Removes what a crash left behind (temporary files); called once before serving. */
  recover(): Promise<void>;

  /**
   * Stores a whole object from `source`. On success the bytes are durable; if `source`
   * fails (a limit, a disconnect) nothing of the object remains.
   */
  put(key: string, source: AsyncIterable<Buffer> | Readable): Promise<{ size: number }>;
  /** A stream of the object's bytes (a range of them if given), or null if it does not exist. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Removes the object and any multipart upload under the key; removing nothing is fine. */
  delete(key: string, uploadId?: string | null): Promise<void>;

  /** Starts a multipart upload of `totalSize` bytes; returns the store's handle for it. */
  createMultipart(key: string, totalSize: number): Promise<string>;
  /**
   * Writes one part durably and returns its ETag (quoted), which differs from the ETag of
   * any earlier write of that part with other bytes. The caller guarantees `source` yields
   * exactly `part.size` bytes or fails; a failed write leaves the part not whole.
   */
  writePart(
    key: string,
    uploadId: string,
    part: PartPlacement,
    source: AsyncIterable<Buffer> | Readable,
  ): Promise<{ etag: string }>;
  /** Makes the parts the object. Idempotent: completing a completed upload succeeds. */
  completeMultipart(key: string, uploadId: string, parts: PartPlacement[]): Promise<void>;
  /** Drops a multipart upload and its parts; writes under way fail. */
  abortMultipart(key: string, uploadId: string): Promise<void>;
}
