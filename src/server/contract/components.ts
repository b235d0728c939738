import { type Static, Type } from '@sinclair/typebox';
import { PART_CHECKSUMS, type PartChecksum as PartChecksumName } from '../../api/checksum.js';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../api/errors.js';
import { EVENT_TYPES } from '../../api/events.js';
import {
  LIST_MAX_LIMIT,
  MAX_BATCH,
  MAX_PARTS,
  METADATA_MAX_KEY_LENGTH,
  METADATA_MAX_KEYS,
  METADATA_MAX_VALUE_LENGTH,
  PLAN_SIGN_CAP,
} from '../../api/limits.js';
import { ID_PATTERN } from '../../api/routes.js';
import { Dict, Nullable, named, OneOf, Raw, StringEnum } from './kit.js';

export const Id = named(
  'Id',
  Type.String({
    pattern: ID_PATTERN.source,
    description: 'URL-safe; an id of any other shape is simply unknown (`404 not_found`).',
  }),
);

export const Timestamp = named(
  'Timestamp',
  Type.Integer({ minimum: 0, description: 'Milliseconds since the Unix epoch.' }),
);

export const Metadata = named(
  'Metadata',
  Dict(Type.String({ maxLength: METADATA_MAX_VALUE_LENGTH }), {
    description:
      'String values; at most 50 keys, keys at most 40 characters, values at most 500 characters.',
    maxProperties: METADATA_MAX_KEYS,
    propertyNames: Raw({
      minLength: 1,
      maxLength: METADATA_MAX_KEY_LENGTH,
      not: Raw({ const: '__proto__' }),
    }),
  }),
);

export const FileStatus = named('FileStatus', StringEnum(['pending', 'ready']));

export const FileName = named(
  'FileName',
  Type.String({
    minLength: 1,
    maxLength: 255,
    description:
      'Display name: NFC, control, bidi and zero-width characters and `/` `\\` removed, trimmed, at most 255 UTF-8 bytes; empty or only dots becomes `upload`.',
  }),
);

export const ImportErrorCode = named(
  'ImportErrorCode',
  StringEnum(
    [
      'import_refused_target',
      'import_http_error',
      'too_large',
      'unsupported_type',
      'import_timeout',
      'import_failed',
      'metadata_unreadable',
      'infected',
      'unscannable',
    ],
    {
      description:
        'Why an import failed: `import_refused_target` (the URL, or a redirect, leads to a loopback, private, link-local or metadata address, or to no address, all with one message; private ones are allowed only with `FILEHOST_IMPORT_ALLOW_PRIVATE`, link-local and metadata ones never; or a redirect to a URL that is not http(s)); `import_http_error` (the server answered a status other than 2xx; `status` says which); `too_large` (more bytes than the plan, the upload token or the quota leaves room for, counted as they arrive); `unsupported_type` (the type recognised from the bytes is not one the project or the token accepts); `import_timeout` (fewer than 16 KiB in any 30 s: no answer, or a body that stalls or drips; or still fetching after `FILEHOST_IMPORT_MAX_SECONDS`, 600 s); `import_failed` (more than 5 redirects, a connection cut before the whole body, the service stopped or failed to store it); `metadata_unreadable` (a photo whose location could not be removed: metadata the service cannot rewrite; nothing was kept); `infected` (the malware scanner found malware; `file.infected` is sent, its `signature` naming it); `unscannable` (the malware scanner could not finish within its limits).',
    },
  ),
);

export const ImportError = named(
  'ImportError',
  Type.Object(
    {
      code: ImportErrorCode,
      message: Type.String({ minLength: 1 }),
      status: Type.Optional(
        Type.Integer({
          minimum: 100,
          maximum: 599,
          description: '`import_http_error`: the status the remote server answered.',
        }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 0,
          description:
            "`too_large`: the most bytes the file could have had (the plan's, the upload token's, or the room left), for a page to name in its own language.",
        }),
      ),
    },
    { additionalProperties: false, description: 'Why an import failed.' },
  ),
);

export const ImportProgress = named(
  'ImportProgress',
  Type.Object(
    {
      receivedBytes: Type.Integer({ minimum: 0, description: 'Bytes fetched and stored so far.' }),
      totalBytes: Nullable(
        Type.Integer({
          minimum: 0,
          description:
            'The size the remote server declared (`Content-Length`, not trusted: the body is counted), or null.',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'An import under way (`status: "pending"`), updated about once a second.',
    },
  ),
);

export const Visibility = named(
  'Visibility',
  StringEnum(['public', 'private'], {
    description:
      '`private`: the CDN serves the file only through a signed link (`POST /v1/files/{id}/signed-url`); `public` (the default) to anyone.',
  }),
);

/**
 * The fields every file record has, in the order the document lists them: `FileRecord`, and
 * the event data that carry a record with more beside it (`DeletedFileRecord`,
 * `ImportFailedRecord`, `InfectedFileRecord`).
 */
const fileFields = {
  id: Id,
  name: FileName,
  mime: Type.String({
    minLength: 1,
    description: 'The stored content type (recognised from the bytes when possible).',
  }),
  size: Type.Integer({
    minimum: 0,
    maximum: PLAN_SIGN_CAP.paid,
    description:
      'Bytes. An import not yet ready: the size its server declared (`Content-Length`), else the bytes received so far (0 at first).',
  }),
  createdAt: Raw<number>({
    allOf: [Timestamp],
    description: 'When the row was created: the sign call for multi-step uploads.',
  }),
  status: Type.Union([FileStatus, Raw<'failed'>({ const: 'failed' })], {
    description:
      '`pending` until ready; `failed` only for an import from a URL that failed (`importError` says why), which `GET /v1/files/{id}` shows for 24 hours after and never lists.',
  }),
  visibility: Visibility,
  url: Nullable(
    Type.String({
      format: 'uri',
      description:
        '`{cdnUrl}/<id>/<encodeURIComponent(name)>`; answers 404 until the file is ready. `null` for a private file: its backend asks for a signed link.',
    }),
  ),
  metadata: Metadata,
  deleteAt: Nullable(
    Type.Integer({
      minimum: 0,
      description:
        'Milliseconds since the Unix epoch when the file deletes itself (an upload token\'s `deleteAfter`, or `deleteAfter` at sign with the secret key); `null`: kept until deleted. Within a minute past it the file is gone from the API and the CDN, with `file.deleted` (`"reason": "expired"`).',
    }),
  ),
  scannedAt: Type.Union([Timestamp, Type.Null()], {
    description:
      'When the malware scanner (ClamAV, `FILEHOST_CLAMD`) found the file clean, before it became ready; `null` when no scanner is configured, or the file is not ready yet.',
  }),
  placeholder: Nullable(
    Type.String({
      minLength: 4,
      maxLength: 64,
      pattern: '^[A-Za-z0-9+/]+={0,2}$',
      description:
        "A ready image's [ThumbHash](https://evanw.github.io/thumbhash/) (standard base64, about 25 bytes): its aspect ratio and colours, computed as it became ready from the image decoded at most 100 px with its EXIF orientation applied, for a page to draw before any image request (`thumbHashToDataURL` of the `thumbhash` package). `null` for a file that is not an image, one that does not decode, one not ready yet, and an image made ready before placeholders until `admin placeholders fill` computes it.",
    }),
  ),
};

/** An import's progress and failure, on every file record (only imports have them). */
const importFields = {
  importProgress: Type.Optional(ImportProgress),
  importError: Type.Optional(ImportError),
};

export const FileRecord = named(
  'FileRecord',
  Type.Object(
    {
      ...fileFields,
      ...importFields,
    },
    {
      description:
        'A file as `GET /v1/files`, `GET /v1/files/{id}`, `complete` and webhook events carry it.',
      additionalProperties: false,
    },
  ),
);

export const FileListResponse = named(
  'FileListResponse',
  Type.Object(
    {
      files: Type.Array(FileRecord, { maxItems: LIST_MAX_LIMIT }),
      nextCursor: Nullable(
        Type.String({
          pattern: '^\\d{1,16}_[A-Za-z0-9_-]{1,128}$',
          description: 'Opaque; `null` exactly when no more files remain.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const UploadResponse = named(
  'UploadResponse',
  Type.Object(
    {
      id: Id,
      url: Nullable(
        Type.String({
          format: 'uri',
          description: '`null` for a private file, as in the file record.',
        }),
      ),
      visibility: Visibility,
      name: FileName,
      size: Type.Integer({ minimum: 1, maximum: 104857600 }),
      type: Type.String({ minLength: 1 }),
      deleteAt: Nullable(Type.Integer({ minimum: 0, description: 'As in the file record.' })),
    },
    {
      description:
        'The `201` answer of `POST /v1/upload` (note `type` here, `mime` in the file record).',
      additionalProperties: false,
    },
  ),
);

export const MultipartUpload = named(
  'MultipartUpload',
  Type.Object({
    file: Type.String({
      contentMediaType: 'application/octet-stream',
      description: 'The file; its part headers give its name and content type.',
    }),
    metadata: Type.Optional(
      Type.String({
        contentMediaType: 'application/json',
        description: 'Metadata as JSON (see `Metadata`).',
      }),
    ),
    visibility: Type.Optional(
      StringEnum(['public', 'private'], {
        description: '`private` stores the file private; wins over `X-Visibility`.',
      }),
    ),
  }),
);

export const SignRequest = named(
  'SignRequest',
  Type.Object({
    name: Type.Optional(Type.String({ description: 'Cleaned as `FileName`; absent: `upload`.' })),
    size: Type.Integer({
      minimum: 1,
      maximum: PLAN_SIGN_CAP.paid,
      description:
        'Bytes; at most 100,000,000 on the free plan and 5 GiB on paid (`413 too_large` over it); `0` is `400 empty_body`.',
    }),
    type: Type.Optional(Type.String({ description: 'Default: `application/octet-stream`.' })),
    metadata: Type.Optional(Metadata),
    checksum: Type.Optional(
      Type.Boolean({
        description:
          '`true`: every part PUT must carry a digest of its bytes (see `SignResponse.checksum`). Default: `false`.',
      }),
    ),
    visibility: Type.Optional(
      Raw<Static<typeof Visibility>>({
        allOf: [Visibility],
        description: 'Kept from sign to complete. Default: `public`.',
      }),
    ),
    deleteAfter: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 31536000,
        description:
          "Secret key only (else `403 secret_key_required`): seconds after the sign at which the file deletes itself (the record's `deleteAt`). With an upload token, its own `deleteAfter` rules.",
      }),
    ),
  }),
);

export const SignBatchRequest = named(
  'SignBatchRequest',
  Type.Object({ files: Type.Array(SignRequest, { minItems: 1, maxItems: MAX_BATCH }) }),
);

export const PartNumber = named('PartNumber', Type.Integer({ minimum: 1, maximum: MAX_PARTS }));

export const SignedPart = named(
  'SignedPart',
  Type.Object(
    {
      partNumber: PartNumber,
      size: Type.Integer({ minimum: 1 }),
      method: StringEnum(['PUT']),
      url: Type.String({
        format: 'uri',
        description:
          'The credential (with `headers`): sent with no `Authorization`. Clients assume no shape.',
      }),
      headers: Dict(Type.String(), {
        description: 'Headers the PUT must carry exactly; they are part of the signature.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const PartChecksum = named(
  'PartChecksum',
  Raw<PartChecksumName | null>({
    type: ['string', 'null'],
    enum: [...PART_CHECKSUMS, null],
    description:
      '`sha256`: parts carry `Content-Digest: sha-256=:<base64>:`; `md5`: `Content-MD5: <base64>`; `null`: no digest.',
  }),
);

export const SignResponse = named(
  'SignResponse',
  Type.Object(
    {
      id: Id,
      uploadToken: Type.String({
        pattern: '^[A-Za-z0-9_-]{22,}$',
        description:
          "The upload's own credential (at least 128 random bits), shown only here; with a publishable key, `GET /v1/uploads/{id}` and `complete` need it.",
      }),
      expiresAt: Raw<number>({
        allOf: [Timestamp],
        description:
          '24 hours after the sign or the last part, whichever is later, never more than 7 days after the sign.',
      }),
      partSize: Type.Integer({ minimum: 5242880 }),
      checksum: PartChecksum,
      parts: Type.Array(SignedPart, { minItems: 1, maxItems: MAX_PARTS }),
    },
    { additionalProperties: false },
  ),
);

export const SignBatchResponse = named(
  'SignBatchResponse',
  Type.Object(
    { uploads: Type.Array(SignResponse, { minItems: 1, maxItems: MAX_BATCH }) },
    { additionalProperties: false },
  ),
);

export const PartUploadResponse = named(
  'PartUploadResponse',
  Type.Object(
    {
      partNumber: PartNumber,
      size: Type.Integer({ minimum: 1 }),
      etag: Type.String({ minLength: 1 }),
    },
    { additionalProperties: false },
  ),
);

export const ClaimedPart = named(
  'ClaimedPart',
  Type.Object({ partNumber: Type.Integer(), etag: Type.String() }),
);

export const CompleteRequest = named(
  'CompleteRequest',
  Type.Object({
    parts: Type.Optional(
      Type.Array(ClaimedPart, {
        description: 'Optional: the parts sent, with the ETags their PUTs answered.',
      }),
    ),
  }),
);

export const CompleteBatchRequest = named(
  'CompleteBatchRequest',
  Type.Object({
    uploads: Type.Array(
      Type.Object({
        id: Type.String(),
        uploadToken: Type.Optional(
          Type.String({
            description: "The sign answer's `uploadToken` (needed with a publishable key).",
          }),
        ),
        parts: Type.Optional(Type.Array(ClaimedPart)),
      }),
      { minItems: 1, maxItems: MAX_BATCH },
    ),
  }),
);

/**
 * Every code, from the one table of codes and statuses (`API_ERROR_STATUS`), listed by
 * status (a stable sort: the table's order within one status), grouped as the responses are.
 */
const ERROR_CODES = (Object.keys(API_ERROR_STATUS) as ApiErrorCode[]).sort(
  (a, b) => API_ERROR_STATUS[a] - API_ERROR_STATUS[b],
);

export const ErrorCode = named(
  'ErrorCode',
  StringEnum(ERROR_CODES, {
    description:
      'Stable and machine-readable; each belongs to one HTTP status (see the responses of `components`).',
  }),
);

export const ErrorDetail = named(
  'ErrorDetail',
  Type.Object({
    code: ErrorCode,
    message: Type.String({ minLength: 1, description: 'A human sentence; may change.' }),
    requestId: Type.Optional(
      Type.String({
        description:
          "The answer's `X-Request-Id`: quoted in a report, it finds the request's log lines. Absent only inside a batch's per-entry results.",
      }),
    ),
    index: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Batch calls: the position of the first bad entry.',
      }),
    ),
    limit: Type.Optional(
      Raw<number | string>({
        description:
          '`too_large`: the cap in bytes; `quota_exceeded`: `storage`, `pending_uploads`, `anonymous_share` (files uploaded without an upload token, together), `address_bytes` (one address, in any 24 hours) or `address_uploads` (one address, pending at once).',
        type: ['integer', 'string'],
      }),
    ),
    quota: Type.Optional(
      Nullable(Type.Integer({ description: '`quota_exceeded`: the limit passed.' })),
    ),
    available: Type.Optional(
      Type.Integer({ minimum: 0, description: '`quota_exceeded`: the room left.' }),
    ),
    retryAfter: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Seconds, as the `Retry-After` header.' }),
    ),
    origin: Type.Optional(
      Nullable(Type.String({ description: '`origin_not_allowed`: the Origin refused.' })),
    ),
    expected: Type.Optional(
      Type.Integer({ description: '`size_mismatch`: the signed length of the part.' }),
    ),
    missingParts: Type.Optional(Type.Array(Type.Integer())),
    mismatchedParts: Type.Optional(Type.Array(Type.Integer())),
    conflictingParts: Type.Optional(Type.Array(Type.Integer())),
    signature: Type.Optional(
      Type.String({ description: '`infected`: the name of what the malware scanner found.' }),
    ),
  }),
);

export const CompleteBatchResult = named(
  'CompleteBatchResult',
  OneOf([
    Type.Object({ file: FileRecord }, { additionalProperties: false }),
    Type.Object(
      {
        error: Raw<Static<typeof ErrorDetail> & { status: number }>({
          allOf: [ErrorDetail],
          required: ['status'],
          properties: {
            status: Type.Integer({
              minimum: 400,
              maximum: 599,
              description: 'What a single complete would have answered.',
            }),
          },
        }),
      },
      { additionalProperties: false },
    ),
  ]),
);

export const CompleteBatchResponse = named(
  'CompleteBatchResponse',
  Type.Object(
    { results: Type.Array(CompleteBatchResult, { minItems: 1, maxItems: MAX_BATCH }) },
    { additionalProperties: false },
  ),
);

export const UploadBatchEntry = named(
  'UploadBatchEntry',
  Raw<Static<typeof SignRequest> & { sha256?: string }>({
    allOf: [
      SignRequest,
      Type.Object({
        sha256: Type.Optional(
          Type.String({
            // 32 bytes in padded base64: 43 characters, the last with its two low bits clear.
            pattern: '^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$',
            description:
              "The base64 SHA-256 of the file's bytes, checked as they arrive (`checksum_mismatch` for that file, not stored).",
          }),
        ),
      }),
    ],
    description:
      'One file of a batch upload: a `SignRequest` (`checksum` is ignored), refused as a sign would refuse it, with its `index`.',
  }),
);

export const UploadBatchRequest = named(
  'UploadBatchRequest',
  Type.Object({
    files: Type.String({
      contentMediaType: 'application/json',
      contentSchema: Type.Array(UploadBatchEntry, { minItems: 1, maxItems: MAX_BATCH }),
      description: 'JSON array of 1 to 100 entries, sent before any `file` part.',
    }),
    file: Type.Array(Type.String({ contentMediaType: 'application/octet-stream' }), {
      minItems: 1,
      maxItems: MAX_BATCH,
      description:
        "One part per entry of `files`, in its order, each exactly the entry's `size` bytes; its part headers are not read (the entry names and types the file).",
    }),
  }),
);

export const UploadBatchResponse = named(
  'UploadBatchResponse',
  Type.Object({
    results: Type.Array(CompleteBatchResult, { minItems: 1, maxItems: MAX_BATCH }),
  }),
);

export const UploadPartState = named(
  'UploadPartState',
  Type.Object(
    {
      partNumber: PartNumber,
      size: Type.Integer({ minimum: 1 }),
      etag: Nullable(
        Type.String({
          description:
            'Null until the part arrived whole; a ready upload lists the ETags it was completed with.',
        }),
      ),
      method: Type.Optional(StringEnum(['PUT'])),
      url: Type.Optional(
        Type.String({ format: 'uri', description: 'Freshly signed, for a pending upload.' }),
      ),
      headers: Type.Optional(Dict(Type.String())),
    },
    { additionalProperties: false },
  ),
);

export const UploadState = named(
  'UploadState',
  Type.Object(
    {
      id: Id,
      status: FileStatus,
      expiresAt: Timestamp,
      partSize: Type.Integer({ minimum: 5242880 }),
      checksum: PartChecksum,
      parts: Type.Array(UploadPartState, { minItems: 1, maxItems: MAX_PARTS }),
    },
    { additionalProperties: false },
  ),
);

export const Usage = named(
  'Usage',
  Type.Object(
    {
      storedBytes: Type.Integer({ minimum: 0, description: 'Bytes of ready files.' }),
      files: Type.Integer({ minimum: 0, description: 'Ready files.' }),
      pendingBytes: Type.Integer({
        minimum: 0,
        description:
          'Signed sizes of pending uploads (and room reserved by one-request uploads under way).',
      }),
      pendingUploads: Type.Integer({ minimum: 0 }),
      anonymousBytes: Type.Integer({
        minimum: 0,
        description:
          "Of `storedBytes` and `pendingBytes`, what files uploaded with the publishable key and no upload token hold, ready or pending: at most the project's anonymous share of its quota (`FILEHOST_ANONYMOUS_SHARE`, default half).",
      }),
      variantBytes: Type.Integer({
        minimum: 0,
        description:
          'Bytes of the image variants the CDN keeps for ready files (at most 64 a file, the least recently served removed first). Not counted against the quota.',
      }),
      quota: Type.Object(
        {
          storageBytes: Nullable(Type.Integer({ minimum: 1, description: 'Null: none.' })),
          pendingUploads: Nullable(Type.Integer({ minimum: 1, description: 'Null: none.' })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
);

export const EventType = named('EventType', StringEnum(EVENT_TYPES));

export const WebhookRequest = named(
  'WebhookRequest',
  Type.Object({
    url: Type.String({
      format: 'uri',
      description:
        'Where events are POSTed. Loopback, private and unique-local targets are refused unless the operator allows them (`FILEHOST_WEBHOOK_ALLOW_PRIVATE`); link-local and metadata targets always.',
    }),
    events: Type.Optional(
      Type.Array(EventType, { minItems: 1, description: 'Absent: every event.' }),
    ),
  }),
);

export const WebhookRecord = named(
  'WebhookRecord',
  Type.Object(
    {
      id: Type.String({ pattern: '^wh_[A-Za-z0-9_-]+$' }),
      url: Type.String({ format: 'uri' }),
      events: Type.Array(EventType, { minItems: 1, maxItems: 5, uniqueItems: true }),
      createdAt: Timestamp,
    },
    { additionalProperties: false },
  ),
);

export const CreatedWebhook = named(
  'CreatedWebhook',
  Type.Object(
    {
      id: Type.String({ pattern: '^wh_[A-Za-z0-9_-]+$' }),
      url: Type.String({ format: 'uri' }),
      events: Type.Array(EventType, { minItems: 1, maxItems: 5, uniqueItems: true }),
      createdAt: Timestamp,
      secret: Type.String({
        pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
        description:
          '`whsec_` and the base64 of 32 random bytes, as Standard Webhooks libraries take it.',
      }),
    },
    { description: 'The only time the signing secret is shown.', additionalProperties: false },
  ),
);

export const WebhookListResponse = named(
  'WebhookListResponse',
  Type.Object(
    { webhooks: Type.Array(WebhookRecord, { maxItems: 10 }) },
    { additionalProperties: false },
  ),
);

export const DeletedFileRecord = named(
  'DeletedFileRecord',
  Type.Object(
    {
      ...fileFields,
      reason: StringEnum(['deleted', 'expired'], {
        description: '`deleted`: a `DELETE /v1/files/{id}`; `expired`: its `deleteAt` came.',
      }),
      ...importFields,
    },
    {
      description:
        'The data of a `file.deleted` event: the file record as it was, and why it went.',
      additionalProperties: false,
    },
  ),
);

export const ImportFailedRecord = named(
  'ImportFailedRecord',
  Type.Object(
    {
      ...fileFields,
      ...importFields,
      importError: ImportError,
      reason: ImportErrorCode,
    },
    {
      description:
        'The data of a `file.import_failed` event: the failed import\'s record (`status: "failed"`, `importError`) and `reason`, the `importError` code.',
      additionalProperties: false,
    },
  ),
);

export const InfectedFileRecord = named(
  'InfectedFileRecord',
  Type.Object(
    {
      ...fileFields,
      // Never ready, and never empty: what the scanner refused.
      size: Type.Integer({ minimum: 1, maximum: PLAN_SIGN_CAP.paid }),
      // `pending` as it was refused; an import's `failed`, with `importError` `infected`.
      ...importFields,
      signature: Type.String({
        minLength: 1,
        description:
          'The name of what the scanner found, as ClamAV gives it (`Eicar-Test-Signature`).',
      }),
    },
    {
      description:
        'The `data` of a `file.infected` event: the file record as it was refused (never ready, nothing kept; an import\'s: `status: "failed"` with `importError` `infected`), and the signature the scanner found.',
      additionalProperties: false,
    },
  ),
);

export const EventData = named(
  'EventData',
  Type.Union([FileRecord, DeletedFileRecord, InfectedFileRecord, ImportFailedRecord], {
    description:
      "A file event's data: the file record (`file.deleted`: with its `reason`; `file.infected`: with the `signature` found; `file.import_failed`: with its `reason`, the `importError` code).",
  }),
);

export const WebhookPayload = named(
  'WebhookPayload',
  Type.Object(
    {
      type: EventType,
      timestamp: Type.String({
        format: 'date-time',
        description: 'When the change happened (the same on every retry).',
      }),
      data: EventData,
    },
    { description: 'The body of every webhook POST.', additionalProperties: false },
  ),
);

export const DeliveryRecord = named(
  'DeliveryRecord',
  Type.Object(
    {
      webhookId: Type.String({ pattern: '^wh_[A-Za-z0-9_-]+$' }),
      status: StringEnum(['pending', 'delivered', 'failed']),
      attempts: Type.Integer({ minimum: 0 }),
      lastStatus: Nullable(
        Type.Integer({
          description:
            'The HTTP status of the last attempt; null before one, or when no answer came.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const EventRecord = named(
  'EventRecord',
  Type.Object(
    {
      id: Type.String({ pattern: '^evt_[A-Za-z0-9_-]+$' }),
      type: EventType,
      timestamp: Type.String({ format: 'date-time' }),
      data: EventData,
      deliveries: Type.Array(DeliveryRecord),
    },
    { additionalProperties: false },
  ),
);

export const EventListResponse = named(
  'EventListResponse',
  Type.Object(
    {
      events: Type.Array(EventRecord, { maxItems: LIST_MAX_LIMIT }),
      nextCursor: Nullable(Type.String({ pattern: '^\\d{1,16}_[A-Za-z0-9_-]{1,128}$' })),
    },
    { additionalProperties: false },
  ),
);

export const ErrorBody = named(
  'Error',
  Type.Object(
    { error: ErrorDetail },
    {
      description:
        'The body of every error answer, on the API and the CDN. Extra fields inside `error` may appear.',
      additionalProperties: false,
    },
  ),
);

export const Liveness = named(
  'Liveness',
  Type.Object(
    { status: Type.Literal('ok') },
    { description: '`GET /healthz`: the process runs.', additionalProperties: false },
  ),
);

export const Readiness = named(
  'Readiness',
  Type.Object(
    {
      status: StringEnum(['ready', 'unready', 'draining'], {
        description:
          '`draining`: the instance is stopping (SIGTERM): it still serves what it is sent for `FILEHOST_DRAIN_SECONDS`, while a load balancer stops sending.',
      }),
      failing: Type.Array(StringEnum(['database', 'storage']), {
        description:
          'The stores that did not answer their probe within 1 s (the database must take a write); empty when ready or draining.',
      }),
    },
    { description: '`GET /readyz`.', additionalProperties: false },
  ),
);

export const ImageTransform = named(
  'ImageTransform',
  Type.Object(
    {
      w: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
      h: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
      fit: Type.Optional(
        StringEnum(['cover', 'contain', 'inside', 'fill'], { description: 'Default: `inside`.' }),
      ),
      format: Type.Optional(StringEnum(['auto', 'webp', 'avif', 'jpeg', 'png'])),
      q: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default: `75`.' })),
    },
    {
      additionalProperties: false,
      description: 'Image parameters of a CDN URL, signed into a link (an image file only).',
    },
  ),
);

export const SignedUrlRequest = named(
  'SignedUrlRequest',
  Type.Object(
    {
      expiresIn: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 604800,
          description: 'Seconds the link works: 1 s to 7 days. Default: `3600`.',
        }),
      ),
      download: Type.Optional(
        Type.Boolean({
          description:
            '`true`: served as an attachment (`download=1` in the link). Default: `false`.',
        }),
      ),
      transform: Type.Optional(ImageTransform),
    },
    { additionalProperties: false },
  ),
);

export const SignedUrlResponse = named(
  'SignedUrlResponse',
  Type.Object(
    {
      url: Type.String({
        format: 'uri',
        description:
          '`{cdnUrl}/<id>/<name>?<parameters>&exp=<Unix s>&sig=<base64url HMAC-SHA256>`, signed over the id, every parameter and `exp`.',
      }),
      expiresAt: Raw<number>({
        allOf: [Timestamp],
        description: 'When the link stops working: its `exp` times 1000.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const UploadTokenRequest = named(
  'UploadTokenRequest',
  Type.Object(
    {
      maxFiles: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 1000000000,
          description:
            'Files that may be signed with it (pending and ready together; an aborted, refused or expired upload gives its room back).',
        }),
      ),
      maxFileSize: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: PLAN_SIGN_CAP.paid,
          description: "Bytes of one file; at most the plan's largest file.",
        }),
      ),
      maxBytes: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: "Bytes of all its files together; at most the project's storage quota.",
        }),
      ),
      types: Type.Optional(
        Type.Array(Type.String({ maxLength: 255 }), {
          minItems: 1,
          maxItems: 100,
          description:
            'Accepted types in the allowed-types syntax (`image/*`, `application/pdf`), each one the project accepts; declared at sign and recognised at complete.',
        }),
      ),
      metadata: Type.Optional(
        Raw<Static<typeof Metadata>>({
          allOf: [Metadata],
          description: "Merged into each file's metadata; its keys win over the uploader's.",
        }),
      ),
      visibility: Type.Optional(
        Raw<Static<typeof Visibility>>({
          allOf: [Visibility],
          description: 'Forced on each file.',
        }),
      ),
      deleteAfter: Type.Optional(
        Type.Integer({
          minimum: 60,
          maximum: 31536000,
          description: "Seconds after each file's sign at which it deletes itself (`deleteAt`).",
        }),
      ),
      expiresIn: Type.Optional(
        Type.Integer({
          minimum: 60,
          maximum: 86400,
          description: 'Seconds the token may start uploads. Default: `3600`.',
        }),
      ),
    },
    {
      description:
        "What an upload token lets its holder upload; every field optional, an absent limit is the project's own. A field not listed here is `400 invalid_request`.",
      additionalProperties: false,
    },
  ),
);

export const UploadTokenResponse = named(
  'UploadTokenResponse',
  Type.Object(
    {
      token: Type.String({
        pattern: '^upt_[A-Za-z0-9_-]{32,}$',
        description: 'Sent as `Authorization: Bearer upt_…` on upload calls.',
      }),
      expiresAt: Raw<number>({
        allOf: [Timestamp],
        description: 'Past it, starting an upload is `401 token_expired`.',
      }),
      maxFiles: Nullable(Type.Integer({ minimum: 1 })),
      maxFileSize: Nullable(Type.Integer({ minimum: 1 })),
      maxBytes: Nullable(Type.Integer({ minimum: 1 })),
      types: Nullable(Type.Array(Type.String())),
      metadata: Metadata,
      visibility: Type.Union([Visibility, Type.Null()], {
        description: 'Forced on each file, or `null`.',
      }),
      deleteAfter: Nullable(Type.Integer({ minimum: 60, maximum: 31536000 })),
    },
    {
      description:
        'The `201` answer of `POST /v1/upload-tokens`: the token (shown only here) and its policy as stored, `null` where nothing was asked.',
      additionalProperties: false,
    },
  ),
);

export const ImportRequest = named(
  'ImportRequest',
  Type.Object(
    {
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        format: 'uri',
        description:
          '`http` or `https`, without credentials. Anything else: `400 invalid_request`. Loopback, private, link-local and metadata targets (checked on the resolved address at connect time, and again at each of at most 5 redirects) fail the import with `import_refused_target`; the service may allow private ones (`FILEHOST_IMPORT_ALLOW_PRIVATE`), never link-local or metadata ones.',
      }),
      name: Type.Optional(
        Type.String({
          description:
            "The file's name (sanitised). Default: the remote `Content-Disposition` file name, else the last segment of the URL the body came from.",
        }),
      ),
      metadata: Type.Optional(Metadata),
      visibility: Type.Optional(Visibility),
    },
    { description: 'What to import.' },
  ),
);

export const ImportResponse = named(
  'ImportResponse',
  Type.Object(
    {
      file: FileRecord,
      uploadToken: Type.String({
        pattern: '^[A-Za-z0-9_-]{22,}$',
        description:
          "The import's own credential (at least 128 random bits), as a sign answer's, shown only here: `GET /v1/uploads/{id}` with it in `X-Upload-Token` follows the import with a publishable key or an upload token (which `GET /v1/files/{id}` answers `403 token_scope`).",
      }),
    },
    { additionalProperties: false },
  ),
);

export const ImportState = named(
  'ImportState',
  Type.Object(
    { file: FileRecord },
    {
      additionalProperties: false,
      description:
        '`GET /v1/uploads/{id}` of an import: its record as `GET /v1/files/{id}` shows it (`pending` with `importProgress`, `ready`, or `failed` with `importError` for 24 hours after it failed).',
    },
  ),
);
