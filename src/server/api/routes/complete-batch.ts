import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BATCH } from '../../../api/limits.js';
import type { CompleteBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { BATCH_JSON_LIMIT, isPlainObject, jsonDeadline, readJson } from '../../http/body.js';
import { atIndex, fail } from '../../http/errors.js';
import { type CompleteEntry, completeUploads } from '../../uploads/complete.js';
import { authenticate } from '../auth.js';
import { parseClaimedParts } from '../claimed-parts.js';

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

  const response: CompleteBatchResponse = {
    results: await completeUploads(ctx, caller, entries, request.log),
  };
  reply.send(response);
}

function parseEntry(entry: unknown): CompleteEntry {
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
