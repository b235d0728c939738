import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_PARTS } from '../../api/limits.js';
import type { PartUploadResponse } from '../../api/types.js';
import { bodyChunks, contentLength, exactBytes } from '../body.js';
import type { ServiceContext } from '../context.js';
import { fail, ServiceError } from '../errors.js';
import { normalizeMediaType } from '../media-type.js';
import { partLayout } from '../records.js';
import { BlobBusyError, BlobNotFoundError } from '../storage/blob-store.js';

interface PartRequest {
  Params: { id: string; partNumber: string };
  Querystring: Record<string, unknown>;
}

/**
 * `PUT /v1/uploads/:id/parts/:partNumber?expires=…&signature=…`: no Authorization, the
 * signed URL is the credential. The body must be exactly the signed length with the signed
 * Content-Type. Re-sending a part replaces it.
 */
export async function putPartHandler(
  ctx: ServiceContext,
  request: FastifyRequest<PartRequest>,
  reply: FastifyReply,
): Promise<void> {
  const { id } = request.params;
  const partNumber = parsePartNumber(request.params.partNumber);
  const row = await ctx.db.getLiveFile(id);
  if (!row || row.partSize === null || row.status === 'receiving') {
    fail('not_found', 'No pending upload with this id.');
  }
  const part = partLayout(row.size, row.partSize)[partNumber - 1];
  if (!part) fail('not_found', `This upload has no part ${partNumber}.`);

  const check = ctx.signer.check(
    { uploadId: id, partNumber, size: part.size, type: row.mime },
    request.query.expires,
    request.query.signature,
    ctx.now(),
  );
  if (check === 'invalid') fail('invalid_signature');
  if (check === 'expired') fail('url_expired');
  const sentType = normalizeMediaType(request.headers['content-type'], 'Content-Type');
  if (sentType !== row.mime) {
    fail(
      'invalid_signature',
      `The Content-Type header must be exactly the signed one (${row.mime}); it is part of the signature.`,
    );
  }
  if (row.status === 'ready') fail('upload_not_pending');

  const mismatch = () =>
    new ServiceError('size_mismatch', `Part ${partNumber} must be exactly ${part.size} bytes.`, {
      extra: { expected: part.size },
    });
  const declared = contentLength(request);
  if (declared !== undefined && declared !== part.size) throw mismatch();

  // The part stops counting as whole before its bytes start changing.
  await ctx.db.clearPart(id, partNumber);
  let etag: string;
  try {
    ({ etag } = await ctx.blobs.writePart(
      id,
      row.storageUploadId ?? id,
      part,
      exactBytes(bodyChunks(request.raw), part.size, mismatch),
    ));
  } catch (error) {
    if (error instanceof BlobNotFoundError || error instanceof BlobBusyError) {
      const now = await ctx.db.getLiveFile(id);
      if (!now) fail('not_found', 'The upload was cancelled.');
      fail('upload_not_pending', 'The upload is being completed or is complete.');
    }
    throw error;
  }
  await ctx.db.putPart(id, { partNumber, size: part.size, etag });
  const body: PartUploadResponse = { partNumber, size: part.size, etag };
  reply.header('ETag', etag).send(body);
}

function parsePartNumber(raw: string): number {
  if (!/^\d{1,5}$/.test(raw)) fail('not_found', 'No such part.');
  const value = Number(raw);
  if (value < 1 || value > MAX_PARTS) fail('not_found', 'No such part.');
  return value;
}
