import type { ServiceContext } from '../../context.js';
import { fail } from '../../ground/errors.js';
import { fileOrFailedImport } from '../../imports/import-state.js';
import { toFileRecord } from '../../rules/records.js';
import type { RouteInput } from '../route-input.js';

/**
 * `GET /v1/files/:id`: another project's id is simply not found. A failed import stays
 * readable for a while (`fileOrFailedImport`).
 */
export async function getFileHandler(
  ctx: ServiceContext,
  { request, reply, caller }: RouteInput<'getFile', { id: string }>,
): Promise<void> {
  const row = await fileOrFailedImport(ctx, caller.project.id, request.params.id);
  if (!row) fail('not_found', 'No file with this id.');
  reply.send(toFileRecord(ctx, row));
}
