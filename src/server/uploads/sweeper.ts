import type { FileRow } from '../db/metadata-store.js';
import { fileEvent } from '../events/file-events.js';
import { purge, removeFile } from '../files/remove.js';
import { failAbandonedImports } from '../imports/importer.js';
import type { IngestContext } from '../ingest/ingest-context.js';
import { abortReceiving } from './abort.js';
import { expiryByHeldParts, heldParts, lastPartArrival } from './parts.js';

const BATCH = 100;
/** Events are kept this long for `GET /v1/events` and redelivery (decisions.md: 30 days). */
export const EVENT_RETENTION_MS = 30 * 24 * 3_600_000;

export interface SweepResult {
  expired: number;
  /** Ready files whose `deleteAt` came. */
  deleted: number;
  purged: number;
  /** One-request uploads whose receiving instance stopped renewing its lease (it died). */
  abandoned: number;
}

/**
 * Once at start, before serving: what a crash left behind. With `exclusive` (this process
 * owns the data directory, so nothing else is receiving) every `receiving` row is a
 * one-request upload that died with an earlier process; their bytes go with them. Instances
 * that share their stores leave those rows to the sweep, which removes them only once their
 * lease has run out.
 */
export async function recover(ctx: IngestContext, options: { exclusive: boolean }): Promise<void> {
  await ctx.blobs.recover();
  if (options.exclusive) {
    for (;;) {
      const rows = await ctx.db.listReceiving(BATCH);
      for (const row of rows) await abortReceiving(ctx, row.id);
      if (rows.length < BATCH) break;
    }
    // Likewise every import under way: it died with the process that fetched it.
    await failAbandonedImports(ctx, Number.MAX_SAFE_INTEGER);
  }
  await sweep(ctx);
}

/** A pending upload's expiry by what its store holds; its row's when the store cannot say. */
async function expiryByParts(ctx: IngestContext, row: FileRow): Promise<number> {
  const recorded = row.expiresAt ?? row.createdAt;
  if (row.partSize === null) return recorded;
  try {
    const held = await heldParts(ctx, row);
    return lastPartArrival(held) === null
      ? recorded
      : Math.max(recorded, expiryByHeldParts(ctx, row, held));
  } catch (error) {
    ctx.log.warn({ err: error, id: row.id }, 'could not list the parts of an expiring upload');
    return recorded;
  }
}

/**
 * Periodic, on one instance at a time (the others skip it): abandoned pending uploads
 * expire; deleted rows whose bytes remain are purged (which aborts their multipart upload
 * in the store too); one-request uploads whose lease ran out are removed.
 */
export async function sweep(ctx: IngestContext): Promise<SweepResult> {
  const outcome = await ctx.db.runExclusive('sweep', () => sweepNow(ctx));
  return outcome.ran ? outcome.value : { expired: 0, deleted: 0, purged: 0, abandoned: 0 };
}

/**
 * How often files whose `deleteAt` came are looked for, at most: the CDN must stop serving
 * them within a minute of it, whatever the sweep's own interval.
 */
export const DELETE_DUE_INTERVAL_MS = 10_000;

/**
 * Deletes the ready files whose `deleteAt` has come, each once however many instances look
 * at once (the row is marked deleted only if it is still visible, and the event is recorded
 * with that change: one `file.deleted` with `"reason": "expired"`); their bytes go with the
 * sweep's purge. On one instance at a time, as the sweep.
 */
export async function deleteDueFiles(ctx: IngestContext): Promise<number> {
  const outcome = await ctx.db.runExclusive('delete-due', () => deleteDueNow(ctx));
  return outcome.ran ? outcome.value : 0;
}

async function deleteDueNow(ctx: IngestContext): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await ctx.db.listDueForDeletion(ctx.now(), BATCH);
    for (const row of rows) {
      const event = fileEvent(ctx, 'file.deleted', 'expired');
      if (await removeFile(ctx, row.projectId, row.id, { event })) deleted++;
    }
    if (rows.length < BATCH) return deleted;
  }
}

async function sweepNow(ctx: IngestContext): Promise<SweepResult> {
  // A reserve given up for a delete on a full disk comes back once there is room.
  await ctx.reserve?.ensure();
  let expired = 0;
  const deleted = await deleteDueFiles(ctx);
  let purged = 0;
  let abandoned = 0;
  const cutoff = ctx.now() - ctx.config.pendingGraceSeconds * 1000;
  for (;;) {
    const rows = await ctx.db.listExpiredPending(cutoff, BATCH);
    let extended = 0;
    for (const row of rows) {
      // A part that arrived since the row's expiry was written moves it (at scale parts go
      // straight to the bucket, so only the store knows when the last one came).
      const expiresAt = await expiryByParts(ctx, row);
      if (expiresAt >= cutoff) {
        await ctx.db.extendExpiry(row.id, expiresAt);
        extended++;
      } else if (await ctx.db.expirePending(row.id, ctx.now(), fileEvent(ctx, 'upload.expired'))) {
        ctx.metrics?.upload('expired');
        expired++;
        ctx.events.kick();
      }
    }
    if (rows.length < BATCH || extended === rows.length) break;
  }
  // Imports whose instance stopped renewing their lease (it died) fail cleanly.
  await failAbandonedImports(ctx, ctx.now());
  for (;;) {
    const rows = await ctx.db.listReceiving(BATCH, ctx.now());
    let progressed = 0;
    for (const row of rows) {
      try {
        await abortReceiving(ctx, row.id);
        progressed++;
      } catch (error) {
        ctx.log.warn({ err: error, id: row.id }, 'could not remove an abandoned upload');
      }
    }
    abandoned += progressed;
    if (rows.length < BATCH || progressed === 0) break;
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
  const eventsBefore = ctx.now() - EVENT_RETENTION_MS;
  while ((await ctx.db.removeEventsBefore(eventsBefore, 1000)) === 1000) {
    // One batch at a time, so a large backlog never holds the database for long.
  }
  return { expired, deleted, purged, abandoned };
}
