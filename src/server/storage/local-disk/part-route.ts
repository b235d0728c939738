import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_PARTS } from '../../../api/limits.js';
import type { PartUploadResponse } from '../../../api/types.js';
import { bodyChunks, contentLength, exactBytes } from '../../body.js';
import { fail, ServiceError } from '../../errors.js';
import { normalizeMediaType } from '../../media-type.js';
import { partLayout } from '../../records.js';
import { BlobBusyError, BlobNotFoundError } from '../blob-store.js';
import { isValidKey, type LocalDiskBlobStore, PartReplacedError } from './local-disk-store.js';

interface PartRequest {
  Params: { id: string; partNumber: string };
}

/**
 * `PUT /v1/uploads/:id/parts/:partNumber?expires=…&signature=…`, the local-disk store's
 * counterpart of a presigned S3 part URL: no Authorization, the signed URL is the
 * credential. The body must be exactly the signed length with the signed Content-Type.
 * Re-sending a part replaces it. Everything it checks is the store's own: the service's
 * database is not consulted, as it would not be on S3.
 */
export function partRouteHandler(store: LocalDiskBlobStore) {
  return async (request: FastifyRequest<PartRequest>, reply: FastifyReply): Promise<void> => {
    const { id } = request.params;
    const partNumber = parsePartNumber(request.params.partNumber);
    if (!isValidKey(id)) fail('not_found', 'No pending upload with this id.');
    const manifest = await store.manifest(id);
    if (!manifest) {
      if (await store.head(id)) fail('upload_not_pending');
      fail('not_found', 'No pending upload with this id.');
    }
    const part = partLayout(manifest.size, manifest.partSize)[partNumber - 1];
    if (!part) fail('not_found', `This upload has no part ${partNumber}.`);

    const check = store.signer.check(
      { uploadId: id, partNumber, size: part.size, type: manifest.contentType },
      request.raw.url ?? '',
      store.now(),
    );
    if (check === 'invalid') fail('invalid_signature');
    if (check === 'expired') fail('url_expired');
    const sentType = normalizeMediaType(request.headers['content-type'], 'Content-Type');
    if (sentType !== manifest.contentType) {
      fail(
        'invalid_signature',
        `The Content-Type header must be exactly the signed one (${manifest.contentType}); it is part of the signature.`,
      );
    }

    const mismatch = () =>
      new ServiceError('size_mismatch', `Part ${partNumber} must be exactly ${part.size} bytes.`, {
        extra: { expected: part.size },
      });
    const declared = contentLength(request);
    if (declared !== undefined && declared !== part.size) throw mismatch();

    let etag: string;
    try {
      ({ etag } = await store.writePart(
        id,
        part,
        exactBytes(bodyChunks(request.raw), part.size, mismatch),
      ));
    } catch (error) {
      if (error instanceof PartReplacedError) {
        fail('upload_incomplete', `${error.message}; this write of it was not kept.`, {
          extra: { missingParts: [partNumber], mismatchedParts: [] },
        });
      }
      if (error instanceof BlobBusyError) {
        fail('upload_not_pending', 'The upload is being completed or is complete.');
      }
      if (error instanceof BlobNotFoundError) {
        if (await store.head(id)) fail('upload_not_pending');
        fail('not_found', 'The upload was cancelled.');
      }
      throw error;
    }
    const body: PartUploadResponse = { partNumber, size: part.size, etag };
    reply.header('ETag', etag).send(body);
  };
}

function parsePartNumber(raw: string): number {
  if (!/^\d{1,5}$/.test(raw)) fail('not_found', 'No such part.');
  const value = Number(raw);
  if (value < 1 || value > MAX_PARTS) fail('not_found', 'No such part.');
  return value;
}
