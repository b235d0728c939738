import type { FastifyBaseLogger } from 'fastify';
import { ID_PATTERN } from '../../api/routes.js';
import type { CompleteBatchResult, FileRecord } from '../../api/types.js';
import type { CompletedPart, FileRow } from '../db/metadata-store.js';
import { fileEvent } from '../events/file-events.js';
import { removeFile } from '../files/remove.js';
import { crashPoint } from '../ground/crash-points.js';
import { ERROR_MESSAGES } from '../ground/error-messages.js';
import { fail, ServiceError } from '../ground/errors.js';
import { type Ingested, ingestStored } from '../ingest/ingest.js';
import type { IngestContext } from '../ingest/ingest-context.js';
import type { Caller } from '../rules/auth.js';
import { partLayout, toFileRecord } from '../rules/records.js';
import { serviceFault } from '../rules/service-fault.js';
import { readHead, requireAllowedType, storedType, typeAllowed } from '../rules/stored-type.js';
import { BlobBusyError, BlobNotFoundError, type HeldPart } from '../storage/blob-store.js';
import { expiryByHeldParts, heldParts, multipartOf, multiStepUpload } from './parts.js';

/** Uploads of one batch completed at once. */
const BATCH_CONCURRENCY = 8;

/** A part the client says it sent, with the ETag its PUT answered. */
export interface ClaimedPart {
  partNumber: number;
  etag: string;
}

/** One upload to complete: its id, the parts named, and its upload token if shown. */
export interface CompleteEntry {
  id: string;
  claimed: ClaimedPart[];
  /** The upload's token (header or `uploadToken`), needed with a publishable key. */
  token: unknown;
}

/**
 * Completes one upload of the caller's project (the single complete, and each entry of a
 * batch), for a caller that may act on it (`token`: see `requireUploadAccess`): checks
 * every part arrived whole (and, if the client lists its ETags, that they are the parts it
 * sent), then makes the file `ready`, keeping the ETags it was completed with. Completing
 * a ready file answers the same record again, unless the parts named are not those it was
 * completed with (`409 upload_conflict`). Answers the ready file's record, or throws the
 * documented error.
 */
export async function completeUpload(
  ctx: IngestContext,
  caller: Caller,
  { id, claimed, token }: CompleteEntry,
): Promise<FileRecord> {
  const row = await multiStepUpload(ctx, caller, id, token);
  if (row.status === 'ready') return readyRecord(ctx, row, claimed);

  const layout = partLayout(row.size, row.partSize);
  const held = await heldParts(ctx, row);
  // An upload past its expiry holds no room any more (the quota and its token gave it
  // back then), so it cannot become a file: as `GET /v1/uploads/:id` answers it.
  if (expiryByHeldParts(ctx, row, held) <= ctx.now()) {
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
    // Bytes the project does not accept are taken back, as `DELETE` of a pending upload.
    await removeFile(ctx, caller.project.id, row.id);
    ctx.metrics?.upload('refused');
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
    ctx.metrics?.upload('ready');
  }
  const now = await ctx.db.getVisibleFile(caller.project.id, row.id);
  if (!now) fail('not_found', 'The upload was cancelled.');
  return readyRecord(ctx, now, claimed);
}

/**
 * Completes each upload of a batch as `completeUpload` would, on its own, a few at a time,
 * so one that cannot complete does not hold the others back: the results in the same
 * order, each `{ file }` or `{ error }` (the documented error it would have had alone,
 * with its status, so a client needs no table of codes).
 */
export async function completeUploads(
  ctx: IngestContext,
  caller: Caller,
  entries: CompleteEntry[],
  log: FastifyBaseLogger,
): Promise<CompleteBatchResult[]> {
  const results: CompleteBatchResult[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const index = next++;
      const entry = entries[index] as CompleteEntry;
      try {
        // An id of another shape names nothing, as on the single route.
        if (!ID_PATTERN.test(entry.id)) fail('not_found', 'No upload with this id.');
        results[index] = { file: await completeUpload(ctx, caller, entry) };
      } catch (error) {
        const failure = itemError(error, log, entry.id);
        results[index] = { error: { ...failure.toBody().error, status: failure.status } };
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(BATCH_CONCURRENCY, entries.length) }, () => worker()),
  );
  return results;
}

/**
 * One upload's failure as its result: the documented error it would have had alone. A
 * store's fault is the service's (`unavailable`, `insufficient_storage`: retry that one
 * later); anything unexpected is `internal_error`, logged, never shown.
 */
export function itemError(error: unknown, log: FastifyBaseLogger, id: string): ServiceError {
  if (error instanceof ServiceError) return error;
  const fault = serviceFault(error);
  if (fault) {
    log.warn({ err: error, id }, 'a store failed while completing one of a batch');
    return fault;
  }
  log.error({ err: error, id }, 'completing one of a batch failed');
  return new ServiceError('internal_error', ERROR_MESSAGES.internal_error);
}

/**
 * A ready upload's record, for a caller whose named parts (if any) are those it was
 * completed with. Uploads completed before the service kept their ETags are not checked.
 */
function readyRecord(ctx: IngestContext, row: FileRow, claimed: ClaimedPart[]): FileRecord {
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
