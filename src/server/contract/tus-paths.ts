import { Type } from '@sinclair/typebox';
import type { PathDeclaration } from './declare.js';
import { errorContent } from './document.js';
import { errors } from './error-answers.js';

const text = (description: string) => ({ description, schema: Type.String() });
const count = (description: string) => ({
  description,
  schema: Type.String({ pattern: '^\\d+$' }),
});

/** Said by every tus answer, errors included. */
const TUS_RESUMABLE = { 'Tus-Resumable': { required: true, ...text('Always `1.0.0`.') } };
const EXPIRES = { 'Upload-Expires': text("The pending upload's expiry (an HTTP date).") };
const FILE_HEADERS = {
  'Filehost-File-Id': text('Once the last byte arrived: the ready file’s id.'),
  'Filehost-File-Url': text('Once the last byte arrived: its CDN URL (none for a private file).'),
};

/** The errors every tus request may meet, its credentials and the service's faults. */
const COMMON_ERRORS = {
  ...errors(400, 401, { 403: 'QuotaOrOrigin' }, 404, 429, 431, 500, 503),
  '412': {
    description: '412: No `Tus-Resumable: 1.0.0`; `Tus-Version` says what is spoken.',
    headers: { 'Tus-Version': text('`1.0.0`.') },
    content: errorContent(['invalid_request']),
  },
};

/** The errors of a request that brings bytes (creation with upload, PATCH). */
const BYTES_ERRORS = {
  ...errors(408, { 409: 'Conflict' }, 413, 415, 422, 507),
  '460': {
    description:
      '460: The bytes do not match `Upload-Checksum` (tus checksum extension); nothing of the PATCH was kept.',
    content: errorContent(['checksum_mismatch']),
  },
};

const SECURITY = [{ secretKey: [] }, { publishableKey: [] }, { uploadToken: [] }];
const UPLOAD_PARAMETERS = [
  {
    name: 'id',
    in: 'path',
    required: true,
    schema: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }),
    description: "The upload's id (the file's id once ready).",
  },
  {
    name: 'secret',
    in: 'path',
    required: true,
    schema: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }),
    description: 'The upload’s secret: the URL is a capability; only its hash is stored.',
  },
] as const;
const OFFSET_BODY = {
  required: false,
  content: { 'application/offset+octet-stream': { schema: Type.String({ format: 'binary' }) } },
} as const;

/** What the server speaks, and the CORS preflight of a page's tus requests. */
const tusOptions = (operationId: string) => ({
  operationId,
  tags: ['tus'],
  summary: 'What the tus server speaks (and the CORS preflight)',
  security: [],
  responses: {
    '204': {
      description: 'tus 1.0.0 with its extensions, and what a page may send and read.',
      headers: {
        ...TUS_RESUMABLE,
        'Tus-Version': text('`1.0.0`.'),
        'Tus-Extension': text('`creation,creation-with-upload,expiration,checksum,termination`.'),
        'Tus-Max-Size': count(
          'The largest file any plan takes (a plan’s own cap applies at creation).',
        ),
        'Tus-Checksum-Algorithm': text('`sha1,md5,sha256`.'),
        'Access-Control-Allow-Methods': { $ref: '#/components/headers/AllowMethods' },
        'Access-Control-Allow-Headers': { $ref: '#/components/headers/AllowHeaders' },
        'Access-Control-Max-Age': { $ref: '#/components/headers/MaxAge' },
      },
    },
  },
});

/**
 * tus 1.0.0 (`tus-routes.ts`), declared for the document; routed by `registerTusRoutes`
 * (their bodies are tus's, not JSON, and every answer carries `Tus-Resumable`).
 */
export const TUS_PATHS = [
  {
    path: '/v1/tus',
    preflight: tusOptions('tusOptions'),
    operations: {
      post: {
        operationId: 'tusCreate',
        tags: ['tus'],
        summary: 'Create a tus upload (creation, creation-with-upload)',
        description:
          'Headers `Tus-Resumable: 1.0.0`, `Upload-Length` (required: no deferred length), `Upload-Metadata` (`filename`, `filetype`, and optionally `visibility`, `metadata` as a JSON object of strings, `deleteAfter` with the secret key). Makes every check a sign makes, with the same errors. With a body (`application/offset+octet-stream`) its bytes are the first PATCH.',
        security: SECURITY,
        requestBody: OFFSET_BODY,
        responses: {
          '201': {
            description: 'Created; `Location` is the upload URL.',
            headers: {
              ...TUS_RESUMABLE,
              Location: { required: true, ...text('The upload URL: a capability.') },
              ...EXPIRES,
              'Upload-Offset': count('With a body: the bytes taken.'),
              ...FILE_HEADERS,
            },
          },
          ...COMMON_ERRORS,
          ...BYTES_ERRORS,
        },
      },
    },
  },
  {
    path: '/v1/tus/{id}/{secret}',
    parameters: UPLOAD_PARAMETERS,
    preflight: tusOptions('tusUploadOptions'),
    operations: {
      head: {
        operationId: 'tusHead',
        tags: ['tus'],
        summary: 'Where a tus upload stands',
        security: SECURITY,
        responses: {
          '200': {
            description: 'Its offset and length; never cached.',
            headers: {
              ...TUS_RESUMABLE,
              'Upload-Offset': { required: true, ...count('Bytes received durably.') },
              'Upload-Length': { required: true, ...count('Bytes in all.') },
              ...EXPIRES,
              'Cache-Control': { $ref: '#/components/headers/NoStore' },
            },
          },
          ...COMMON_ERRORS,
        },
      },
      patch: {
        operationId: 'tusPatch',
        tags: ['tus'],
        summary: 'Send bytes at `Upload-Offset`',
        description:
          '`Content-Type: application/offset+octet-stream`, `Upload-Offset` (the upload’s offset, else `409`), optionally `Upload-Checksum` (`sha1`, `md5`, `sha256`; `460` keeps nothing). Of two PATCHes at once, one writes and the other is `409`. The last byte makes the file ready as `complete` does, or refuses it as `complete` would.',
        security: SECURITY,
        requestBody: OFFSET_BODY,
        responses: {
          '204': {
            description: 'Taken.',
            headers: {
              ...TUS_RESUMABLE,
              'Upload-Offset': { required: true, ...count('Bytes received durably.') },
              ...EXPIRES,
              ...FILE_HEADERS,
            },
          },
          ...COMMON_ERRORS,
          ...BYTES_ERRORS,
        },
      },
      post: {
        operationId: 'tusOverride',
        tags: ['tus'],
        summary: 'PATCH or DELETE sent as POST (`X-HTTP-Method-Override`)',
        description:
          'For clients and proxies that cannot send PATCH or DELETE (tus 1.0): a POST with `X-HTTP-Method-Override: PATCH` or `DELETE` is that request, with its headers, body and answers (tus-js-client: `overridePatchMethod`). Any other value is `400`.',
        security: SECURITY,
        parameters: [
          {
            name: 'X-HTTP-Method-Override',
            in: 'header',
            required: true,
            schema: Type.String(),
            description: '`PATCH` or `DELETE` (any case).',
          },
        ],
        requestBody: OFFSET_BODY,
        responses: {
          '204': {
            description: 'As the PATCH or DELETE named.',
            headers: {
              ...TUS_RESUMABLE,
              'Upload-Offset': count('A PATCH: bytes received durably.'),
              ...EXPIRES,
              ...FILE_HEADERS,
            },
          },
          ...COMMON_ERRORS,
          ...BYTES_ERRORS,
        },
      },
      delete: {
        operationId: 'tusTerminate',
        tags: ['tus'],
        summary: 'Terminate a tus upload',
        description:
          'A pending upload is cancelled with its bytes (`file.deleted`); a finished one is a file, which only the secret key deletes.',
        security: SECURITY,
        responses: {
          '204': { description: 'Gone.', headers: TUS_RESUMABLE },
          ...COMMON_ERRORS,
        },
      },
    },
  },
] as const satisfies readonly PathDeclaration[];
