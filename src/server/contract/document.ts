import { Type } from '@sinclair/typebox';
import type { ApiErrorCode } from '../../api/errors.js';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../../api/limits.js';
import { UPLOAD_TOKEN_HEADER } from '../../api/routes.js';
import {
  DeletedFileRecord,
  ErrorBody,
  FileRecord,
  Id,
  InfectedFileRecord,
  WebhookPayload,
} from './components.js';
import type { Parameter } from './declare.js';
import { Raw, StringEnum } from './kit.js';

/**
 * The parts of the OpenAPI document that belong to no single route: the API's description,
 * its security schemes, shared parameters, headers and error responses, and the webhooks
 * the service sends. Routes refer to these by `$ref` (`#/components/responses/NotFound`).
 */
export const securitySchemes = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The secret key, `sk_live_…`: the project's backend. Accepted on every operation; needs no upload token.",
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The publishable key, `pk_live_…`: public, for pages. The request must carry an `Origin` on the project's allowlist (`403 origin_not_allowed`; `Origin: null` is refused); rate-limited per key and client IP (`429 rate_limited`); refused on secret-key operations (`403 secret_key_required`). On a project that requires upload tokens, upload calls with it alone are `403 upload_token_required`.",
  },
  uploadToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "An upload token, `upt_…`, that the project's backend minted (`POST /v1/upload-tokens`) for one uploader. Accepted on upload calls only: sign (single and batch), the one-request upload, an import, and the calls on a pending upload (with its `X-Upload-Token`), following an import by `GET /v1/uploads/{id}` included; elsewhere `403 token_scope`. Past its `expiresAt` it may not start an upload (`401 token_expired`) but may still finish one, and follow an import. An `Origin`, when sent, must be allowlisted; rate-limited per token. Its policy bounds what it uploads (`403 token_exhausted`, `413 too_large`, `415 unsupported_type`).",
  },
};

export const parameters: Record<string, Parameter> = {
  FileId: {
    name: 'id',
    in: 'path',
    required: true,
    schema: Id,
    description: 'A file (or upload) id; any other shape is `404 not_found`.',
  },
  UploadToken: {
    name: UPLOAD_TOKEN_HEADER,
    in: 'header',
    required: false,
    schema: Type.String(),
    description:
      "The sign (or import) answer's `uploadToken`: needed with a publishable key or an upload token (missing or wrong: `404 not_found`, as an unknown id).",
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    schema: Type.String({ pattern: '^(|\\d{1,16}_[A-Za-z0-9_-]{1,128})$' }),
    description:
      "The previous page's `nextCursor`; empty or absent: the first page. Any other form: `400 invalid_request`.",
  },
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    schema: Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT }),
  },
  VariantWidth: {
    name: 'w',
    in: 'query',
    required: false,
    schema: Type.Integer({ minimum: 1, maximum: 4096 }),
    description:
      'Image variant: width in pixels, rounded up to the next step of 16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840, 4096. Any image parameter on a file that is not a JPEG, PNG, WebP, AVIF, GIF or TIFF image, or that does not decode, or over 100 megapixels: `400 invalid_request`.',
  },
  VariantHeight: {
    name: 'h',
    in: 'query',
    required: false,
    schema: Type.Integer({ minimum: 1, maximum: 4096 }),
    description: 'Image variant: height in pixels, rounded up as `w`.',
  },
  VariantFit: {
    name: 'fit',
    in: 'query',
    required: false,
    schema: StringEnum(['cover', 'contain', 'inside', 'fill'], { default: 'inside' }),
    description: 'Image variant: how the image fits `w` x `h`. Never enlarged past the original.',
  },
  VariantFormat: {
    name: 'format',
    in: 'query',
    required: false,
    schema: StringEnum(['auto', 'webp', 'avif', 'jpeg', 'png']),
    description:
      "Image variant: output format; none: the original's. `auto`: AVIF when `Accept` lists `image/avif`, else WebP when it lists `image/webp`, else the original's, with `Vary: Accept`.",
  },
  VariantQuality: {
    name: 'q',
    in: 'query',
    required: false,
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 75 }),
    description: 'Image variant: quality (JPEG, WebP, AVIF), rounded up to a multiple of 5.',
  },
};

export const headers = {
  RequestId: {
    required: true,
    description:
      "Names this request in the service's log (`reqId`) and in an error body (`error.requestId`). The caller's own `X-Request-Id` when it sent one of 1 to 128 characters of `A-Z a-z 0-9 . _ ~ : / + = @ -`; else a new one.",
    schema: Type.String({ pattern: '^[A-Za-z0-9._~:/+=@-]{1,128}$' }),
  },
  RetryAfter: {
    required: true,
    description: 'Seconds to wait.',
    schema: Type.String({ pattern: '^\\d+$' }),
  },
  NoStore: { required: true, schema: StringEnum(['no-store']) },
  ETag: { required: true, schema: Type.String({ pattern: '^(W/)?".*"$' }) },
  AllowMethods: { required: true, schema: Type.String() },
  AllowHeaders: { required: true, schema: Type.String() },
  MaxAge: { required: true, schema: Type.String({ pattern: '^\\d+$' }) },
  CdnAllowOrigin: { required: true, schema: StringEnum(['*']) },
  CdnCacheControl: {
    required: true,
    description:
      '`public, max-age=31536000, immutable` for a plain URL; `private, max-age=<seconds left>` for a signed link.',
    schema: Type.String({
      pattern: '^(public, max-age=31536000, immutable|private, max-age=[0-9]+)$',
    }),
  },
  LastModified: { required: true, schema: Type.String() },
  AcceptRanges: { required: true, schema: StringEnum(['bytes']) },
  NoSniff: { required: true, schema: StringEnum(['nosniff']) },
  CrossOriginResourcePolicy: { required: true, schema: StringEnum(['cross-origin']) },
  ContentDisposition: {
    required: true,
    description:
      '`inline` for images, audio, video, PDF and plain text; `attachment` otherwise; `filename` ASCII fallback plus `filename*`.',
    schema: Type.String({ pattern: '^(inline|attachment); filename=' }),
  },
  SandboxCsp: {
    required: false,
    description: 'Present exactly on `attachment` answers (types that could run script).',
    schema: StringEnum(['sandbox']),
  },
  ContentRange: { required: true, schema: Type.String({ pattern: '^bytes \\d+-\\d+/\\d+$' }) },
  UnsatisfiedRange: { required: true, schema: Type.String({ pattern: '^bytes \\*/\\d+$' }) },
  LongMaxAge: {
    required: true,
    description:
      'At least two hours (7,200 s), the most Chromium keeps a preflight, so a page preflights its part PUTs rarely.',
    schema: Type.String({ pattern: '^(7[2-9]\\d\\d|[89]\\d{3}|[1-9]\\d{4,})$' }),
  },
  XVariant: {
    required: false,
    description:
      "On an image variant: which one it is, keyed by what it is (`w=640,h=427,fit=inside,format=webp,q=75`): its size after rounding up the ladder and capping at the original's (a fit into a box of the image's proportions is `inside`); an unused quality left out. AVIF is made up to 2,048 px on its longest side (`format=avif` past it: 400; `format=auto`: WebP).",
    schema: Type.String({
      pattern:
        '^(w=\\d+,)?(h=\\d+,)?fit=(cover|contain|inside|fill),format=(jpeg|png|webp|avif|gif|tiff)(,q=\\d+)?$',
    }),
  },
  VaryAccept: {
    required: false,
    description: 'On an image variant asked with `format=auto`.',
    schema: StringEnum(['Accept']),
  },
};

/**
 * An error answer's body: the `ErrorBody` every error has, its `error.code` one of `codes`
 * (what each response below may say).
 */
export function errorContent(codes: readonly ApiErrorCode[]) {
  return {
    'application/json': {
      schema: Raw({
        allOf: [
          ErrorBody,
          Type.Object({
            error: Type.Optional(Type.Object({ code: Type.Optional(Raw({ enum: [...codes] })) })),
          }),
        ],
      }),
    },
  };
}

export const responses = {
  BadRequest: {
    description:
      '400: The request is malformed: a bad JSON body, query value, header, metadata or media type, or a body that does not fit what was signed.',
    content: errorContent([
      'invalid_request',
      'missing_file',
      'empty_body',
      'size_mismatch',
      'checksum_missing',
      'checksum_mismatch',
    ]),
  },
  Unauthorized: {
    description:
      '401: No `Authorization` header, not `Bearer <a known key or upload token>` (`invalid_key`), or an upload token past its `expiresAt` starting an upload (`token_expired`: ask the backend for a new one).',
    content: errorContent(['missing_auth', 'invalid_key', 'token_expired']),
  },
  Forbidden: {
    description:
      "403: The key may not do this (origin not on the allowlist, a publishable key on a secret-key operation, an upload token on an endpoint that is not an upload call, the publishable key alone on a project that requires upload tokens), a signed URL or CDN link was altered, is not ours or has expired (on the CDN: `invalid_signature`, also for a link carrying a parameter it was not signed with; `url_expired`), or the project's quota or an upload token's limits would be passed.",
    content: errorContent([
      'origin_not_allowed',
      'secret_key_required',
      'invalid_signature',
      'url_expired',
      'quota_exceeded',
      'token_exhausted',
      'token_scope',
      'upload_token_required',
    ]),
  },
  NotFound: {
    description:
      "404: Unknown id, another project's id, a deleted file, a pending upload without its upload token, or an unknown route.",
    content: errorContent(['not_found']),
  },
  RequestTimeout: {
    description:
      '408: The JSON body did not arrive whole in time, or an upload body brought fewer than 16 KiB in 30 s (nothing of it kept, its reservation given back); the connection is closed.',
    content: errorContent(['request_timeout']),
  },
  Conflict: {
    description: '409: The upload is not in a state that allows this.',
    content: errorContent(['upload_incomplete', 'upload_not_pending', 'upload_conflict']),
  },
  ContentTooLarge: {
    description:
      "413: A one-request body over 100 MiB, a signed `size` over the plan's cap, or a file larger than an upload token's `maxFileSize` (its message and `limit` name the limit).",
    content: errorContent(['too_large']),
  },
  UriTooLong: {
    description: '414: The request URL is longer than 8 KiB.',
    content: errorContent(['uri_too_long']),
  },
  UnsupportedMediaType: {
    description:
      "415: A type outside the project's allowed types or an upload token's `types`, declared or recognised from the bytes; nothing is kept.",
    content: errorContent(['unsupported_type']),
  },
  FileRefused: {
    description:
      "422: The file was refused for what it holds, and nothing was kept: the malware scanner (ClamAV) found malware in it (`infected`: a `file.infected` event was recorded, `signature` names what was found), or could not finish within its limits (`unscannable`: an archive that unpacks to more than it scans, nested too deep or holding too many files, or no verdict within `FILEHOST_SCAN_TIMEOUT`), or a photo's location could not be removed (`metadata_unreadable`: metadata the service cannot rewrite, or a position still found after the edit).",
    content: {
      'application/json': {
        schema: Raw({
          allOf: [
            ErrorBody,
            Type.Union([
              Type.Object({
                error: Type.Object({
                  code: Raw({ enum: ['infected'] }),
                  signature: Type.String({ minLength: 1 }),
                }),
              }),
              Type.Object({
                error: Type.Object({ code: Raw({ enum: ['unscannable'] }) }),
              }),
              Type.Object({
                error: Type.Object({ code: Raw({ enum: ['metadata_unreadable'] }) }),
              }),
            ]),
          ],
        }),
      },
    },
  },
  TooManyRequests: {
    description: '429: A publishable key over its rate (per key and client IP).',
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    content: errorContent(['rate_limited']),
  },
  HeadersTooLarge: {
    description: '431: The request headers are larger than the service accepts.',
    content: errorContent(['headers_too_large']),
  },
  InternalError: {
    description: '500: Anything unexpected; the message never leaks internals.',
    content: errorContent(['internal_error']),
  },
  Unavailable: {
    description:
      '503: The database, the storage or the malware scanner is busy or unreachable; retry after `Retry-After` seconds. A `complete` answered so leaves the upload pending: call it again.',
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    content: errorContent(['unavailable']),
  },
  InsufficientStorage: {
    description:
      '507: No room to store the bytes now (disk or bucket full); nothing was kept; retry later.',
    content: errorContent(['insufficient_storage']),
  },
  Preflight: {
    description:
      'CORS preflight: answered alike for every origin (it carries no key); the real request is where the allowlist is enforced.',
    headers: {
      'Access-Control-Allow-Methods': { $ref: '#/components/headers/AllowMethods' },
      'Access-Control-Allow-Headers': { $ref: '#/components/headers/AllowHeaders' },
      'Access-Control-Max-Age': { $ref: '#/components/headers/MaxAge' },
    },
  },
  FileRecord: { description: 'The file.', content: { 'application/json': { schema: FileRecord } } },
  CdnNotFound: {
    description:
      '404: No ready file with this id (pending, deleted, unknown, or an id of another shape), or a private file without a signed link; never cached.',
    headers: {
      'Cache-Control': { $ref: '#/components/headers/NoStore' },
      'Access-Control-Allow-Origin': { $ref: '#/components/headers/CdnAllowOrigin' },
    },
    content: errorContent(['not_found']),
  },
  PartPreflight: {
    description:
      'CORS preflight of part PUTs: allows `PUT` with the part headers (`Content-Type`, `X-Filehost-*`, `Content-Digest`); answered alike for every origin, the signature is checked on the PUT.',
    headers: {
      'Access-Control-Allow-Methods': { $ref: '#/components/headers/AllowMethods' },
      'Access-Control-Allow-Headers': { $ref: '#/components/headers/AllowHeaders' },
      'Access-Control-Max-Age': { $ref: '#/components/headers/LongMaxAge' },
    },
  },
  InvalidRequest: {
    description:
      '400: A malformed request: a bad JSON body, query value or header, a singleton header sent twice, a malformed URL.',
    content: errorContent(['invalid_request']),
  },
  BadUpload: {
    description:
      '400: A malformed request, a multipart body without a `file` part, or zero bytes to store.',
    content: errorContent(['invalid_request', 'missing_file', 'empty_body']),
  },
  BadSign: {
    description: '400: A malformed request, or `size: 0`.',
    content: errorContent(['invalid_request', 'empty_body']),
  },
  BadPart: {
    description:
      '400: A malformed request, a body of another length than signed, or (uploads signed with checksums) a missing or wrong digest: nothing of the part is kept.',
    content: errorContent([
      'invalid_request',
      'size_mismatch',
      'checksum_missing',
      'checksum_mismatch',
    ]),
  },
  SecretKeyRequired: {
    description:
      '403: A publishable key: this operation needs the secret key (or its Origin is not allowed); an upload token: it is accepted on upload calls only (`token_scope`).',
    content: errorContent(['origin_not_allowed', 'secret_key_required', 'token_scope']),
  },
  QuotaOrOrigin: {
    description:
      "403: The project's storage quota or pending-upload cap would be passed, or (without an upload token) the share of anonymous uploads or this client address's (`quota_exceeded`, its message says which); an upload token's `maxFiles` or `maxBytes` would be passed (`token_exhausted`); nothing is created. Or: an Origin not allowed, or the publishable key alone on a project that requires upload tokens (`upload_token_required`). A sign with `deleteAfter` needs the secret key (`secret_key_required`).",
    content: errorContent([
      'origin_not_allowed',
      'secret_key_required',
      'quota_exceeded',
      'token_exhausted',
      'upload_token_required',
    ]),
  },
  BadSignature: {
    description:
      "403: The part's credential, or the CDN link, was altered or is not ours (a link carrying a parameter it was not signed with, too), or has expired.",
    content: errorContent(['invalid_signature', 'url_expired']),
  },
  CompleteConflict: {
    description:
      '409: Not every part arrived whole (`missingParts`, `mismatchedParts`), or a ready upload named parts it was not completed with (`conflictingParts`).',
    content: errorContent(['upload_incomplete', 'upload_conflict']),
  },
  PartConflict: {
    description:
      '409: The upload is complete or being completed, or this write of the part was overtaken by another.',
    content: errorContent(['upload_incomplete', 'upload_not_pending']),
  },
  ReadForbidden: {
    description:
      "403: A publishable key (or an upload token) from an Origin not on the project's allowlist, or a publishable key with none; an upload token, which is accepted on upload calls only (`token_scope`).",
    content: errorContent(['origin_not_allowed', 'token_scope']),
  },
  PendingForbidden: {
    description:
      "403: An Origin not on the project's allowlist (a publishable key with none), or the publishable key alone on a project that requires upload tokens (`upload_token_required`).",
    content: errorContent(['origin_not_allowed', 'upload_token_required']),
  },
};

/** What every webhook delivery carries: Standard Webhooks' headers, retried until a `2xx`. */
function webhook(
  operationId: string,
  summary: string,
  properties: Record<string, unknown>,
  description = 'POSTed to each endpoint registered for it, following Standard Webhooks. At least once: anything but a `2xx` within 15 seconds is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then marked failed. Order is not guaranteed.',
) {
  return {
    post: {
      operationId,
      tags: ['Webhooks'],
      summary,
      description,
      security: [],
      parameters: [
        {
          name: 'webhook-id',
          in: 'header',
          required: true,
          schema: Type.String({ pattern: '^evt_[A-Za-z0-9_-]+$' }),
          description: 'The event id, the same on every retry.',
        },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          schema: Type.String({ pattern: '^\\d+$' }),
          description: 'Unix seconds of this attempt.',
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          schema: Type.String({ pattern: '^v1,[A-Za-z0-9+/]+={0,2}$' }),
          description:
            '`v1,<base64 of HMAC-SHA256>`, keyed by the base64-decoded secret, over `<webhook-id>.<webhook-timestamp>.<body>` (Standard Webhooks).',
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: Raw({ allOf: [WebhookPayload], properties }) },
        },
      },
      responses: {
        '2XX': { description: 'Delivered.' },
        default: { description: 'Not delivered: tried again later.' },
      },
    },
  };
}

export const webhooks = {
  'file.ready': webhook(
    'webhookFileReady',
    'A file became ready (one-request upload or complete)',
    { type: Raw({ const: 'file.ready' }) },
  ),
  'file.deleted': webhook(
    'webhookFileDeleted',
    'A file was deleted (`DELETE`, or its `deleteAt` came)',
    { type: Raw({ const: 'file.deleted' }), data: DeletedFileRecord },
  ),
  'upload.expired': webhook('webhookUploadExpired', 'A pending upload was removed unfinished', {
    type: Raw({ const: 'upload.expired' }),
  }),
  'file.infected': webhook(
    'webhookFileInfected',
    'The malware scanner found malware in an upload (complete or one-request upload); nothing was kept',
    { type: Raw({ const: 'file.infected' }), data: InfectedFileRecord },
  ),
  'file.import_failed': webhook(
    'webhookFileImportFailed',
    'An import from a URL failed',
    { type: Raw({ const: 'file.import_failed' }) },
    'An import (`POST /v1/uploads/import`) failed and its file was removed: `data` is its record (`status: "failed"`, `importError`) with `reason`, the `importError` code.',
  ),
};

export const info = {
  title: 'filehost API',
  version: '1',
  summary:
    'Upload, list, fetch and delete files; serve them from a CDN; learn about them by webhooks.',
  description:
    'Every path is under `/v1`. Errors are JSON `{ "error": { "code", "message" } }`; each code belongs to one status (the error responses of `components`). Every API answer carries `Access-Control-Allow-Origin` echoing the request\'s `Origin` and `Vary: Origin`, and exposes `Retry-After` and `ETag`. A header that may appear once (`Authorization`, `Content-Type`, `Content-Length`, `X-Filename`, `X-Metadata`, `Range`, `X-Upload-Token`) sent twice is `400 invalid_request`. `OPTIONS` on any API path is the CORS preflight (`components.responses.Preflight`); every other unknown route is `404 not_found`.',
  license: { name: 'MIT', identifier: 'MIT' },
};

export const servers = [
  {
    url: '{apiUrl}',
    description: 'The API',
    variables: { apiUrl: { default: 'http://localhost:8787' } },
  },
];

export const security = [{ secretKey: [] }, { publishableKey: [] }];

export const tags = [
  { name: 'Files' },
  { name: 'Multi-step upload' },
  { name: 'Project' },
  { name: 'Upload tokens' },
  { name: 'Webhooks' },
  { name: 'CDN' },
  { name: 'tus' },
  { name: 'CORS' },
  { name: 'Meta' },
];
