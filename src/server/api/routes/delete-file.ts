import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { crashPoint } from '../../crash-points.js';
import { isDiskFull } from '../../disk-reserve.js';
import { fileEvent } from '../../events/file-events.js';
import { fail } from '../../http/errors.js';
import { purge } from '../../purge.js';
import { authenticate } from '../auth.js';

/**
 * `DELETE /v1/files/:id` (secret key): the row is marked first, so the file stops being
 * listed and served at once; then the bytes go. If removing them fails, the sweeper
 * finishes the job. On a pending upload this is how it is cancelled.
 */
export async function deleteFileHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { secretOnly: true });
  const event = fileEvent(ctx, 'file.deleted', 'deleted');
  const mark = () => ctx.db.markDeleted(caller.project.id, request.params.id, ctx.now(), event);
  let row: Awaited<ReturnType<typeof mark>>;
  try {
    row = await mark();
  } catch (error) {
    // Deleting is how space is freed, so it must work on a full disk: the reserve goes.
    if (!isDiskFull(error) || !(await ctx.reserve?.release())) throw error;
    row = await mark();
  }
  if (!row) fail('not_found', 'No file with this id.');
  ctx.events.kick();
  // Before the answer: once the client hears 204, the CDN must not serve it from memory.
  ctx.servingCache.forget(row.id);
  crashPoint('delete:marked');
  await purge(ctx, row).catch((error: unknown) => {
    request.log.warn({ err: error, id: row.id }, 'bytes not removed yet; the sweeper retries');
  });
  reply.code(204).send();
}
