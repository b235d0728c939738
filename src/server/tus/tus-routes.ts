import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLAN_SIGN_CAP } from '../../api/limits.js';
import {
  ALLOWED_METHODS,
  ALLOWED_REQUEST_HEADERS,
  EXPOSED_RESPONSE_HEADERS,
} from '../../api/routes.js';
import type { FileRecord } from '../../api/types.js';
import type { ServiceContext } from '../context.js';
import { declaredRoute, fastifyRoute } from '../contract-reader/contract.js';
import { removeFile } from '../files/remove.js';
import { fail } from '../ground/errors.js';
import { bodyChunks } from '../http/body.js';
import { untilStalled } from '../http/body-pace.js';
import { whileServiceWorks } from '../http/service-busy.js';
import { authenticate, type Caller } from '../rules/auth.js';
import { toFileRecord } from '../rules/records.js';
import { validateSignEntry } from '../uploads/sign-entry.js';
import {
  createTusUpload,
  finishTusUpload,
  receiveTusPatch,
  type TusPatch,
  type TusProgress,
  type TusUpload,
  terminateTusUpload,
  tusUpload,
} from '../uploads/tus-upload.js';
import {
  byteCountHeader,
  parseUploadChecksum,
  requireTusResumable,
  TUS_BODY_TYPE,
  TUS_CHECKSUMS,
  TUS_EXTENSIONS,
  TUS_REQUEST_HEADERS,
  TUS_RESPONSE_HEADERS,
  TUS_VERSION,
  TusStatusError,
} from './tus-headers.js';
import { signEntryOfMetadata } from './tus-metadata.js';

/** Where tus is served; an upload's URL adds its id and its secret. */
export const TUS_PATH = '/v1/tus';
const UPLOAD_PATH = `${TUS_PATH}/:id/:secret`;

type UploadRequest = FastifyRequest<{ Params: { id: string; secret: string } }>;

/**
 * tus 1.0.0 on `/v1/tus` (decisions.md, "tus: any resumable client"): creation (with
 * upload), HEAD, PATCH, termination, expiration and checksums, over the uploads of
 * `uploads/tus-upload.ts`. Every answer, errors included, says `Tus-Resumable`, and CORS
 * lets a page send and read the tus headers.
 */
export function registerTusRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const onRequest = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Tus-Resumable', TUS_VERSION);
    reply.header(
      'Access-Control-Expose-Headers',
      [...EXPOSED_RESPONSE_HEADERS, ...TUS_RESPONSE_HEADERS].join(', '),
    );
  };
  const handlers = {
    tusCreate: create,
    tusHead: head,
    tusPatch: patch,
    tusOverride: overridden,
    tusTerminate: terminate,
  } as const;
  for (const [operationId, handler] of Object.entries(handlers)) {
    // Path and path parameters from the declaration (tus-paths.ts), as every API route.
    const declared = declaredRoute(operationId as keyof typeof handlers);
    app.route({
      ...fastifyRoute(declared),
      onRequest,
      handler: (request, reply) => handler(ctx, request as UploadRequest, reply),
    });
  }
  for (const url of [TUS_PATH, UPLOAD_PATH]) {
    app.route({ method: 'OPTIONS', url, onRequest, handler: (_request, reply) => options(reply) });
  }
}

/**
 * What the server speaks, and a browser's preflight (which carries no key, so it is
 * answered alike for every origin). `Tus-Max-Size` is the largest file any plan takes: the
 * caller's plan is not known before its key is, and creation refuses past its own cap.
 */
async function options(reply: FastifyReply): Promise<void> {
  reply
    .code(204)
    .header('Tus-Version', TUS_VERSION)
    .header('Tus-Extension', TUS_EXTENSIONS.join(','))
    .header('Tus-Max-Size', String(Math.max(...Object.values(PLAN_SIGN_CAP))))
    .header('Tus-Checksum-Algorithm', Object.keys(TUS_CHECKSUMS).join(','))
    .header('Access-Control-Allow-Methods', [...ALLOWED_METHODS, 'HEAD', 'PATCH'].join(', '))
    .header(
      'Access-Control-Allow-Headers',
      [...ALLOWED_REQUEST_HEADERS, ...TUS_REQUEST_HEADERS].join(', '),
    )
    .header('Access-Control-Max-Age', '600')
    .send();
}

/** Creation: the checks of a sign, then (creation-with-upload) the first bytes. */
async function create(
  ctx: ServiceContext,
  request: UploadRequest,
  reply: FastifyReply,
): Promise<void> {
  requireTusResumable(request.headers);
  const caller = await authenticate(ctx, request, { upload: 'start' });
  if (request.headers['upload-defer-length'] !== undefined) {
    fail(
      'invalid_request',
      'Upload-Length is required: quotas are decided when an upload is created.',
    );
  }
  const size = byteCountHeader(request.headers, 'upload-length');
  if (size === undefined) fail('invalid_request', 'Upload-Length is required.');
  const entry = validateSignEntry(
    signEntryOfMetadata(singleHeader(request, 'upload-metadata'), size),
    caller.project,
    caller,
  );
  const withBody = hasBody(request);
  if (withBody) requireBodyType(request);
  const { row, token } = await createTusUpload(ctx, caller, request.ip, entry);
  reply
    .code(201)
    .header('Location', `${ctx.urls.api}${TUS_PATH}/${row.id}/${token}`)
    .header('Upload-Expires', httpDate(row.expiresAt as number));
  if (!withBody) {
    reply.send();
    return;
  }
  const upload = await tusUpload(ctx, caller, row.id, token);
  try {
    const progress = await whileServiceWorks(request, () =>
      receiveTusPatch(ctx, caller, upload, patchOf(request, 0)),
    );
    answerProgress(reply.code(201), progress);
  } catch (error) {
    // The client never learns this upload's URL: nothing of it may stay.
    await removeFile(ctx, caller.project.id, row.id).catch(() => undefined);
    throw error;
  }
}

async function head(
  ctx: ServiceContext,
  request: UploadRequest,
  reply: FastifyReply,
): Promise<void> {
  const { caller, upload } = await reachUpload(ctx, request);
  const { row, state } = upload;
  // Every byte arrived but the upload was never finished (the instance was killed between
  // the last byte and `ready`): a client told `Upload-Offset` = `Upload-Length` sends no
  // more PATCH, so it is finished here, as the last PATCH would have (or refused as it).
  const file =
    row.status === 'ready'
      ? toFileRecord(ctx, row)
      : state?.offset === row.size
        ? await whileServiceWorks(request, () => finishTusUpload(ctx, caller, upload))
        : undefined;
  reply
    .code(200)
    .header('Cache-Control', 'no-store')
    .header('Upload-Offset', String(state?.offset ?? row.size))
    .header('Upload-Length', String(row.size));
  if (file) fileHeaders(reply, file);
  else reply.header('Upload-Expires', httpDate(row.expiresAt as number));
  reply.send();
}

async function patch(
  ctx: ServiceContext,
  request: UploadRequest,
  reply: FastifyReply,
): Promise<void> {
  const { caller, upload, checked } = await reachUpload(ctx, request, () => {
    requireBodyType(request);
    const given = byteCountHeader(request.headers, 'upload-offset');
    if (given === undefined) fail('invalid_request', 'Upload-Offset is required.');
    return given;
  });
  const offset = checked as number;
  if (upload.row.status === 'ready') {
    // A retried last PATCH whose answer was lost: the upload is the file now.
    if (offset !== upload.row.size) {
      fail(
        'upload_conflict',
        `Upload-Offset does not match: the upload is at byte ${upload.row.size}.`,
        {
          extra: { offset: upload.row.size },
        },
      );
    }
    answerProgress(reply, { offset, file: toFileRecord(ctx, upload.row) });
    return;
  }
  const progress = await whileServiceWorks(request, () =>
    receiveTusPatch(ctx, caller, upload, patchOf(request, offset)),
  );
  answerProgress(reply, progress);
}

async function terminate(
  ctx: ServiceContext,
  request: UploadRequest,
  reply: FastifyReply,
): Promise<void> {
  const { caller, upload } = await reachUpload(ctx, request);
  await terminateTusUpload(ctx, caller, upload);
  reply.code(204).send();
}

/**
 * tus 1.0: a POST naming PATCH or DELETE in `X-HTTP-Method-Override` is that request, for
 * clients and proxies that cannot send those methods (tus-js-client's `overridePatchMethod`).
 */
async function overridden(
  ctx: ServiceContext,
  request: UploadRequest,
  reply: FastifyReply,
): Promise<void> {
  const named = request.headers['x-http-method-override'];
  const method = typeof named === 'string' ? named.trim().toUpperCase() : '';
  if (method === 'PATCH') return patch(ctx, request, reply);
  if (method === 'DELETE') return terminate(ctx, request, reply);
  requireTusResumable(request.headers);
  fail(
    'invalid_request',
    'A POST to an upload URL is a PATCH or DELETE named in X-HTTP-Method-Override.',
  );
}

/**
 * What HEAD, PATCH and DELETE begin with: a tus request (`checkHeaders`: its own header
 * checks, before the credential is looked at, answering what the request asks), its caller
 * and the upload its URL and credential reach.
 */
async function reachUpload<T = undefined>(
  ctx: ServiceContext,
  request: UploadRequest,
  checkHeaders?: () => T,
): Promise<{ caller: Caller; upload: TusUpload; checked: T | undefined }> {
  requireTusResumable(request.headers);
  const checked = checkHeaders?.();
  const caller = await authenticate(ctx, request, { upload: 'continue' });
  const upload = await tusUpload(ctx, caller, request.params.id, request.params.secret);
  return { caller, upload, checked };
}

/** `204` (or the creation's `201`) with the new offset, and the file once it is ready. */
function answerProgress(reply: FastifyReply, progress: TusProgress): void {
  if (reply.statusCode !== 201) reply.code(204);
  reply.header('Upload-Offset', String(progress.offset));
  const { file } = progress;
  if (file) fileHeaders(reply, file);
  if (progress.expiresAt !== undefined)
    reply.header('Upload-Expires', httpDate(progress.expiresAt));
  reply.send();
}

function fileHeaders(reply: FastifyReply, file: FileRecord): void {
  reply.header('Filehost-File-Id', file.id);
  if (file.url) reply.header('Filehost-File-Url', file.url);
}

function patchOf(request: FastifyRequest, offset: number): TusPatch {
  const length = request.headers['content-length'];
  return {
    offset,
    ...(length !== undefined && /^[0-9]{1,15}$/.test(length) ? { length: Number(length) } : {}),
    body: untilStalled(bodyChunks(request.raw), request.raw),
    checksum: checksumOf(request),
  };
}

/** `Upload-Checksum`'s digest, fed as the bytes arrive and checked once they have. */
function checksumOf(request: FastifyRequest): TusPatch['checksum'] {
  const expected = parseUploadChecksum(request.headers);
  if (!expected) return null;
  const hash = createHash(TUS_CHECKSUMS[expected.algorithm]);
  return {
    update: (chunk) => hash.update(chunk),
    verify: () => {
      if (!hash.digest().equals(expected.digest)) {
        throw new TusStatusError(
          460,
          'checksum_mismatch',
          `The bytes do not match Upload-Checksum (${expected.algorithm}); nothing of this PATCH was kept.`,
        );
      }
    },
  };
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

function requireBodyType(request: FastifyRequest): void {
  if (request.headers['content-type'] !== TUS_BODY_TYPE) {
    throw new TusStatusError(
      415,
      'invalid_request',
      `A tus body must be sent as Content-Type: ${TUS_BODY_TYPE}.`,
    );
  }
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) fail('invalid_request', `The ${name} header may appear only once.`);
  return value;
}

function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
