import { Type } from '@sinclair/typebox';
import { backendRoutes, routes, serviceRoutes } from '../../api/routes.js';
import {
  CompleteBatchRequest,
  CompleteBatchResponse,
  CompleteRequest,
  CreatedWebhook,
  EventListResponse,
  FileListResponse,
  Id,
  ImportRequest,
  ImportResponse,
  ImportState,
  Liveness,
  MultipartUpload,
  PartUploadResponse,
  Readiness,
  SignBatchRequest,
  SignBatchResponse,
  SignedUrlRequest,
  SignedUrlResponse,
  SignRequest,
  SignResponse,
  UploadBatchRequest,
  UploadBatchResponse,
  UploadResponse,
  UploadState,
  UploadTokenRequest,
  UploadTokenResponse,
  Usage,
  Visibility,
  WebhookListResponse,
  WebhookRequest,
} from './components.js';
import { type Parameter, type PathDeclaration, pathOf } from './declare.js';
import { servers as API_SERVERS } from './document.js';
import { errors } from './error-answers.js';
import { OneOf, Raw, StringEnum } from './kit.js';
import { TUS_PATHS } from './tus-paths.js';

/** Where the CDN's routes are served: its own origin. */
const CDN_SERVERS = [
  {
    url: '{cdnUrl}',
    description: 'The CDN, on its own origin',
    variables: { cdnUrl: { default: 'http://localhost:8788' } },
  },
];

/** Paths both servers answer alike (health): the API's own, and the CDN's. */
const API_AND_CDN_SERVERS = [...API_SERVERS, ...CDN_SERVERS];

/** What health answers carry: they are never cached. */
const HEALTH_HEADERS = {
  'Cache-Control': { required: true, schema: Type.String({ const: 'no-store' }) },
};

/** The file id in a CDN path. */
const CDN_FILE_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: Type.String(),
  description: 'The file id; any other shape is `404`.',
};

/** The headers of every answer that carries a file's bytes (all of them, or a range). */
const CDN_FILE_HEADERS = {
  ETag: { $ref: '#/components/headers/ETag' },
  'Last-Modified': { $ref: '#/components/headers/LastModified' },
  'Cache-Control': { $ref: '#/components/headers/CdnCacheControl' },
  'Accept-Ranges': { $ref: '#/components/headers/AcceptRanges' },
  'X-Content-Type-Options': { $ref: '#/components/headers/NoSniff' },
  'Access-Control-Allow-Origin': { $ref: '#/components/headers/CdnAllowOrigin' },
  'Cross-Origin-Resource-Policy': {
    $ref: '#/components/headers/CrossOriginResourcePolicy',
  },
  'Content-Disposition': { $ref: '#/components/headers/ContentDisposition' },
  'Content-Security-Policy': { $ref: '#/components/headers/SandboxCsp' },
};

/** Which variant of an image answered, and what chose it (see `ImageTransform`). */
const CDN_VARIANT_HEADERS = {
  'X-Variant': { $ref: '#/components/headers/XVariant' },
  Vary: { $ref: '#/components/headers/VaryAccept' },
};

/** What the CDN answers for a file, GET or HEAD, with or without the name in its path. */
const CDN_FILE_RESPONSES = {
  '200': {
    description:
      'The file, with its stored `Content-Type`. With image parameters (`w`, `h`, `fit`, `format`, `q`): the stored variant, made on first request, with an `ETag` of its own and the image type it is in.',
    headers: {
      ...CDN_FILE_HEADERS,
      ...CDN_VARIANT_HEADERS,
    },
    content: {
      '*/*': { schema: Type.String({ contentMediaType: 'application/octet-stream' }) },
    },
  },
  '206': {
    description: 'One range of the file.',
    headers: {
      ...CDN_FILE_HEADERS,
      'Content-Range': { $ref: '#/components/headers/ContentRange' },
      ...CDN_VARIANT_HEADERS,
    },
    content: {
      '*/*': { schema: Type.String({ contentMediaType: 'application/octet-stream' }) },
    },
  },
  '304': {
    description: '`If-None-Match` (or `If-Modified-Since`) matched.',
    headers: {
      ETag: { $ref: '#/components/headers/ETag' },
      'X-Variant': { $ref: '#/components/headers/XVariant' },
    },
  },
  '416': {
    description: 'The range starts past the end.',
    headers: { 'Content-Range': { $ref: '#/components/headers/UnsatisfiedRange' } },
  },
  ...errors(400, { 403: 'BadSignature' }, { 404: 'CdnNotFound' }, 414, 431, 500, 503, 507),
};

/**
 * What a request for a file's bytes may carry, on the CDN's four file routes alike (with or
 * without the name, GET or HEAD): ranges, revalidation, a variant, a signed link.
 */
const CDN_FILE_PARAMETERS = [
  {
    name: 'Range',
    in: 'header',
    required: false,
    schema: Type.String(),
    description: 'One range: `a-b`, `a-` or `-n`.',
  },
  { name: 'If-None-Match', in: 'header', required: false, schema: Type.String() },
  { name: 'If-Modified-Since', in: 'header', required: false, schema: Type.String() },
  { name: 'If-Range', in: 'header', required: false, schema: Type.String() },
  { $ref: '#/components/parameters/VariantWidth' },
  { $ref: '#/components/parameters/VariantHeight' },
  { $ref: '#/components/parameters/VariantFit' },
  { $ref: '#/components/parameters/VariantFormat' },
  { $ref: '#/components/parameters/VariantQuality' },
  {
    name: 'exp',
    in: 'query',
    required: false,
    schema: Type.String({ pattern: '^(0|[1-9][0-9]{0,11})$' }),
    description: 'Signed links: when the link expires, Unix seconds.',
  },
  {
    name: 'sig',
    in: 'query',
    required: false,
    schema: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    description:
      'Signed links: base64url HMAC-SHA256 over the id, every parameter and `exp`. With it, every other query parameter must be one the link was signed with.',
  },
  {
    name: 'download',
    in: 'query',
    required: false,
    schema: StringEnum(['1']),
    description: 'Signed links: served as an attachment.',
  },
] as const satisfies readonly Parameter[];

/**
 * Every route of the API, declared once: its path (from the client's route table), its
 * parameters, request body and answers, with their schemas. From this list comes the
 * OpenAPI document (`npm run openapi` writes src/api/openapi.json), and from that the
 * routes the service registers (app.ts) and their validation (`contract.ts`). To add an
 * endpoint: add its operation here, its handler in app.ts, and run `npm run openapi`.
 */
export const PATHS = [
  {
    path: pathOf(routes.upload),
    preflight: 'preflightUpload',
    operations: {
      post: {
        operationId: 'upload',
        tags: ['Files'],
        summary: 'Upload one file in one request (at most 100 MiB)',
        description:
          'Raw bytes (the request `Content-Type` is the declared type, `X-Filename` the name) or `multipart/form-data` with a part named `file` (and an optional field `metadata`). The stored type is recognised from the bytes when possible. The URL is live at once.',
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        parameters: [
          {
            name: 'X-Filename',
            in: 'header',
            required: false,
            schema: Type.String(),
            description:
              'Raw mode: the display name, percent-decoded when it holds `%XX` sequences; default `upload`.',
          },
          {
            name: 'X-Metadata',
            in: 'header',
            required: false,
            schema: Type.String({ contentMediaType: 'application/json' }),
            description: 'Metadata as JSON (see `Metadata`); absent: `{}`.',
          },
          {
            name: 'X-Visibility',
            in: 'header',
            required: false,
            schema: Visibility,
            description: 'Raw or multipart: `private` stores the file private; default `public`.',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': { schema: MultipartUpload },
            '*/*': {
              schema: Type.String({
                contentMediaType: 'application/octet-stream',
                maxLength: 104857600,
              }),
            },
          },
        },
        responses: {
          '201': {
            description: 'Stored; the URL is live.',
            content: { 'application/json': { schema: UploadResponse } },
          },
          ...errors(
            { 400: 'BadUpload' },
            401,
            { 403: 'QuotaOrOrigin' },
            408,
            413,
            414,
            415,
            422,
            429,
            431,
            500,
            503,
            507,
          ),
        },
      },
    },
  },
  {
    path: pathOf(routes.uploadBatch),
    preflight: 'preflightUploadBatch',
    operations: {
      post: {
        operationId: 'uploadBatch',
        tags: ['Files'],
        summary: 'Upload 1 to 100 small files in one request',
        description:
          "For pages of many small files: one request carries every file's bytes, where the multi-step upload takes a sign, a PUT and a complete per file (batched or not). A `multipart/form-data` body: first the `files` field, a JSON array of 1 to 100 entries shaped as the batch sign's (`name`, `size`, `type`, `metadata`, `visibility`; `deleteAfter` with the secret key), then one `file` part per entry in the same order, each exactly its declared `size`. Every entry is checked as a sign checks it and room for all of them is reserved (storage quota, anonymous caps, an upload token's limits) before any byte is stored, all or nothing: an entry at fault refuses the request with its `index`. Each file then goes as a one-request upload does (its type from its bytes, scanning, location stripping, a `file.ready` event) and gets its own result, in the entries' order: `{ file }`, or `{ error }` with the status it would have had alone (`size_mismatch`, `missing_file`, `unsupported_type`, `infected`, ...). Files become `ready` only once the whole body has arrived: a request cut or malformed half-way keeps none of them. Each file is at most 100 MiB and all of them together at most 100 MiB. A batch counts as one request for the rate limit. Clients written against the reference alone never need it.",
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: UploadBatchRequest } },
        },
        responses: {
          '200': {
            description: 'One result per entry of `files`.',
            content: { 'application/json': { schema: UploadBatchResponse } },
          },
          ...errors(
            { 400: 'BadUpload' },
            401,
            { 403: 'QuotaOrOrigin' },
            408,
            413,
            414,
            415,
            429,
            431,
            500,
            503,
            507,
          ),
        },
      },
    },
  },
  {
    path: pathOf(routes.files),
    preflight: 'preflightFiles',
    operations: {
      get: {
        operationId: 'listFiles',
        tags: ['Files'],
        summary: "List the project's files, newest first",
        description:
          'Order: `createdAt` descending, then `id` descending. Deleted files are skipped; pending uploads are included.',
        security: [{ secretKey: [] }, { publishableKey: [] }],
        parameters: [
          { $ref: '#/components/parameters/Cursor' },
          { $ref: '#/components/parameters/Limit' },
        ],
        responses: {
          '200': {
            description: 'One page.',
            content: { 'application/json': { schema: FileListResponse } },
          },
          ...errors(400, 401, { 403: 'ReadForbidden' }, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(routes.file, 'id'),
    parameters: [{ $ref: '#/components/parameters/FileId' }],
    preflight: 'preflightFile',
    operations: {
      get: {
        operationId: 'getFile',
        tags: ['Files'],
        summary: 'One file record',
        security: [{ secretKey: [] }, { publishableKey: [] }],
        responses: {
          '200': { $ref: '#/components/responses/FileRecord' },
          ...errors(400, 401, { 403: 'ReadForbidden' }, 404, 414, 429, 431, 500, 503),
        },
      },
      delete: {
        operationId: 'deleteFile',
        tags: ['Files'],
        summary: 'Delete a file, or cancel a pending upload (secret key)',
        description: 'The file stops being listed and served at once; its bytes follow.',
        security: [{ secretKey: [] }],
        responses: {
          '204': { description: 'Deleted.' },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 404, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.signedUrl, 'id'),
    parameters: [{ $ref: '#/components/parameters/FileId' }],
    preflight: 'preflightSignedUrl',
    operations: {
      post: {
        operationId: 'createSignedUrl',
        tags: ['Files'],
        summary: 'A signed CDN link to a file (secret key)',
        description:
          'The only way a private file is served; a public file answers a link too. A pending file may be signed for: its link answers 404 until the file is ready. A publishable key is `403 secret_key_required`.',
        security: [{ secretKey: [] }],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: SignedUrlRequest } },
        },
        responses: {
          '200': {
            description: 'A signed CDN link.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
            content: { 'application/json': { schema: SignedUrlResponse } },
          },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 404, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(routes.sign),
    preflight: 'preflightSign',
    operations: {
      post: {
        operationId: 'signUpload',
        tags: ['Multi-step upload'],
        summary: 'Start one upload, or a batch of 1 to 100 (all or nothing)',
        description:
          'Creates each file row as `pending` and answers one signed PUT per part. A batch error carries `index`, the position of the first bad entry.',
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: Type.Union([SignRequest, SignBatchRequest]) } },
        },
        responses: {
          '201': {
            description: 'Signed: one sign answer, or `{ uploads }` in the order asked.',
            content: {
              'application/json': { schema: Type.Union([SignResponse, SignBatchResponse]) },
            },
          },
          ...errors(
            { 400: 'BadSign' },
            401,
            { 403: 'QuotaOrOrigin' },
            408,
            413,
            414,
            415,
            429,
            431,
            500,
            503,
            507,
          ),
        },
      },
    },
  },
  {
    path: pathOf(routes.completeMany),
    preflight: 'preflightCompleteMany',
    operations: {
      post: {
        operationId: 'completeUploads',
        tags: ['Multi-step upload'],
        summary: 'Complete 1 to 100 uploads, each on its own',
        description:
          'Each result is `{ file }` or `{ error }` (with the status a single complete would answer), in the order asked. A malformed batch is refused whole.',
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: CompleteBatchRequest } },
        },
        responses: {
          '200': {
            description: 'One result per upload.',
            content: { 'application/json': { schema: CompleteBatchResponse } },
          },
          ...errors(400, 401, { 403: 'PendingForbidden' }, 408, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(routes.uploadState, 'id'),
    parameters: [{ $ref: '#/components/parameters/FileId' }],
    preflight: 'preflightUploadState',
    operations: {
      get: {
        operationId: 'uploadState',
        tags: ['Multi-step upload'],
        summary: 'Which parts arrived whole, with fresh part URLs while pending',
        description:
          "Asking does not move the upload's expiry. For an import (`POST /v1/uploads/import`) it answers the import's record (`ImportState`) from its start to its end, ready, or failed for 24 hours: the way a page holding only an upload token (or a publishable key) follows an import, with the `uploadToken` of the import's answer in `X-Upload-Token`.",
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        parameters: [{ $ref: '#/components/parameters/UploadToken' }],
        responses: {
          '200': {
            description: "The upload's state; for an import, its record.",
            content: { 'application/json': { schema: OneOf([UploadState, ImportState]) } },
          },
          ...errors(400, 401, { 403: 'PendingForbidden' }, 404, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(routes.complete, 'id'),
    parameters: [{ $ref: '#/components/parameters/FileId' }],
    preflight: 'preflightComplete',
    operations: {
      post: {
        operationId: 'completeUpload',
        tags: ['Multi-step upload'],
        summary: 'Make a pending upload ready',
        description:
          'Every part must have arrived whole (and match the ETags listed, if any). Completing a ready upload answers its record again, unless the parts named are not those it was completed with (`409 upload_conflict`).',
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        parameters: [{ $ref: '#/components/parameters/UploadToken' }],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: CompleteRequest } },
        },
        responses: {
          '200': { $ref: '#/components/responses/FileRecord' },
          ...errors(
            400,
            401,
            { 403: 'PendingForbidden' },
            404,
            408,
            { 409: 'CompleteConflict' },
            414,
            415,
            422,
            429,
            431,
            500,
            503,
            507,
          ),
        },
      },
    },
  },
  {
    path: pathOf(serviceRoutes.sharedPart),
    preflight: {
      operationId: 'preflightPart',
      tags: ['CORS'],
      summary: 'CORS preflight of part PUTs',
      description:
        'Allows the part headers, with a `Max-Age` of two hours so that a page preflights its part PUTs rarely.',
      security: [],
      responses: { '204': { $ref: '#/components/responses/PartPreflight' } },
    },
    operations: {
      put: {
        operationId: 'putPart',
        tags: ['Multi-step upload'],
        summary: "A part's bytes (embedded deployment), at the one URL every part shares",
        description:
          "The embedded (local disk) store's part URL; at scale parts go to S3's own presigned URLs instead. Send exactly the `method`, `url` and `headers` a sign (or state) answer gave. The body must be exactly the signed length. Re-sending a part replaces it.",
        security: [],
        parameters: [
          { name: 'X-Filehost-Upload', in: 'header', required: true, schema: Type.String() },
          {
            name: 'X-Filehost-Part',
            in: 'header',
            required: true,
            schema: Type.String({ pattern: '^[1-9]\\d{0,4}$' }),
          },
          {
            name: 'X-Filehost-Expires',
            in: 'header',
            required: true,
            schema: Type.String({ pattern: '^[1-9]\\d{0,15}$' }),
          },
          {
            name: 'X-Filehost-Signature',
            in: 'header',
            required: true,
            schema: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
          },
          {
            name: 'X-Filehost-Checksum',
            in: 'header',
            required: false,
            schema: StringEnum(['sha256']),
            description: 'Present (and signed) when the upload was signed with checksums.',
          },
          {
            name: 'Content-Digest',
            in: 'header',
            required: false,
            schema: Type.String(),
            description:
              'RFC 9530 `sha-256=:<base64>:`, required when the upload was signed with checksums.',
          },
        ],
        requestBody: {
          required: true,
          content: {
            '*/*': { schema: Type.String({ contentMediaType: 'application/octet-stream' }) },
          },
        },
        responses: {
          '200': {
            description: 'The part is stored whole.',
            headers: { ETag: { $ref: '#/components/headers/ETag' } },
            content: { 'application/json': { schema: PartUploadResponse } },
          },
          ...errors(
            { 400: 'BadPart' },
            { 403: 'BadSignature' },
            404,
            408,
            { 409: 'PartConflict' },
            414,
            431,
            500,
            503,
            507,
          ),
        },
      },
    },
  },
  {
    path: pathOf(routes.part, 'id', 'partNumber'),
    parameters: [
      { $ref: '#/components/parameters/FileId' },
      { name: 'partNumber', in: 'path', required: true, schema: Type.String() },
    ],
    preflight: 'preflightPartAtItsUrl',
    operations: {
      put: {
        operationId: 'putPartAtItsUrl',
        tags: ['Multi-step upload'],
        summary:
          "A part's bytes at a URL of its own (embedded deployment; issued by earlier versions)",
        description: 'Sign answers no longer issue these URLs; those issued before keep working.',
        security: [],
        parameters: [
          { name: 'expires', in: 'query', required: true, schema: Type.String() },
          { name: 'checksum', in: 'query', required: false, schema: StringEnum(['sha256']) },
          { name: 'signature', in: 'query', required: true, schema: Type.String() },
          { name: 'Content-Digest', in: 'header', required: false, schema: Type.String() },
        ],
        requestBody: {
          required: true,
          content: {
            '*/*': { schema: Type.String({ contentMediaType: 'application/octet-stream' }) },
          },
        },
        responses: {
          '200': {
            description: 'The part is stored whole.',
            headers: { ETag: { $ref: '#/components/headers/ETag' } },
            content: { 'application/json': { schema: PartUploadResponse } },
          },
          ...errors(
            { 400: 'BadPart' },
            { 403: 'BadSignature' },
            404,
            408,
            { 409: 'PartConflict' },
            414,
            431,
            500,
            503,
            507,
          ),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.usage),
    preflight: 'preflightUsage',
    operations: {
      get: {
        operationId: 'usage',
        tags: ['Project'],
        summary: 'What the project holds now, and its limits (secret key)',
        description:
          'Exact at any moment. A pending upload past its `expiresAt` holds nothing, even before the sweeper removes it.',
        security: [{ secretKey: [] }],
        responses: {
          '200': {
            description: 'Usage and quota.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
            content: { 'application/json': { schema: Usage } },
          },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.uploadTokens),
    preflight: 'preflightUploadTokens',
    operations: {
      post: {
        operationId: 'createUploadToken',
        tags: ['Upload tokens'],
        summary: 'Mint an upload token for one uploader (secret key)',
        description:
          "The project's backend decides who uploads what: the token carries the limits, types, metadata, visibility and lifetime of its files. Limits no larger than the project's own. Only the token's hash is kept.",
        security: [{ secretKey: [] }],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: UploadTokenRequest } },
        },
        responses: {
          '201': {
            description: 'Minted; the token is shown only here.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
            content: { 'application/json': { schema: UploadTokenResponse } },
          },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 408, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.webhooks),
    preflight: 'preflightWebhooks',
    operations: {
      post: {
        operationId: 'createWebhook',
        tags: ['Webhooks'],
        summary: 'Register an endpoint for some or all events (secret key; at most 10)',
        security: [{ secretKey: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: WebhookRequest } },
        },
        responses: {
          '201': {
            description: 'Registered; the secret is shown only here.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
            content: { 'application/json': { schema: CreatedWebhook } },
          },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 408, 414, 429, 431, 500, 503),
        },
      },
      get: {
        operationId: 'listWebhooks',
        tags: ['Webhooks'],
        summary: "The project's endpoints, without secrets (secret key)",
        security: [{ secretKey: [] }],
        responses: {
          '200': {
            description: 'Every endpoint.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
            content: { 'application/json': { schema: WebhookListResponse } },
          },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.webhook, 'id'),
    parameters: [{ name: 'id', in: 'path', required: true, schema: Id }],
    preflight: 'preflightWebhook',
    operations: {
      delete: {
        operationId: 'deleteWebhook',
        tags: ['Webhooks'],
        summary: 'Stop deliveries to an endpoint (secret key)',
        security: [{ secretKey: [] }],
        responses: {
          '204': { description: 'Deleted; its pending deliveries are dropped.' },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 404, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.events),
    preflight: 'preflightEvents',
    operations: {
      get: {
        operationId: 'listEvents',
        tags: ['Webhooks'],
        summary: "The project's events of the last 30 days, newest first (secret key)",
        description:
          'Paged like `/v1/files`, each event with how its deliveries stand, so a backend can also catch up by polling.',
        security: [{ secretKey: [] }],
        parameters: [
          { $ref: '#/components/parameters/Cursor' },
          { $ref: '#/components/parameters/Limit' },
        ],
        responses: {
          '200': {
            description: 'One page.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
            content: { 'application/json': { schema: EventListResponse } },
          },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(backendRoutes.redeliver, 'id'),
    parameters: [{ name: 'id', in: 'path', required: true, schema: Id }],
    preflight: 'preflightRedeliver',
    operations: {
      post: {
        operationId: 'redeliverEvent',
        tags: ['Webhooks'],
        summary: 'Queue an event again for every endpoint (secret key)',
        security: [{ secretKey: [] }],
        responses: {
          '202': { description: 'Queued.' },
          ...errors(400, 401, { 403: 'SecretKeyRequired' }, 404, 414, 429, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(serviceRoutes.openapi),
    preflight: 'preflightOpenApi',
    operations: {
      get: {
        operationId: 'openapi',
        tags: ['Meta'],
        summary: 'This document',
        description: "No key needed. Its `servers` name this deployment's API and CDN.",
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 description of the API.',
            headers: { 'Cache-Control': { required: true, schema: Type.String() } },
            content: {
              'application/json': {
                schema: Raw({ type: 'object', required: ['openapi', 'paths'] }),
              },
            },
          },
          ...errors(400, 414, 431, 500, 503),
        },
      },
    },
  },
  {
    path: pathOf(serviceRoutes.healthz),
    servers: API_AND_CDN_SERVERS,
    preflight: 'preflightHealthz',
    operations: {
      get: {
        operationId: 'healthz',
        tags: ['Meta'],
        summary: 'Liveness',
        description:
          'On the API and the CDN. `200` while the process runs; asks no store. No key needed, not counted by rate limits.',
        security: [],
        responses: {
          '200': {
            description: 'The process runs.',
            headers: HEALTH_HEADERS,
            content: { 'application/json': { schema: Liveness } },
          },
          '400': { $ref: '#/components/responses/InvalidRequest' },
          '414': { $ref: '#/components/responses/UriTooLong' },
          '431': { $ref: '#/components/responses/HeadersTooLarge' },
        },
      },
    },
  },
  {
    path: pathOf(serviceRoutes.readyz),
    servers: API_AND_CDN_SERVERS,
    preflight: 'preflightReadyz',
    operations: {
      get: {
        operationId: 'readyz',
        tags: ['Meta'],
        summary: 'Readiness',
        description:
          'On the API and the CDN. `200` when the database took a write-capable probe and the storage answered one, each within 1 s; else `503` naming which did not, and `503` `draining` from SIGTERM on (the instance stops after finishing what is under way). Point a load balancer here. No key needed, not counted by rate limits.',
        security: [],
        responses: {
          '200': {
            description: 'Both stores answered: ready for traffic.',
            headers: HEALTH_HEADERS,
            content: { 'application/json': { schema: Readiness } },
          },
          '400': { $ref: '#/components/responses/InvalidRequest' },
          '414': { $ref: '#/components/responses/UriTooLong' },
          '431': { $ref: '#/components/responses/HeadersTooLarge' },
          '503': {
            description:
              'A store did not answer its probe in time (`unready`: `failing` names which), or the instance is stopping (`draining`).',
            headers: HEALTH_HEADERS,
            content: { 'application/json': { schema: Readiness } },
          },
        },
      },
    },
  },
  {
    path: '/{id}',
    servers: CDN_SERVERS,
    parameters: [CDN_FILE_ID],
    operations: {
      get: {
        operationId: 'serveFile',
        tags: ['CDN'],
        summary: 'A ready file',
        security: [],
        parameters: CDN_FILE_PARAMETERS,
        responses: CDN_FILE_RESPONSES,
      },
      head: {
        operationId: 'headFile',
        tags: ['CDN'],
        summary: "A ready file's headers",
        security: [],
        parameters: CDN_FILE_PARAMETERS,
        responses: CDN_FILE_RESPONSES,
      },
    },
  },
  {
    path: '/{id}/{name}',
    servers: CDN_SERVERS,
    parameters: [
      CDN_FILE_ID,
      {
        name: 'name',
        in: 'path',
        required: true,
        schema: Type.String(),
        'x-rest-of-path': true,
        description:
          'Decorative: the CDN routes on the id alone. File URLs put the display name here (`encodeURIComponent`), but anything goes, `/` included: the rest of the path after the id (`x-rest-of-path`, which a path template cannot say).',
      },
    ],
    operations: {
      get: {
        operationId: 'serveFileNamed',
        tags: ['CDN'],
        summary: 'A ready file',
        security: [],
        parameters: CDN_FILE_PARAMETERS,
        responses: CDN_FILE_RESPONSES,
      },
      head: {
        operationId: 'headFileNamed',
        tags: ['CDN'],
        summary: "A ready file's headers",
        security: [],
        parameters: CDN_FILE_PARAMETERS,
        responses: CDN_FILE_RESPONSES,
      },
    },
  },
  {
    path: pathOf(routes.import),
    preflight: 'preflightImport',
    operations: {
      post: {
        operationId: 'importFromUrl',
        tags: ['Multi-step upload'],
        summary: 'Import a file from a URL',
        description:
          'The service fetches `url` and stores the body as a file. It answers `202` at once with the record (`status: "pending"`) and the import\'s `uploadToken`; `GET /v1/files/{id}` (a key) or `GET /v1/uploads/{id}` with `X-Upload-Token` (any caller, an upload token too) shows `importProgress` while the fetch runs. The file becomes `ready` (`file.ready`), or is removed (no longer listed, its room given back) with `file.import_failed` while `GET /v1/files/{id}` shows `status: "failed"` and `importError` for 24 hours. Quotas, the anonymous caps and an upload token\'s limits apply as at sign: room for the most the file may have (the plan\'s largest file, a token\'s `maxFileSize`, what is left of its `maxBytes` or of the quota) is held while the import runs. The body is stored as sent (no `Content-Encoding` is undone), its type recognised from its bytes. An import runs once, on the instance that accepted it; if that instance dies mid-import, the import fails (`import_failed`) once its lease runs out and no partial file is kept. See docs/api-imports.md.',
        security: [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: ImportRequest } } },
        responses: {
          '202': {
            description:
              'Accepted: the file, `status: "pending"`, with `importProgress`, and the import\'s `uploadToken`. Poll `GET /v1/uploads/{id}` with `X-Upload-Token` (the call an upload token may make) or `GET /v1/files/{id}` (a key), or wait for `file.ready` / `file.import_failed`.',
            content: { 'application/json': { schema: ImportResponse } },
          },
          ...errors(400, 401, { 403: 'QuotaOrOrigin' }, 408, 414, 429, 431, 500, 503, 507),
        },
      },
    },
  },
  ...TUS_PATHS,
] as const satisfies readonly PathDeclaration[];
