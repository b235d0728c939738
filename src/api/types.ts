import type { PartChecksum } from './checksum.js';
import type { ApiErrorBody } from './errors.js';

/** Shapes on the wire. The service produces exactly these; the client returns exactly these. */

export type FileStatus = 'pending' | 'ready';
export type FileMetadata = Record<string, string>;
/** `private`: the CDN serves the file only through a signed link (`POST /v1/files/:id/signed-url`). */
export type Visibility = 'public' | 'private';

/** A file as `GET /v1/files`, `GET /v1/files/:id` and `complete` return it. */
export interface FileRecord {
  id: string;
  name: string;
  mime: string;
  size: number;
  /** Milliseconds since the Unix epoch; for multi-step uploads, when sign was called. */
  createdAt: number;
  /**
   * `failed` only for an import that failed (`importError` says why): `GET /v1/files/:id`
   * shows it for a day after; it is never listed.
   */
  status: FileStatus | 'failed';
  visibility: Visibility;
  /**
   * `{cdn_url}/<id>/<encoded name>`; answers 404 until the file is ready. `null` for a
   * private file: its backend asks for a signed link (`signedUrl`) when it wants one.
   */
  url: string | null;
  metadata: FileMetadata;
  /**
   * Milliseconds since the Unix epoch when the file is deleted by itself (an upload token's
   * `deleteAfter`, or `deleteAfter` at sign with the secret key); `null`: kept until deleted.
   */
  deleteAt: number | null;
  /**
   * When the service's malware scanner (ClamAV) found the file clean, ms since the Unix
   * epoch; null when no scanner is configured, or the file is not ready yet.
   */
  scannedAt: number | null;
  /** Imports under way (`status: "pending"`): how far the fetch has come. */
  importProgress?: ImportProgress;
  /** Imports that failed (`status: "failed"`): why. */
  importError?: ImportError;
}

/** Why an import failed (decisions.md, "Importing from a URL"). */
export type ImportErrorCode =
  | 'import_refused_target'
  | 'import_http_error'
  | 'too_large'
  | 'unsupported_type'
  | 'import_timeout'
  | 'import_failed';

export interface ImportError {
  code: ImportErrorCode;
  message: string;
  /** `import_http_error`: the status the remote server answered. */
  status?: number;
}

export interface ImportProgress {
  /** Bytes fetched and stored so far. */
  receivedBytes: number;
  /** The size the remote server declared (`Content-Length`), or null when it declared none. */
  totalBytes: number | null;
}

/** `POST /v1/uploads/import`: the service fetches `url` and stores it as a file. */
export interface ImportRequest {
  /** `http` or `https`, at most 2048 characters, no credentials. */
  url: string;
  /** Default: the remote `Content-Disposition` file name, else the URL's last segment. */
  name?: string;
  metadata?: FileMetadata;
  visibility?: Visibility;
}

/** The `202` answer of `POST /v1/uploads/import`: the file, `status: "pending"`. */
export interface ImportResponse {
  file: FileRecord;
  /**
   * The import's own credential, as a sign answer's: `GET /v1/uploads/:id` with it
   * (`X-Upload-Token`) follows the import, with a publishable key or with an upload token,
   * which may not read files (`GET /v1/files/:id` answers it `403 token_scope`). Shown
   * only here.
   */
  uploadToken: string;
}

/**
 * `GET /v1/uploads/:id` of an import: its record as `GET /v1/files/:id` shows it
 * (`pending` with `importProgress`, `ready`, or `failed` with `importError` for 24 hours).
 */
export interface ImportState {
  file: FileRecord;
}

export interface FileListResponse {
  files: FileRecord[];
  /** Opaque; `null` exactly when no more files remain. */
  nextCursor: string | null;
}

/** `POST /v1/upload` answer (note `type` here, `mime` in the file record). */
export interface UploadResponse {
  id: string;
  /** `null` for a private file, as in the file record. */
  url: string | null;
  visibility: Visibility;
  name: string;
  size: number;
  type: string;
  /** As in the file record: when the file is deleted by itself, or `null`. */
  deleteAt: number | null;
}

export interface SignRequest {
  name: string;
  size: number;
  /** Defaults to `application/octet-stream`. */
  type?: string;
  metadata?: FileMetadata;
  /**
   * `true`: every part PUT must carry a digest of its bytes, and the storage refuses a part
   * whose bytes do not match it (see `SignResponse.checksum`). Default false.
   */
  checksum?: boolean;
  /** Default `public`; `private` files are served only through signed links. */
  visibility?: Visibility;
  /**
   * Secret key only: seconds (60 to 31,536,000) after the sign at which the file is deleted
   * by itself (the record's `deleteAt`). With an upload token, the token's `deleteAfter` rules.
   */
  deleteAfter?: number;
}

/** Batch sign: 1 to 100 files, all signed or none (see `SignBatchResponse`). */
export interface SignBatchRequest {
  files: SignRequest[];
}

export interface SignedPart {
  partNumber: number;
  size: number;
  method: 'PUT';
  /** The URL is the credential: no Authorization header is sent with it. */
  url: string;
  /** Headers the PUT must carry exactly; they are part of the signature. */
  headers: Record<string, string>;
}

export interface SignResponse {
  id: string;
  /**
   * The upload's own credential: with a publishable key, its state and its completion are
   * answered only to a caller that shows it (`X-Upload-Token`; batch complete: each entry's
   * `uploadToken`). Keep it as long as the upload may be resumed; it is shown only here.
   */
  uploadToken: string;
  /**
   * When the upload expires unfinished: 24 hours after its sign or its last part, whichever
   * is later, never more than 7 days after its sign.
   */
  expiresAt: number;
  partSize: number;
  /**
   * The digest every part PUT of this upload must carry (`sha256`: a `Content-Digest`
   * header, `md5`: `Content-MD5`; see `api/checksum.ts`). `null` when the upload was signed
   * without `checksum: true`, or the storage is configured to check none.
   */
  checksum: PartChecksum | null;
  parts: SignedPart[];
}

/** `201` answer of a batch sign: one sign response per file, in the order asked. */
export interface SignBatchResponse {
  uploads: SignResponse[];
}

export interface PartUploadResponse {
  partNumber: number;
  size: number;
  etag: string;
}

export interface CompleteRequest {
  parts?: { partNumber: number; etag: string }[];
}

/** Batch complete: 1 to 100 uploads, each completed on its own. */
export interface CompleteBatchRequest {
  /** `uploadToken`: what the upload's sign answered (needed with a publishable key). */
  uploads: ({ id: string; uploadToken?: string } & CompleteRequest)[];
}

/**
 * One upload's outcome in a batch complete: the ready file, or why it is not, with the
 * HTTP status a single complete would have answered.
 */
export type CompleteBatchResult =
  | { file: FileRecord; error?: undefined }
  | { file?: undefined; error: ApiErrorBody['error'] & { status: number } };

/** `200` answer of a batch complete: one result per upload, in the order asked. */
export interface CompleteBatchResponse {
  results: CompleteBatchResult[];
}

/**
 * One file of a batch upload (`POST /v1/upload/batch`, its `files` field): described as a
 * sign describes it, with the SHA-256 of its bytes (base64) when they should be checked.
 */
export interface UploadBatchEntry extends SignRequest {
  sha256?: string;
}

/**
 * `200` answer of a batch upload (`POST /v1/upload/batch`): one result per entry of its
 * `files` field, in that order, shaped as a batch complete's.
 */
export interface UploadBatchResponse {
  results: CompleteBatchResult[];
}

/**
 * One part of `GET /v1/uploads/:id`: `etag` is null until the part has arrived whole. Once
 * the upload is ready, the ETag it was completed with (`''` for uploads completed before
 * the service kept them).
 */
export interface UploadPartState {
  partNumber: number;
  size: number;
  etag: string | null;
  /** Freshly signed for a pending upload, so a client can resume after its URLs expired. */
  method?: 'PUT';
  url?: string;
  headers?: Record<string, string>;
}

/** Image parameters of a CDN URL (decisions.md, "Image variants on the CDN"). */
export interface ImageTransform {
  /** Pixels, 1 to 4096. */
  w?: number;
  /** Pixels, 1 to 4096. */
  h?: number;
  /** Default `inside`. */
  fit?: 'cover' | 'contain' | 'inside' | 'fill';
  format?: 'auto' | 'webp' | 'avif' | 'jpeg' | 'png';
  /** 1 to 100, default 75. */
  q?: number;
}

/** `POST /v1/files/:id/signed-url` (secret key): every field optional. */
export interface SignedUrlRequest {
  /** Seconds the link works, 1 to 604800 (7 days); default 3600. */
  expiresIn?: number;
  /** `true`: the CDN serves the file as an attachment (a download). Default false. */
  download?: boolean;
  /** Image parameters the link is signed with (an image file only). */
  transform?: ImageTransform;
}

/** A signed CDN link: the only way a private file is served; a public file answers it too. */
export interface SignedUrlResponse {
  /** `{cdn_url}/<id>/<name>?<image parameters>&exp=<Unix s>&sig=<…>` */
  url: string;
  /** Milliseconds since the Unix epoch (the link's `exp`, in seconds, times 1000). */
  expiresAt: number;
}

/** `GET /v1/usage` (secret key): what the project holds now, and its limits (null: none). */
export interface Usage {
  /** Bytes of ready files. */
  storedBytes: number;
  /** Ready files. */
  files: number;
  /** Signed sizes of pending uploads (and bytes reserved by one-request uploads under way). */
  pendingBytes: number;
  pendingUploads: number;
  /** Bytes of the image variants the CDN keeps for ready files; not counted against the quota. */
  variantBytes: number;
  quota: { storageBytes: number | null; pendingUploads: number | null };
}

export interface UploadState {
  id: string;
  status: FileStatus;
  expiresAt: number;
  partSize: number;
  /** As the sign answer said: the digest every part PUT must carry, or null. */
  checksum: PartChecksum | null;
  parts: UploadPartState[];
}

/**
 * `POST /v1/upload-tokens` (secret key): what an upload token lets its holder upload. Every
 * field is optional; an absent limit is the project's own.
 */
export interface UploadTokenRequest {
  /** Files that may be signed with it (pending and ready together), at least 1. */
  maxFiles?: number;
  /** Bytes of one file, at least 1, at most the plan's cap. */
  maxFileSize?: number;
  /** Bytes of all its files together, at least 1. */
  maxBytes?: number;
  /** Accepted types (`image/*`, `application/pdf`), declared at sign and recognised at complete. */
  types?: string[];
  /** Merged into each file's metadata; these keys win over what the uploader sends. */
  metadata?: FileMetadata;
  /** Forced on each file when set. */
  visibility?: Visibility;
  /** Seconds (60 to 31,536,000) after each file's sign at which it is deleted by itself. */
  deleteAfter?: number;
  /** Seconds the token may start uploads, 60 to 86,400; default 3,600. */
  expiresIn?: number;
}

/** The policy of an upload token as the service keeps it: `null` where nothing was asked. */
export interface UploadTokenPolicy {
  maxFiles: number | null;
  maxFileSize: number | null;
  maxBytes: number | null;
  types: string[] | null;
  metadata: FileMetadata;
  visibility: Visibility | null;
  deleteAfter: number | null;
}

/** `201` answer of `POST /v1/upload-tokens`: the token, shown only here, and its policy. */
export interface UploadTokenResponse extends UploadTokenPolicy {
  /** `upt_…`: sent as `Authorization: Bearer upt_…` on upload calls. */
  token: string;
  /** Milliseconds since the Unix epoch; past it, starting an upload is `401 token_expired`. */
  expiresAt: number;
}
