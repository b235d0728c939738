import type { EventDraft, FileRow } from '../db/metadata-store.js';
import { crashPoint } from '../ground/crash-points.js';
import type { CoreContext } from '../rules/context.js';
import { isDiskFull } from '../storage/disk-reserve.js';

/** How a removal is told apart: its event, and what the caller knows of the upload. */
export interface RemoveOptions {
  /** Recorded with the change (`file.deleted` for DELETE and expiry); none for a take-back. */
  event?: EventDraft;
  /**
   * The multipart upload made for the row when the row may not record it yet (a failed
   * sign's take-back: the storage side was created, its id not stored).
   */
  storageUploadId?: string | null;
}

/**
 * Removes a file (ready, or a pending upload: how one is cancelled or taken back): the row
 * is marked deleted first, so it stops being listed and served at once, and the CDN forgets
 * it before anyone hears it is gone; then its bytes go. Bytes that cannot be removed now
 * are left to the sweeper (the row stays deleted and unpurged). Marking works on a full
 * disk too: deleting is how space is freed, so the disk's reserve is given up for it.
 * Answers the row as it was; null when there is no such visible file.
 *
 * Every removal goes through here: `DELETE /v1/files/:id`, a type refused at complete, a
 * failed sign's take-back, and a `deleteAt` that came.
 */
export async function removeFile(
  ctx: CoreContext,
  projectId: string,
  id: string,
  options: RemoveOptions = {},
): Promise<FileRow | null> {
  const mark = () => ctx.db.markDeleted(projectId, id, ctx.now(), options.event);
  let row: FileRow | null;
  try {
    row = await mark();
  } catch (error) {
    if (!isDiskFull(error) || !(await ctx.reserve?.release())) throw error;
    row = await mark();
  }
  if (!row) return null;
  if (options.event) ctx.events.kick();
  // Before the answer: once the client hears the file is gone, the CDN must not serve it
  // from memory.
  ctx.servingCache.forget(row.id);
  crashPoint('delete:marked');
  const storageUploadId = options.storageUploadId ?? row.storageUploadId;
  const removed = row;
  await purge(ctx, { ...row, storageUploadId }).catch((error: unknown) => {
    ctx.log.warn({ err: error, id: removed.id }, 'bytes not removed yet; the sweeper retries');
  });
  return row;
}

/**
 * Removes the bytes of a deleted row (its derived objects, such as image variants, and any
 * upload left open for it), then records that.
 */
export async function purge(ctx: CoreContext, row: FileRow): Promise<void> {
  await ctx.blobs.deleteDerived(row.id);
  await ctx.db.removeVariants(row.id);
  await ctx.blobs.delete(row.id, row.storageUploadId);
  await ctx.db.markPurged(row.id);
}
