import type { ServiceContext } from './context.js';
import type { FileRow } from './db/metadata-store.js';

/**
 * Removes the bytes of a deleted row (its derived objects, such as image variants, and any
 * upload left open for it), then records that.
 */
export async function purge(ctx: ServiceContext, row: FileRow): Promise<void> {
  await ctx.blobs.deleteDerived(row.id);
  await ctx.db.removeVariants(row.id);
  await ctx.blobs.delete(row.id, row.storageUploadId);
  await ctx.db.markPurged(row.id);
}
