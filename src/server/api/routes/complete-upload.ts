import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FileRecord } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { crashPoint } from '../../crash-points.js';
import type { CompletedPart, FileRow } from '../../db/metadata-store.js';
import { fileEvent } from '../../events/file-events.js';
import { isPlainObject, jsonDeadline, readJson } from '../../http/body.js';
import { fail } from '../../http/errors.js';
import { type Ingested, ingestStored } from '../../ingest/ingest.js';
import { purge } from '../../purge.js';
import { BlobBusyError, BlobNotFoundError, type HeldPart } from '../../storage/blob-store.js';
import { authenticate, type Caller } from '../auth.js';
import { partLayout, toFileRecord } from '../records.js';
import { readHead, requireAllowedType, storedType, typeAllowed } from '../stored-type.js';
import { pendingExpiry, UPLOAD_TOKEN_HEADER } from '../upload-access.js';
import { heldParts, lastPartArrival, multipartOf, multiStepUpload } from './upload-state.js';

/**
 * `POST /v1/uploads/:id/complete`: checks every part arrived whole (and, if the client
 * lists its ETags, that they are the parts it sent), then makes the file `ready`, keeping
 * the ETags it was completed with. Completing a ready file answers the same record again,
 * unless the parts named are not those it was completed with (`409 upload_conflict`: the
 * file holds other bytes than the caller sent).
 */
export async function completeUploadHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { upload: 'continue' });
  const claimed = parseClaimedParts(await readJson(request, { deadlineMs: jsonDeadline(ctx) }));
  const token = request.headers[UPLOAD_TOKEN_HEADER];
  reply.send(await completeUpload(ctx, caller, request.params.id, claimed, token));
}

/**
 * Completes one upload of the caller's project (the single complete, and each entry of a
 * batch), for a caller that may act on it (`token`: see `requireUploadAccess`): the ready
 * file's record, or the documented error thrown.
 */
export async function completeUpload(
  ctx: ServiceContext,
  caller: Caller,
  id: string,
  claimed: ClaimedPart[],
  token: unknown,
): Promise<FileRecord> {
  const row = await multiStepUpload(ctx, caller, id, token);
  if (row.status === 'ready') return readyRecord(ctx, row, claimed);

  const layout = partLayout(row.size, row.partSize);
  const held = await heldParts(ctx, row);
  // An upload past its expiry holds no room any more (the quota and its token gave it
  // back then), so it cannot become a file: as `GET /v1/uploads/:id` answers it.
  if (pendingExpiry(ctx.config, row.createdAt, lastPartArrival(held)) <= ctx.now()) {
    fail('not_found', 'The upload expired.');
  }
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
  // `held` is null when the object was made before (a racing complete, or one that crashed
  // or met an unreachable scanner): the type, the scan and the metadata are seen to again,
  // as the row is still pending; the ETags are those of the complete that made it.
  const mime = await storedType(row.mime, await readHead(ctx.blobs, row.id, row.size));
  // The token that signed it bounds its type too, whoever completes it.
  const signer = row.tokenId === null ? null : await ctx.db.getUploadToken(row.tokenId);
  const tokenTypes = signer?.policy.types ?? null;
  if (!typeAllowed(caller.project.allowedTypes, mime) || !typeAllowed(tokenTypes, mime)) {
    await discard(ctx, caller, row);
    requireAllowedType(caller.project.allowedTypes, mime, 'recognised');
    requireAllowedType(tokenTypes, mime, 'recognised');
  }
  const ready: { completedParts?: CompletedPart[]; mime: string } & Ingested = {
    mime,
    ...(await ingestStored(ctx, row, 'pending', mime)),
  };
  if (held) {
    ready.completedParts = layout.map(({ partNumber }) => ({
      partNumber,
      etag: (held.get(partNumber) as HeldPart).etag,
    }));
  }
  if (await ctx.db.markReady(row.id, 'pending', ready, fileEvent(ctx, 'file.ready'))) {
    crashPoint('event:recorded');
    ctx.events.kick();
  }
  const now = await ctx.db.getVisibleFile(caller.project.id, row.id);
  if (!now) fail('not_found', 'The upload was cancelled.');
  return readyRecord(ctx, now, claimed);
}

/**
 * Takes back an upload whose bytes the project does not accept, as `DELETE` of a pending
 * upload does: the row marked deleted at once (so it is listed and served nowhere), then
 * its bytes removed; what cannot be removed now the sweeper purges.
 */
async function discard(ctx: ServiceContext, caller: Caller, row: FileRow): Promise<void> {
  if (!(await ctx.db.markDeleted(caller.project.id, row.id, ctx.now()))) return;
  try {
    await purge(ctx, row);
  } catch (error) {
    ctx.log.warn(
      { err: error, id: row.id },
      'the bytes of a refused upload are left to the sweeper',
    );
  }
}

/**
 * A ready upload's record, for a caller whose named parts (if any) are those it was
 * completed with. Uploads completed before the service kept their ETags are not checked.
 */
function readyRecord(ctx: ServiceContext, row: FileRow, claimed: ClaimedPart[]): FileRecord {
  const kept = new Map(row.completedParts?.map((part: CompletedPart) => [part.partNumber, part]));
  const conflicting = row.completedParts
    ? claimed.filter((part) => kept.get(part.partNumber)?.etag !== part.etag)
    : [];
  if (conflicting.length > 0) {
    fail('upload_conflict', undefined, {
      extra: { conflictingParts: conflicting.map((part) => part.partNumber) },
    });
  }
  return toFileRecord(ctx, row);
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
