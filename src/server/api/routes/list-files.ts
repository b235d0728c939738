import type { FileListResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { toFileRecord } from '../../rules/records.js';
import { formatCursor, type ListQuery, listPage } from '../list-cursor.js';
import type { RouteInput } from '../route-input.js';

/** `GET /v1/files`: keyset paging, newest first; `nextCursor` is null exactly at the end. */
export async function listFilesHandler(
  ctx: ServiceContext,
  { reply, caller, query }: RouteInput<'listFiles', unknown, ListQuery>,
): Promise<void> {
  const { after, limit } = listPage(query);
  // One row more than asked tells whether anything remains after this page.
  const rows = await ctx.db.listFiles(caller.project.id, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const body: FileListResponse = {
    files: page.map((row) => toFileRecord(ctx, row)),
    nextCursor: rows.length > limit && last ? formatCursor(last) : null,
  };
  reply.send(body);
}
