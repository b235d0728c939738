import type { ImportState } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';
import type { Caller } from '../rules/auth.js';
import type { CoreContext } from '../rules/context.js';
import { toFileRecord } from '../rules/records.js';
import { requireUploadAccess } from '../rules/upload-access.js';

/** How long a failed import stays readable: a day (docs/api-imports.md). */
export const FAILED_IMPORT_VISIBLE_MS = 24 * 3_600_000;

/**
 * The file `id` of a project as a reader sees it: a pending or ready file, else a failed
 * import for a while after it failed (status `failed`, `importError`), so the page that
 * started it can say why; a failed import is never listed or served.
 */
export async function fileOrFailedImport(
  ctx: CoreContext,
  projectId: string,
  id: string,
): Promise<FileRow | null> {
  return (
    (await ctx.db.getVisibleFile(projectId, id)) ??
    (await ctx.db.getFailedImport(projectId, id, ctx.now() - FAILED_IMPORT_VISIBLE_MS))
  );
}

/**
 * `GET /v1/uploads/:id` of an import: its record, to whoever may act on the pending upload
 * it is (a publishable key or an upload token that shows the import's own token, as for a
 * signed upload; a secret key), from its start through its end, ready or failed. An upload
 * token may make this call, not `GET /v1/files/:id`, so a page holding only a token can
 * follow what it imported, and no more. Null when `id` is no import (the caller then answers
 * it as a signed upload, or as unknown); `not_found` for an import the caller may not see,
 * exactly as for an unknown id.
 */
export async function importStateOf(
  ctx: CoreContext,
  caller: Caller,
  id: string,
  token: unknown,
): Promise<ImportState | null> {
  const row = await fileOrFailedImport(ctx, caller.project.id, id);
  if (!row?.importState) return null;
  requireUploadAccess(caller, row, token);
  return { file: toFileRecord(ctx, row) };
}
