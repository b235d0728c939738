/**
 * Generated from the route schemas in src/server/api/schemas/components.ts by
 * `npm run openapi` (src/server/api/schemas/wire-types.ts): do not edit. The shapes on the
 * wire; src/api/types.ts and src/api/events.ts export them under the client's names.
 */

export interface ClaimedPart {
  partNumber: number;
  etag: string;
}

export interface CompleteBatchRequest {
  uploads: {
    id: string;
    /** The sign answer's `uploadToken` (needed with a publishable key). */
    uploadToken?: string;
    parts?: ClaimedPart[];
  }[];
}

export interface CompleteBatchResponse {
  results: CompleteBatchResult[];
}

export type CompleteBatchResult = {
  file: FileRecord;
  error?: undefined;
} | {
  error: ErrorDetail & {
    /** What a single complete would have answered. */
    status: number;
  };
  file?: undefined;
};

export interface CompleteRequest {
  /** Optional: the parts sent, with the ETags their PUTs answered. */
  parts?: ClaimedPart[];
}

/** The only time the signing secret is shown. */
export interface CreatedWebhook {
  id: string;
  url: string;
  events: EventType[];
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** `whsec_` and the base64 of 32 random bytes, as Standard Webhooks libraries take it. */
  secret: string;
}

/** The data of a `file.deleted` event: the file record as it was, and why it went. */
export interface DeletedFileRecord {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  /** Display name: NFC, control, bidi and zero-width characters and `/` `\` removed, trimmed, at most 255 UTF-8 bytes; empty or only dots becomes `upload`. */
  name: string;
  /** The stored content type (recognised from the bytes when possible). */
  mime: string;
  /** Bytes. An import not yet ready: the size its server declared (`Content-Length`), else the bytes received so far (0 at first). */
  size: number;
  /** When the row was created: the sign call for multi-step uploads. */
  createdAt: number;
  /** `pending` until ready; `failed` only for an import from a URL that failed (`importError` says why), which `GET /v1/files/{id}` shows for 24 hours after and never lists. */
  status: FileStatus | 'failed';
  visibility: Visibility;
  /** `{cdnUrl}/<id>/<encodeURIComponent(name)>`; answers 404 until the file is ready. `null` for a private file: its backend asks for a signed link. */
  url: string | null;
  metadata: Metadata;
  /** Milliseconds since the Unix epoch when the file deletes itself (an upload token's `deleteAfter`, or `deleteAfter` at sign with the secret key); `null`: kept until deleted. Within a minute past it the file is gone from the API and the CDN, with `file.deleted` (`"reason": "expired"`). */
  deleteAt: number | null;
  /** When the malware scanner (ClamAV, `FILEHOST_CLAMD`) found the file clean, before it became ready; `null` when no scanner is configured, or the file is not ready yet. */
  scannedAt: number | null;
  /** A ready image's [ThumbHash](https://evanw.github.io/thumbhash/) (standard base64, about 25 bytes): its aspect ratio and colours, computed as it became ready from the image decoded at most 100 px with its EXIF orientation applied, for a page to draw before any image request (`thumbHashToDataURL` of the `thumbhash` package). `null` for a file that is not an image, one that does not decode, one not ready yet, and an image made ready before placeholders until `admin placeholders fill` computes it. */
  placeholder: string | null;
  /** `deleted`: a `DELETE /v1/files/{id}`; `expired`: its `deleteAt` came. */
  reason: 'deleted' | 'expired';
  importProgress?: ImportProgress;
  importError?: ImportError;
}

export interface DeliveryRecord {
  webhookId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** The HTTP status of the last attempt; null before one, or when no answer came. */
  lastStatus: number | null;
}

/** The body of every error answer, on the API and the CDN. Extra fields inside `error` may appear. */
export interface ErrorBody {
  error: ErrorDetail;
}

/** Stable and machine-readable; each belongs to one HTTP status (see the responses of `components`). */
export type ErrorCode = 'invalid_request' | 'missing_file' | 'empty_body' | 'size_mismatch' | 'checksum_missing' | 'checksum_mismatch' | 'missing_auth' | 'invalid_key' | 'token_expired' | 'origin_not_allowed' | 'secret_key_required' | 'invalid_signature' | 'url_expired' | 'quota_exceeded' | 'token_exhausted' | 'token_scope' | 'upload_token_required' | 'not_found' | 'request_timeout' | 'upload_incomplete' | 'upload_not_pending' | 'upload_conflict' | 'too_large' | 'uri_too_long' | 'unsupported_type' | 'infected' | 'metadata_unreadable' | 'unscannable' | 'rate_limited' | 'headers_too_large' | 'internal_error' | 'unavailable' | 'insufficient_storage';

export interface ErrorDetail {
  code: ErrorCode;
  /** A human sentence; may change. */
  message: string;
  /** The answer's `X-Request-Id`: quoted in a report, it finds the request's log lines. Absent only inside a batch's per-entry results. */
  requestId?: string;
  /** Batch calls: the position of the first bad entry. */
  index?: number;
  /** `too_large`: the cap in bytes; `quota_exceeded`: `storage`, `pending_uploads`, `anonymous_share` (files uploaded without an upload token, together), `address_bytes` (one address, in any 24 hours) or `address_uploads` (one address, pending at once). */
  limit?: number | string;
  /** `quota_exceeded`: the limit passed. */
  quota?: number | null;
  /** `quota_exceeded`: the room left. */
  available?: number;
  /** Seconds, as the `Retry-After` header. */
  retryAfter?: number;
  /** `origin_not_allowed`: the Origin refused. */
  origin?: string | null;
  /** `size_mismatch`: the signed length of the part. */
  expected?: number;
  missingParts?: number[];
  mismatchedParts?: number[];
  conflictingParts?: number[];
  /** `infected`: the name of what the malware scanner found. */
  signature?: string;
}

/** A file event's data: the file record (`file.deleted`: with its `reason`; `file.infected`: with the `signature` found; `file.import_failed`: with its `reason`, the `importError` code). */
export type EventData = FileRecord | DeletedFileRecord | InfectedFileRecord | ImportFailedRecord;

export interface EventListResponse {
  events: EventRecord[];
  nextCursor: string | null;
}

export interface EventRecord {
  id: string;
  type: EventType;
  timestamp: string;
  data: EventData;
  deliveries: DeliveryRecord[];
}

export type EventType = 'file.ready' | 'file.deleted' | 'upload.expired' | 'file.infected' | 'file.import_failed';

export interface FileListResponse {
  files: FileRecord[];
  /** Opaque; `null` exactly when no more files remain. */
  nextCursor: string | null;
}

/** A file as `GET /v1/files`, `GET /v1/files/{id}`, `complete` and webhook events carry it. */
export interface FileRecord {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  /** Display name: NFC, control, bidi and zero-width characters and `/` `\` removed, trimmed, at most 255 UTF-8 bytes; empty or only dots becomes `upload`. */
  name: string;
  /** The stored content type (recognised from the bytes when possible). */
  mime: string;
  /** Bytes. An import not yet ready: the size its server declared (`Content-Length`), else the bytes received so far (0 at first). */
  size: number;
  /** When the row was created: the sign call for multi-step uploads. */
  createdAt: number;
  /** `pending` until ready; `failed` only for an import from a URL that failed (`importError` says why), which `GET /v1/files/{id}` shows for 24 hours after and never lists. */
  status: FileStatus | 'failed';
  visibility: Visibility;
  /** `{cdnUrl}/<id>/<encodeURIComponent(name)>`; answers 404 until the file is ready. `null` for a private file: its backend asks for a signed link. */
  url: string | null;
  metadata: Metadata;
  /** Milliseconds since the Unix epoch when the file deletes itself (an upload token's `deleteAfter`, or `deleteAfter` at sign with the secret key); `null`: kept until deleted. Within a minute past it the file is gone from the API and the CDN, with `file.deleted` (`"reason": "expired"`). */
  deleteAt: number | null;
  /** When the malware scanner (ClamAV, `FILEHOST_CLAMD`) found the file clean, before it became ready; `null` when no scanner is configured, or the file is not ready yet. */
  scannedAt: number | null;
  /** A ready image's [ThumbHash](https://evanw.github.io/thumbhash/) (standard base64, about 25 bytes): its aspect ratio and colours, computed as it became ready from the image decoded at most 100 px with its EXIF orientation applied, for a page to draw before any image request (`thumbHashToDataURL` of the `thumbhash` package). `null` for a file that is not an image, one that does not decode, one not ready yet, and an image made ready before placeholders until `admin placeholders fill` computes it. */
  placeholder: string | null;
  importProgress?: ImportProgress;
  importError?: ImportError;
}

export type FileStatus = 'pending' | 'ready';

/** Image parameters of a CDN URL, signed into a link (an image file only). */
export interface ImageTransform {
  w?: number;
  h?: number;
  /** Default: `inside`. */
  fit?: 'cover' | 'contain' | 'inside' | 'fill';
  format?: 'auto' | 'webp' | 'avif' | 'jpeg' | 'png';
  /** Default: `75`. */
  q?: number;
}

/** Why an import failed. */
export interface ImportError {
  code: ImportErrorCode;
  message: string;
  /** `import_http_error`: the status the remote server answered. */
  status?: number;
  /** `too_large`: the most bytes the file could have had (the plan's, the upload token's, or the room left), for a page to name in its own language. */
  limit?: number;
}

/** Why an import failed: `import_refused_target` (the URL, or a redirect, leads to a loopback, private, link-local or metadata address, or to no address, all with one message; private ones are allowed only with `FILEHOST_IMPORT_ALLOW_PRIVATE`, link-local and metadata ones never; or a redirect to a URL that is not http(s)); `import_http_error` (the server answered a status other than 2xx; `status` says which); `too_large` (more bytes than the plan, the upload token or the quota leaves room for, counted as they arrive); `unsupported_type` (the type recognised from the bytes is not one the project or the token accepts); `import_timeout` (fewer than 16 KiB in any 30 s: no answer, or a body that stalls or drips; or still fetching after `FILEHOST_IMPORT_MAX_SECONDS`, 600 s); `import_failed` (more than 5 redirects, a connection cut before the whole body, the service stopped or failed to store it); `metadata_unreadable` (a photo whose location could not be removed: metadata the service cannot rewrite; nothing was kept); `infected` (the malware scanner found malware; `file.infected` is sent, its `signature` naming it); `unscannable` (the malware scanner could not finish within its limits). */
export type ImportErrorCode = 'import_refused_target' | 'import_http_error' | 'too_large' | 'unsupported_type' | 'import_timeout' | 'import_failed' | 'metadata_unreadable' | 'infected' | 'unscannable';

/** The data of a `file.import_failed` event: the failed import's record (`status: "failed"`, `importError`) and `reason`, the `importError` code. */
export interface ImportFailedRecord {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  /** Display name: NFC, control, bidi and zero-width characters and `/` `\` removed, trimmed, at most 255 UTF-8 bytes; empty or only dots becomes `upload`. */
  name: string;
  /** The stored content type (recognised from the bytes when possible). */
  mime: string;
  /** Bytes. An import not yet ready: the size its server declared (`Content-Length`), else the bytes received so far (0 at first). */
  size: number;
  /** When the row was created: the sign call for multi-step uploads. */
  createdAt: number;
  /** `pending` until ready; `failed` only for an import from a URL that failed (`importError` says why), which `GET /v1/files/{id}` shows for 24 hours after and never lists. */
  status: FileStatus | 'failed';
  visibility: Visibility;
  /** `{cdnUrl}/<id>/<encodeURIComponent(name)>`; answers 404 until the file is ready. `null` for a private file: its backend asks for a signed link. */
  url: string | null;
  metadata: Metadata;
  /** Milliseconds since the Unix epoch when the file deletes itself (an upload token's `deleteAfter`, or `deleteAfter` at sign with the secret key); `null`: kept until deleted. Within a minute past it the file is gone from the API and the CDN, with `file.deleted` (`"reason": "expired"`). */
  deleteAt: number | null;
  /** When the malware scanner (ClamAV, `FILEHOST_CLAMD`) found the file clean, before it became ready; `null` when no scanner is configured, or the file is not ready yet. */
  scannedAt: number | null;
  /** A ready image's [ThumbHash](https://evanw.github.io/thumbhash/) (standard base64, about 25 bytes): its aspect ratio and colours, computed as it became ready from the image decoded at most 100 px with its EXIF orientation applied, for a page to draw before any image request (`thumbHashToDataURL` of the `thumbhash` package). `null` for a file that is not an image, one that does not decode, one not ready yet, and an image made ready before placeholders until `admin placeholders fill` computes it. */
  placeholder: string | null;
  importProgress?: ImportProgress;
  importError: ImportError;
  reason: ImportErrorCode;
}

/** An import under way (`status: "pending"`), updated about once a second. */
export interface ImportProgress {
  /** Bytes fetched and stored so far. */
  receivedBytes: number;
  /** The size the remote server declared (`Content-Length`, not trusted: the body is counted), or null. */
  totalBytes: number | null;
}

/** What to import. */
export interface ImportRequest {
  /** `http` or `https`, without credentials. Anything else: `400 invalid_request`. Loopback, private, link-local and metadata targets (checked on the resolved address at connect time, and again at each of at most 5 redirects) fail the import with `import_refused_target`; the service may allow private ones (`FILEHOST_IMPORT_ALLOW_PRIVATE`), never link-local or metadata ones. */
  url: string;
  /** The file's name (sanitised). Default: the remote `Content-Disposition` file name, else the last segment of the URL the body came from. */
  name?: string;
  metadata?: Metadata;
  visibility?: Visibility;
}

export interface ImportResponse {
  file: FileRecord;
  /** The import's own credential (at least 128 random bits), as a sign answer's, shown only here: `GET /v1/uploads/{id}` with it in `X-Upload-Token` follows the import with a publishable key or an upload token (which `GET /v1/files/{id}` answers `403 token_scope`). */
  uploadToken: string;
}

/** `GET /v1/uploads/{id}` of an import: its record as `GET /v1/files/{id}` shows it (`pending` with `importProgress`, `ready`, or `failed` with `importError` for 24 hours after it failed). */
export interface ImportState {
  file: FileRecord;
}

/** The `data` of a `file.infected` event: the file record as it was refused (never ready, nothing kept; an import's: `status: "failed"` with `importError` `infected`), and the signature the scanner found. */
export interface InfectedFileRecord {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  /** Display name: NFC, control, bidi and zero-width characters and `/` `\` removed, trimmed, at most 255 UTF-8 bytes; empty or only dots becomes `upload`. */
  name: string;
  /** The stored content type (recognised from the bytes when possible). */
  mime: string;
  size: number;
  /** When the row was created: the sign call for multi-step uploads. */
  createdAt: number;
  /** `pending` until ready; `failed` only for an import from a URL that failed (`importError` says why), which `GET /v1/files/{id}` shows for 24 hours after and never lists. */
  status: FileStatus | 'failed';
  visibility: Visibility;
  /** `{cdnUrl}/<id>/<encodeURIComponent(name)>`; answers 404 until the file is ready. `null` for a private file: its backend asks for a signed link. */
  url: string | null;
  metadata: Metadata;
  /** Milliseconds since the Unix epoch when the file deletes itself (an upload token's `deleteAfter`, or `deleteAfter` at sign with the secret key); `null`: kept until deleted. Within a minute past it the file is gone from the API and the CDN, with `file.deleted` (`"reason": "expired"`). */
  deleteAt: number | null;
  /** When the malware scanner (ClamAV, `FILEHOST_CLAMD`) found the file clean, before it became ready; `null` when no scanner is configured, or the file is not ready yet. */
  scannedAt: number | null;
  /** A ready image's [ThumbHash](https://evanw.github.io/thumbhash/) (standard base64, about 25 bytes): its aspect ratio and colours, computed as it became ready from the image decoded at most 100 px with its EXIF orientation applied, for a page to draw before any image request (`thumbHashToDataURL` of the `thumbhash` package). `null` for a file that is not an image, one that does not decode, one not ready yet, and an image made ready before placeholders until `admin placeholders fill` computes it. */
  placeholder: string | null;
  importProgress?: ImportProgress;
  importError?: ImportError;
  /** The name of what the scanner found, as ClamAV gives it (`Eicar-Test-Signature`). */
  signature: string;
}

/** `GET /healthz`: the process runs. */
export interface Liveness {
  status: 'ok';
}

/** String values; at most 50 keys, keys at most 40 characters, values at most 500 characters. */
export type Metadata = Record<string, string>;

export interface MultipartUpload {
  /** The file; its part headers give its name and content type. */
  file: string;
  /** Metadata as JSON (see `Metadata`). */
  metadata?: string;
  /** `private` stores the file private; wins over `X-Visibility`. */
  visibility?: 'public' | 'private';
}

/** `sha256`: parts carry `Content-Digest: sha-256=:<base64>:`; `md5`: `Content-MD5: <base64>`; `null`: no digest. */
export type PartChecksum = 'sha256' | 'md5' | null;

export interface PartUploadResponse {
  partNumber: number;
  size: number;
  etag: string;
}

/** `GET /readyz`. */
export interface Readiness {
  /** `draining`: the instance is stopping (SIGTERM): it still serves what it is sent for `FILEHOST_DRAIN_SECONDS`, while a load balancer stops sending. */
  status: 'ready' | 'unready' | 'draining';
  /** The stores that did not answer their probe within 1 s (the database must take a write); empty when ready or draining. */
  failing: ('database' | 'storage')[];
}

export interface SignBatchRequest {
  files: SignRequest[];
}

export interface SignBatchResponse {
  uploads: SignResponse[];
}

export interface SignRequest {
  /** Cleaned as `FileName`; absent: `upload`. */
  name?: string;
  /** Bytes; at most 100,000,000 on the free plan and 5 GiB on paid (`413 too_large` over it); `0` is `400 empty_body`. */
  size: number;
  /** Default: `application/octet-stream`. */
  type?: string;
  metadata?: Metadata;
  /** `true`: every part PUT must carry a digest of its bytes (see `SignResponse.checksum`). Default: `false`. */
  checksum?: boolean;
  /** Kept from sign to complete. Default: `public`. */
  visibility?: Visibility;
  /** Secret key only (else `403 secret_key_required`): seconds after the sign at which the file deletes itself (the record's `deleteAt`). With an upload token, its own `deleteAfter` rules. */
  deleteAfter?: number;
}

export interface SignResponse {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  /** The upload's own credential (at least 128 random bits), shown only here; with a publishable key, `GET /v1/uploads/{id}` and `complete` need it. */
  uploadToken: string;
  /** 24 hours after the sign or the last part, whichever is later, never more than 7 days after the sign. */
  expiresAt: number;
  partSize: number;
  checksum: PartChecksum;
  parts: SignedPart[];
}

export interface SignedPart {
  partNumber: number;
  size: number;
  method: 'PUT';
  /** The credential (with `headers`): sent with no `Authorization`. Clients assume no shape. */
  url: string;
  /** Headers the PUT must carry exactly; they are part of the signature. */
  headers: Record<string, string>;
}

export interface SignedUrlRequest {
  /** Seconds the link works: 1 s to 7 days. Default: `3600`. */
  expiresIn?: number;
  /** `true`: served as an attachment (`download=1` in the link). Default: `false`. */
  download?: boolean;
  transform?: ImageTransform;
}

export interface SignedUrlResponse {
  /** `{cdnUrl}/<id>/<name>?<parameters>&exp=<Unix s>&sig=<base64url HMAC-SHA256>`, signed over the id, every parameter and `exp`. */
  url: string;
  /** When the link stops working: its `exp` times 1000. */
  expiresAt: number;
}

/** One file of a batch upload: a `SignRequest` (`checksum` is ignored), refused as a sign would refuse it, with its `index`. */
export type UploadBatchEntry = SignRequest & {
  /** The base64 SHA-256 of the file's bytes, checked as they arrive (`checksum_mismatch` for that file, not stored). */
  sha256?: string;
};

export interface UploadBatchRequest {
  /** JSON array of 1 to 100 entries, sent before any `file` part. */
  files: string;
  /** One part per entry of `files`, in its order, each exactly the entry's `size` bytes; its part headers are not read (the entry names and types the file). */
  file: string[];
}

export interface UploadBatchResponse {
  results: CompleteBatchResult[];
}

export interface UploadPartState {
  partNumber: number;
  size: number;
  /** Null until the part arrived whole; a ready upload lists the ETags it was completed with. */
  etag: string | null;
  method?: 'PUT';
  /** Freshly signed, for a pending upload. */
  url?: string;
  headers?: Record<string, string>;
}

/** The `201` answer of `POST /v1/upload` (note `type` here, `mime` in the file record). */
export interface UploadResponse {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  /** `null` for a private file, as in the file record. */
  url: string | null;
  visibility: Visibility;
  /** Display name: NFC, control, bidi and zero-width characters and `/` `\` removed, trimmed, at most 255 UTF-8 bytes; empty or only dots becomes `upload`. */
  name: string;
  size: number;
  type: string;
  /** As in the file record. */
  deleteAt: number | null;
}

export interface UploadState {
  /** URL-safe; an id of any other shape is simply unknown (`404 not_found`). */
  id: string;
  status: FileStatus;
  /** Milliseconds since the Unix epoch. */
  expiresAt: number;
  partSize: number;
  checksum: PartChecksum;
  parts: UploadPartState[];
}

/** What an upload token lets its holder upload; every field optional, an absent limit is the project's own. A field not listed here is `400 invalid_request`. */
export interface UploadTokenRequest {
  /** Files that may be signed with it (pending and ready together; an aborted, refused or expired upload gives its room back). */
  maxFiles?: number;
  /** Bytes of one file; at most the plan's largest file. */
  maxFileSize?: number;
  /** Bytes of all its files together; at most the project's storage quota. */
  maxBytes?: number;
  /** Accepted types in the allowed-types syntax (`image/*`, `application/pdf`), each one the project accepts; declared at sign and recognised at complete. */
  types?: string[];
  /** Merged into each file's metadata; its keys win over the uploader's. */
  metadata?: Metadata;
  /** Forced on each file. */
  visibility?: Visibility;
  /** Seconds after each file's sign at which it deletes itself (`deleteAt`). */
  deleteAfter?: number;
  /** Seconds the token may start uploads. Default: `3600`. */
  expiresIn?: number;
}

/** The `201` answer of `POST /v1/upload-tokens`: the token (shown only here) and its policy as stored, `null` where nothing was asked. */
export interface UploadTokenResponse {
  /** Sent as `Authorization: Bearer upt_…` on upload calls. */
  token: string;
  /** Past it, starting an upload is `401 token_expired`. */
  expiresAt: number;
  maxFiles: number | null;
  maxFileSize: number | null;
  maxBytes: number | null;
  types: string[] | null;
  metadata: Metadata;
  /** Forced on each file, or `null`. */
  visibility: Visibility | null;
  deleteAfter: number | null;
}

export interface Usage {
  /** Bytes of ready files. */
  storedBytes: number;
  /** Ready files. */
  files: number;
  /** Signed sizes of pending uploads (and room reserved by one-request uploads under way). */
  pendingBytes: number;
  pendingUploads: number;
  /** Of `storedBytes` and `pendingBytes`, what files uploaded with the publishable key and no upload token hold, ready or pending: at most the project's anonymous share of its quota (`FILEHOST_ANONYMOUS_SHARE`, default half). */
  anonymousBytes: number;
  /** Bytes of the image variants the CDN keeps for ready files (at most 64 a file, the least recently served removed first). Not counted against the quota. */
  variantBytes: number;
  quota: {
    /** Null: none. */
    storageBytes: number | null;
    /** Null: none. */
    pendingUploads: number | null;
  };
}

/** `private`: the CDN serves the file only through a signed link (`POST /v1/files/{id}/signed-url`); `public` (the default) to anyone. */
export type Visibility = 'public' | 'private';

export interface WebhookListResponse {
  webhooks: WebhookRecord[];
}

/** The body of every webhook POST. */
export interface WebhookPayload {
  type: EventType;
  /** When the change happened (the same on every retry). */
  timestamp: string;
  data: EventData;
}

export interface WebhookRecord {
  id: string;
  url: string;
  events: EventType[];
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
}

export interface WebhookRequest {
  /** Where events are POSTed. Loopback, private and unique-local targets are refused unless the operator allows them (`FILEHOST_WEBHOOK_ALLOW_PRIVATE`); link-local and metadata targets always. */
  url: string;
  /** Absent: every event. */
  events?: EventType[];
}
