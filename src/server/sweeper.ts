import type { ServiceContext } from './context.js';
import type { FileRow } from './db/metadata-store.js';

const BATCH = 100;

/** Removes the bytes of a deleted row, then records that they are gone. */
export async function purge(ctx: ServiceContext, row: FileRow): Promise<void> {
  await ctx.blobs.delete(row.id, row.storageUploadId);
  await ctx.db.markPurged(row.id);
}

/**
 * Once at start, before serving: what a crash left behind. `receiving` rows are
 * one-request uploads that never finished; their bytes (if any) go with them.
 */
export async function recover(ctx: ServiceContext): Promise<void> {
  await ctx.blobs.recover();
  for (;;) {
    const rows = await ctx.db.listReceiving(BATCH);
    for (const row of rows) {
      await ctx.blobs.delete(row.id);
      await ctx.db.discardReceiving(row.id);
    }
    if (rows.length < BATCH) break;
  }
  await sweep(ctx);
}

/** Periodic: abandoned pending uploads expire; deleted rows whose bytes remain are purged. */
export async function sweep(ctx: ServiceContext): Promise<{ expired: number; purged: number }> {
  let expired = 0;
  let purged = 0;
  const cutoff = ctx.now() - ctx.config.pendingGraceSeconds * 1000;
  for (;;) {
    const rows = await ctx.db.listExpiredPending(cutoff, BATCH);
    for (const row of rows) {
      if (await ctx.db.expirePending(row.id, ctx.now())) expired++;
    }
    if (rows.length < BATCH) break;
  }
  for (;;) {
    const rows = await ctx.db.listDeletedUnpurged(BATCH);
    let progressed = 0;
    for (const row of rows) {
      try {
        await purge(ctx, row);
        progressed++;
      } catch (error) {
        ctx.log.warn({ err: error, id: row.id }, 'could not remove the bytes of a deleted file');
      }
    }
    purged += progressed;
    // A batch that made no progress would only be read again: try it at the next sweep.
    if (rows.length < BATCH || progressed === 0) break;
  }
  return { expired, purged };
}
