import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BATCH } from '../../../api/limits.js';
import { ID_PATTERN } from '../../../api/routes.js';
import type { CompleteBatchResponse, CompleteBatchResult } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { BATCH_JSON_LIMIT, isPlainObject, jsonDeadline, readJson } from '../../http/body.js';
import { ERROR_MESSAGES } from '../../http/error-messages.js';
import { atIndex, fail, ServiceError, serviceFault } from '../../http/errors.js';
import { authenticate } from '../auth.js';
import { type ClaimedPart, completeUpload, parseClaimedParts } from './complete-upload.js';

/** Uploads of one batch completed at once. */
const BATCH_CONCURRENCY = 8;

/**
 * `POST /v1/uploads/complete` with `{ "uploads": [ { "id", "parts"? }, … ] }` (1 to 100):
 * each upload completed as the single complete would, on its own, so one that cannot
 * complete does not hold the others back. `200 { "results": [ … ] }` in the same order,
 * each `{ "file": <record> }` or `{ "error": { "code", "message", … } }`. A malformed
 * batch is refused whole (`400 invalid_request`, with `index` when one entry is at fault).
 */
export async function completeBatchHandler(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { upload: 'continue' });
  const body = await readJson(request, { limit: BATCH_JSON_LIMIT, deadlineMs: jsonDeadline(ctx) });
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  const { uploads } = body;
  if (!Array.isArray(uploads) || uploads.length < 1 || uploads.length > MAX_BATCH) {
    fail('invalid_request', `uploads must be an array of 1 to ${MAX_BATCH} uploads to complete.`);
  }
  const entries = uploads.map((entry: unknown, index) => {
    try {
      return parseEntry(entry);
    } catch (error) {
      throw atIndex(error, index, 'uploads');
    }
  });

  const results: CompleteBatchResult[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const index = next++;
      const { id, claimed, token } = entries[index] as BatchEntry;
      try {
        // An id of another shape names nothing, as on the single route.
        if (!ID_PATTERN.test(id)) fail('not_found', 'No upload with this id.');
        results[index] = { file: await completeUpload(ctx, caller, id, claimed, token) };
      } catch (error) {
        const failure = itemError(error, request, id);
        // The status a single complete would answer, so a client needs no table of codes.
        results[index] = { error: { ...failure.toBody().error, status: failure.status } };
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(BATCH_CONCURRENCY, entries.length) }, () => worker()),
  );
  const response: CompleteBatchResponse = { results };
  reply.send(response);
}

interface BatchEntry {
  id: string;
  claimed: ClaimedPart[];
  /** The upload's token (`uploadToken`), needed with a publishable key. */
  token: string | undefined;
}

function parseEntry(entry: unknown): BatchEntry {
  if (
    !isPlainObject(entry) ||
    typeof entry.id !== 'string' ||
    (entry.uploadToken !== undefined && typeof entry.uploadToken !== 'string')
  ) {
    fail(
      'invalid_request',
      'Each of uploads must be { "id": "<upload id>", "uploadToken"?: "<token>", "parts"?: [ … ] }.',
    );
  }
  return {
    id: entry.id,
    claimed: parseClaimedParts({ parts: entry.parts }),
    token: entry.uploadToken as string | undefined,
  };
}

/**
 * One upload's failure as its result: the documented error it would have had alone. A
 * store's fault is the service's (`unavailable`, `insufficient_storage`: retry that one
 * later); anything unexpected is `internal_error`, logged, never shown.
 */
export function itemError(error: unknown, request: FastifyRequest, id: string): ServiceError {
  if (error instanceof ServiceError) return error;
  const fault = serviceFault(error);
  if (fault) {
    request.log.warn({ err: error, id }, 'a store failed while completing one of a batch');
    return fault;
  }
  request.log.error({ err: error, id }, 'completing one of a batch failed');
  return new ServiceError('internal_error', ERROR_MESSAGES.internal_error);
}
