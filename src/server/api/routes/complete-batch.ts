import type { CompleteBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { type CompleteEntry, completeUploads } from '../../uploads/complete.js';
import { claimedParts } from '../claimed-parts.js';
import type { RouteInput } from '../route-input.js';

/**
 * `POST /v1/uploads/complete` with `{ "uploads": [ { "id", "parts"? }, … ] }` (1 to 100):
 * each upload completed as the single complete would, on its own, so one that cannot
 * complete does not hold the others back. `200 { "results": [ … ] }` in the same order,
 * each `{ "file": <record> }` or `{ "error": { "code", "message", … } }`. A malformed
 * batch is refused whole (`400 invalid_request`, with `index` when one entry is at fault).
 */
export async function completeBatchHandler(
  ctx: ServiceContext,
  { request, reply, caller, body: { uploads } }: RouteInput<'completeUploads'>,
): Promise<void> {
  const entries: CompleteEntry[] = uploads.map(({ id, parts, uploadToken }) => ({
    id,
    claimed: claimedParts(parts),
    token: uploadToken,
  }));

  const response: CompleteBatchResponse = {
    results: await whileServiceWorks(request, () =>
      completeUploads(ctx, caller, entries, request.log),
    ),
  };
  reply.send(response);
}
