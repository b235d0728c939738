import type { ServiceContext } from '../../context.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { UPLOAD_TOKEN_HEADER } from '../../rules/upload-access.js';
import { completeUpload } from '../../uploads/complete.js';
import { claimedParts } from '../claimed-parts.js';
import type { RouteInput } from '../route-input.js';

/**
 * `POST /v1/uploads/:id/complete`: checks every part arrived whole (and, if the client
 * lists its ETags, that they are the parts it sent), then makes the file `ready`
 * (`uploads/complete.ts`). Completing a ready file answers the same record again, unless
 * the parts named are not those it was completed with (`409 upload_conflict`).
 */
export async function completeUploadHandler(
  ctx: ServiceContext,
  { request, reply, caller, body }: RouteInput<'completeUpload', { id: string }>,
): Promise<void> {
  // An empty body names no parts.
  const claimed = claimedParts(body?.parts);
  const token = request.headers[UPLOAD_TOKEN_HEADER];
  // Its scan may wait its turn, or take long: the client is not idle, the service is busy.
  const record = await whileServiceWorks(request, () =>
    completeUpload(ctx, caller, { id: request.params.id, claimed, token }),
  );
  reply.send(record);
}
