import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { jsonDeadline, readJson } from '../../http/body.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { check } from '../../http/validate.js';
import { completeUpload } from '../../uploads/complete.js';
import { authenticate } from '../auth.js';
import { claimedParts } from '../claimed-parts.js';
import { UPLOAD_TOKEN_HEADER } from '../upload-access.js';

/**
 * `POST /v1/uploads/:id/complete`: checks every part arrived whole (and, if the client
 * lists its ETags, that they are the parts it sent), then makes the file `ready`
 * (`uploads/complete.ts`). Completing a ready file answers the same record again, unless
 * the parts named are not those it was completed with (`409 upload_conflict`).
 */
export async function completeUploadHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { upload: 'continue' });
  const body = await readJson(request, { deadlineMs: jsonDeadline(ctx) });
  // An empty body names no parts; any other is of the schema's form.
  const claimed = claimedParts(body === undefined ? [] : check('CompleteRequest', body).parts);
  const token = request.headers[UPLOAD_TOKEN_HEADER];
  // Its scan may wait its turn, or take long: the client is not idle, the service is busy.
  const record = await whileServiceWorks(request, () =>
    completeUpload(ctx, caller, { id: request.params.id, claimed, token }),
  );
  reply.send(record);
}
