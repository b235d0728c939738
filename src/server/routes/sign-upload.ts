import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLAN_SIGN_CAP } from '../../api/limits.js';
import type { SignResponse } from '../../api/types.js';
import { authenticate } from '../auth.js';
import { isPlainObject, readJson } from '../body.js';
import type { ServiceContext } from '../context.js';
import { fail } from '../errors.js';
import { normalizeMediaType } from '../media-type.js';
import { validateMetadata } from '../metadata.js';
import { sanitizeName } from '../names.js';
import { choosePartSize, partLayout } from '../records.js';
import { newId } from '../secrets.js';
import { signParts } from './upload-state.js';

/**
 * `POST /v1/uploads/sign`: creates the file row as `pending` and answers with one signed
 * PUT URL per part.
 */
export async function signUploadHandler(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request);
  const body = await readJson(request);
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  const { name, size, type, metadata } = body;
  if (name !== undefined && typeof name !== 'string') {
    fail('invalid_request', 'name must be a string.');
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    fail('invalid_request', 'size must be a whole number of bytes.');
  }
  if (size === 0) fail('empty_body', 'The file is empty: there are no bytes to upload.');
  const cap = PLAN_SIGN_CAP[caller.project.plan];
  if (size > cap) {
    fail(
      'too_large',
      `The file is larger than ${formatCap(cap)}, the limit of the ${caller.project.plan} plan.`,
      {
        extra: { limit: cap },
      },
    );
  }
  if (type !== undefined && typeof type !== 'string') {
    fail('invalid_request', 'type must be a media type string.');
  }
  const mime = normalizeMediaType(type, 'type');
  const fileMetadata = validateMetadata(metadata, 'metadata');

  const id = newId();
  const now = ctx.now();
  const partSize = choosePartSize(size, ctx.config.partSize);
  const expiresAt = now + ctx.config.uploadUrlTtlSeconds * 1000;
  const row = {
    id,
    projectId: caller.project.id,
    name: sanitizeName(name),
    mime,
    size,
    createdAt: now,
    status: 'pending' as const,
    metadata: fileMetadata,
    partSize,
    storageUploadId: null,
    expiresAt,
    deletedAt: null,
  };
  // The row first: if the process dies before the storage side exists, the row still
  // expires and the sweeper cleans up whatever was created.
  await ctx.db.insertFile(row);
  const storageUploadId = await ctx.blobs.createMultipart(id, {
    size,
    partSize,
    contentType: mime,
  });
  await ctx.db.setStorageUploadId(id, storageUploadId);

  const response: SignResponse = {
    id,
    expiresAt,
    partSize,
    parts: await signParts(ctx, { ...row, storageUploadId }, partLayout(size, partSize), expiresAt),
  };
  reply.code(201).send(response);
}

function formatCap(bytes: number): string {
  return bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${bytes / 1_000_000} MB`;
}
