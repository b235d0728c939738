import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FileRecord } from '../../api/types.js';
import { authenticate, type Caller } from '../auth.js';
import { isPlainObject, readJson } from '../body.js';
import type { ServiceContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { fail } from '../errors.js';
import { partLayout, toFileRecord } from '../records.js';
import { BlobBusyError, BlobNotFoundError, type HeldPart } from '../storage/blob-store.js';
import { heldParts, multipartOf } from './upload-state.js';

/**
 * `POST /v1/uploads/:id/complete`: checks every part arrived whole (and, if the client
 * lists its ETags, that they are the parts it sent), then makes the file `ready`.
 * Completing a ready file answers the same record again.
 */
export async function completeUploadHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request);
  const claimed = parseClaimedParts(await readJson(request));
  reply.send(await completeUpload(ctx, caller, request.params.id, claimed));
}

/**
 * Completes one upload of the caller's project (the single complete, and each entry of a
 * batch): the ready file's record, or the documented error thrown.
 */
export async function completeUpload(
  ctx: ServiceContext,
  caller: Caller,
  id: string,
  claimed: ClaimedPart[],
): Promise<FileRecord> {
  const row = await ctx.db.getVisibleFile(caller.project.id, id);
  if (!row) fail('not_found', 'No upload with this id.');
  if (row.status === 'ready' || row.partSize === null) return toFileRecord(ctx, row);

  const layout = partLayout(row.size, row.partSize);
  const held = await heldParts(ctx, row);
  if (held === null) {
    // The store has no such upload open: a racing complete finished it (the object is
    // there), or the upload was cancelled.
    if (!(await ctx.blobs.head(row.id))) fail('not_found', 'The upload was cancelled.');
  } else {
    const missingParts = layout
      .filter((part) => held.get(part.partNumber)?.size !== part.size)
      .map((part) => part.partNumber);
    const mismatchedParts = claimed
      .filter((part) => held.get(part.partNumber)?.etag !== part.etag)
      .map((part) => part.partNumber);
    if (missingParts.length > 0 || mismatchedParts.length > 0) {
      fail(
        'upload_incomplete',
        missingParts.length > 0
          ? `${missingParts.length} of ${layout.length} parts have not arrived whole.`
          : 'Some ETags do not match the parts the service holds.',
        { extra: { missingParts, mismatchedParts } },
      );
    }
    try {
      await ctx.blobs.completeMultipart(
        multipartOf(row),
        layout.map((part) => ({
          partNumber: part.partNumber,
          etag: (held.get(part.partNumber) as HeldPart).etag,
        })),
      );
    } catch (error) {
      if (error instanceof BlobBusyError) {
        fail(
          'upload_incomplete',
          'A part is still being uploaded; complete once it has finished.',
          { extra: { missingParts: [], mismatchedParts: [] } },
        );
      }
      if (error instanceof BlobNotFoundError) fail('not_found', 'The upload was cancelled.');
      throw error;
    }
  }
  crashPoint('complete:renamed');
  await ctx.db.markReady(row.id, 'pending', {});
  const now = await ctx.db.getVisibleFile(caller.project.id, row.id);
  if (!now) fail('not_found', 'The upload was cancelled.');
  return toFileRecord(ctx, now);
}

/** A part the client says it sent, with the ETag its PUT answered. */
export interface ClaimedPart {
  partNumber: number;
  etag: string;
}

/** The parts a complete body lists (`{ "parts": [ … ] }`, optional); none when absent. */
export function parseClaimedParts(body: unknown): ClaimedPart[] {
  if (body === undefined) return [];
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  if (body.parts === undefined) return [];
  if (!Array.isArray(body.parts)) fail('invalid_request', 'parts must be an array.');
  return body.parts.map((part: unknown) => {
    if (
      !isPlainObject(part) ||
      !Number.isSafeInteger(part.partNumber) ||
      typeof part.etag !== 'string'
    ) {
      fail(
        'invalid_request',
        'Each of parts must be { "partNumber": <integer>, "etag": "<string>" }.',
      );
    }
    return { partNumber: part.partNumber as number, etag: part.etag };
  });
}
