import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { PartChecksum } from '../../api/checksum.js';
import type { SignedPart } from '../../api/types.js';

export interface ByteRange {
  /** Inclusive offsets, as in HTTP `Range`. */
  start: number;
  end: number;
  /**
   * Set by a caller that knows the range is the whole object: a store may then read it
   * without naming the range (S3: a GET without `Range`, which costs the gateway less).
   */
  whole?: boolean;
}

export interface PartPlacement {
  partNumber: number;
  /** Byte offset of the part in the whole file. */
  offset: number;
  size: number;
}

/** A part the store holds whole: what `ListParts` answers on S3. */
export interface HeldPart {
  partNumber: number;
  size: number;
  /** Quoted, as the `ETag` header of the part PUT carried it. */
  etag: string;
  /** When the part arrived (ms since the epoch), where the store knows: a pending upload expires a while after its last part. */
  arrivedAt?: number;
}

/**
 * Bytes of an object, opened to be sent (`BlobStore.openSender`): `sendTo` must be called
 * once, or what was opened is never released.
 */
export interface RangeSender {
  /**
   * Writes the bytes to `destination` and ends it. Resolves once the last byte was handed
   * over or the destination closed early; rejects, having destroyed the destination, when
   * the store failed midway. An HTTP answer, not any stream: a store may reuse a chunk once
   * the answer's write callback says its socket took it, which a stream that passes chunks
   * on by reference (a `PassThrough`) does not mean.
   */
  sendTo(destination: ServerResponse): Promise<void>;
}

/** What the store needs to address one multipart upload. */
export interface MultipartUpload {
  key: string;
  /** The store's handle, from `createMultipart`. */
  uploadId: string;
  /** The object's content type, fixed when the upload was created. */
  contentType: string;
  /**
   * The digest every part PUT must carry (the store's `partChecksum`, when the upload was
   * signed with checksums): `signPart` makes it a condition of the part's credential where
   * the store can. Absent or null: none.
   */
  checksum?: PartChecksum | null;
}

/**
 * Names of derived objects (`BlobStore.putDerived`): short, lower-case, no path separator,
 * so a store may use one as a file name or the last segment of an object key.
 */
export const DERIVED_NAME_PATTERN = /^[a-z0-9][a-z0-9._=-]{0,127}$/;

/** Throws unless `name` is a derived object's name: a bug elsewhere never names a path. */
export function assertDerivedName(name: string): void {
  if (!DERIVED_NAME_PATTERN.test(name)) {
    throw new TypeError(`Invalid derived object name: ${JSON.stringify(name)}`);
  }
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
 * The store cannot take the bytes or answer now (disk or bucket full, storage unreachable):
 * the service's fault, never the client's. `reason` picks the documented error.
 */
export class BlobUnavailableError extends Error {
  readonly reason: 'full' | 'unreachable';
  constructor(reason: 'full' | 'unreachable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BlobUnavailableError';
    this.reason = reason;
  }
}

/**
 * Where file bytes live, and everything only the storage can know about them. Semantics
 * follow S3, so that S3-compatible storage is one implementation and the local disk
 * another: an object appears whole or not at all; a multipart upload's parts are PUT by
 * the client straight to URLs the store signs (the service may never see those bytes);
 * the store lists the parts it holds and completes with the client's ETags. Every
 * implementation passes `test/server/storage/blob-store.conformance.ts`.
 */
export interface BlobStore {
  /**
   * The digest this store checks on a part PUT before it accepts the part (a part whose
   * bytes do not match is refused and never stored), or null when it checks none. Uploads
   * signed with `checksum: true` get this one.
   */
  readonly partChecksum: PartChecksum | null;

  /** Removes what a crash left behind (temporary files); called once before serving. */
  recover(): Promise<void>;
  /**
   * One cheap call that fails when the storage is unreachable (`GET /readyz`): resolves
   * when it answered, rejects otherwise. Writes nothing.
   */
  probe(): Promise<void>;

  /**
   * Stores a whole object from `source`. On success the bytes are durable; if `source`
   * fails (a limit, a disconnect) nothing of the object remains.
   */
  put(
    key: string,
    source: AsyncIterable<Buffer> | Readable,
    options: { contentType: string },
  ): Promise<{ size: number }>;
  /** A stream of the object's bytes (a range of them if given), or null if it does not exist. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  /**
   * The path of the object's file on this machine (whether it exists or not), for readers
   * that open a file themselves and read only what they need (the image encoder: libvips
   * reads it in its own thread, never the whole file into memory). Optional: a store whose
   * objects are not local files has none, and callers read `get`'s stream.
   */
  localPath?(key: string): string;
  /**
   * Bytes `range` of the object (within it) in one buffer of exactly that length, or null
   * if the object does not exist: for a store that reads a few bytes faster this way than
   * by a stream (the CDN's small answers). An object that ends inside the range is a
   * fault (throws). Optional: without it, callers read `get`'s stream.
   */
  readRange?(key: string, range: ByteRange): Promise<Buffer | null>;
  /**
   * Bytes `range` of the object (within it) as a stream, or null if the object does not
   * exist: for a store that sends a range more cheaply this way than `get` does (the CDN's
   * larger answers). Optional: without it, callers use `get` with the range.
   */
  streamRange?(key: string, range: ByteRange): Promise<Readable | null>;
  /**
   * Bytes `range` of the object (within it), opened to be written to an HTTP answer, or null
   * if the object does not exist: for a store that sends bytes more cheaply itself than a
   * stream piped to the answer does (the local disk: buffers reused from one answer to the
   * next; S3: the bucket's answer relayed with no stream between). Optional: without it,
   * callers pipe `streamRange` or `get`.
   */
  openSender?(key: string, range: ByteRange): Promise<RangeSender | null>;
  /** The object's size, or null if it does not exist (a multipart upload is not an object). */
  head(key: string): Promise<{ size: number } | null>;
  /**
   * Removes the object, the multipart upload `uploadId` under the key if given, and any
   * other unfinished upload the store made for the key itself (a streamed `put`); removing
   * nothing is fine.
   */
  delete(key: string, uploadId?: string | null): Promise<void>;

  /**
   * Objects made from the object `key` (an image's variants), each under a `name` of its
   * own (`DERIVED_NAME_PATTERN`), kept beside it in the same storage. Written whole or not
   * at all; writing a name again replaces it with (the same) bytes.
   */
  putDerived(
    key: string,
    name: string,
    bytes: Buffer,
    options: { contentType: string },
  ): Promise<void>;
  /** A derived object's bytes (a range of them if given), or null if there is none. */
  getDerived(key: string, name: string, range?: ByteRange): Promise<Readable | null>;
  /** A derived object's size, or null if there is none. */
  headDerived(key: string, name: string): Promise<{ size: number } | null>;
  /**
   * Removes every derived object of `key` (removing none is fine). Kept apart from
   * `delete`, which runs for every cancelled upload too: only a ready file can have them,
   * and at scale finding them costs a listing.
   */
  deleteDerived(key: string): Promise<void>;
  /** Removes the one derived object `name` of `key` (removing none is fine). */
  deleteDerivedObject(key: string, name: string): Promise<void>;

  /** Starts a multipart upload of `size` bytes in parts of `partSize`; returns its handle. */
  createMultipart(
    key: string,
    options: { size: number; partSize: number; contentType: string },
  ): Promise<string>;
  /**
   * How a client sends one part: method, URL and the headers it must carry, valid until
   * `expiresAt` (ms). The part PUT answers with the part's ETag in the `ETag` header.
   */
  signPart(upload: MultipartUpload, part: PartPlacement, expiresAt: number): Promise<SignedPart>;
  /**
   * Stores one part of a multipart upload from the service's own hands (tus: the bytes came
   * through the API, not to a signed URL), durably, replacing any earlier write of it; the
   * part then counts as held whole. Answers its ETag (quoted). Throws `BlobNotFoundError`
   * if the upload is gone. `bytes` is a buffer of `part.size` bytes, or a source that yields
   * exactly that many or fails (then the part is not held whole).
   */
  putPart(
    upload: MultipartUpload,
    part: PartPlacement,
    bytes: Buffer | AsyncIterable<Buffer>,
  ): Promise<{ etag: string }>;
  /** The parts held whole, by part number. Throws `BlobNotFoundError` if the upload is gone. */
  listParts(upload: MultipartUpload): Promise<HeldPart[]>;
  /**
   * Makes the listed parts, in order, the object. Idempotent: completing a completed upload
   * succeeds. Throws `BlobNotFoundError` if the upload is gone and no object was made.
   */
  completeMultipart(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
  ): Promise<void>;
  /** Drops a multipart upload and its parts; writes under way fail or are discarded. */
  abortMultipart(upload: MultipartUpload): Promise<void>;

  /** Releases connections or handles; called once when the service stops. */
  close?(): Promise<void>;
}
