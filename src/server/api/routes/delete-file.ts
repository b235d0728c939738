import type { ServiceContext } from '../../context.js';
import { fileEvent } from '../../events/file-events.js';
import { removeFile } from '../../files/remove.js';
import { fail } from '../../ground/errors.js';
import type { RouteInput } from '../route-input.js';

/**
 * `DELETE /v1/files/:id` (secret key): the file stops being listed and served at once, its
 * bytes go, or the sweeper finishes the job (`removeFile`). On a pending upload this is how
 * it is cancelled.
 */
export async function deleteFileHandler(
  ctx: ServiceContext,
  { request, reply, caller }: RouteInput<'deleteFile', { id: string }>,
): Promise<void> {
  const event = fileEvent(ctx, 'file.deleted', 'deleted');
  const row = await removeFile(ctx, caller.project.id, request.params.id, { event });
  if (!row) fail('not_found', 'No file with this id.');
  reply.code(204).send();
}
