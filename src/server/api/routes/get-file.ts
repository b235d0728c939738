import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { fail } from '../../http/errors.js';
import { authenticate } from '../auth.js';
import { toFileRecord } from '../records.js';

/** How long `GET /v1/files/:id` shows a failed import: a day (docs/api-imports.md). */
export const FAILED_IMPORT_VISIBLE_MS = 24 * 3_600_000;

/** `GET /v1/files/:id`: another project's id is simply not found. */
export async function getFileHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request);
  const { id } = request.params;
  const row =
    (await ctx.db.getVisibleFile(caller.project.id, id)) ??
    // A failed import stays visible for a while (status `failed`, `importError`), so the
    // page that started it can say why; it is never listed.
    (await ctx.db.getFailedImport(caller.project.id, id, ctx.now() - FAILED_IMPORT_VISIBLE_MS));
  if (!row) fail('not_found', 'No file with this id.');
  reply.send(toFileRecord(ctx, row));
}
