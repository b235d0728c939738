import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { CompleteBatchResult } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';
import { fileEvent } from '../events/file-events.js';
import { crashPoint } from '../ground/crash-points.js';
import type { ServiceError } from '../ground/errors.js';
import { ingestStored } from '../ingest/ingest.js';
import type { IngestContext } from '../ingest/ingest-context.js';
import type { UploadOutcome } from '../metrics/service-metrics.js';
import { uploadFailure } from '../metrics/upload-outcome.js';
import type { Caller } from '../rules/auth.js';
import { reserveUploads } from '../rules/quota.js';
import { receivingExpiry } from '../rules/receiving.js';
import { toFileRecord } from '../rules/records.js';
import { readHead, storedType } from '../rules/stored-type.js';
import { requireTypeFor } from '../rules/upload-tokens.js';
import { abortReceiving } from './abort.js';
import { itemError } from './complete.js';
import { newFileRow } from './new-file.js';
import type { SignEntry } from './sign.js';

/**
 * The batch upload (`POST /v1/upload/batch`, decisions.md, "Many small files") below HTTP:
 * its files reserved as one step, each stored and checked as a one-request upload is, then
 * made `ready` together or taken back. The route reads the body and hands each file's bytes
 * here.
 */

/**
 * Files up to this size are read whole before they are written (see `storeBatchFile`): at
 * most 100 of them, 25 MiB, held by one request at once.
 */
const IN_MEMORY_BYTES = 256 * 1024;

/** What a stored file of the batch is once checked: its fields as it becomes ready. */
interface CheckedFile {
  mime: string;
  size: number;
  scannedAt: number | null;
  placeholder: string | null;
}

/** One file of the batch: what its entry of `files` said, and its receiving row. */
export interface BatchFile {
  entry: SignEntry;
  /** The SHA-256 its entry said its bytes have (`sha256`), checked as they are stored. */
  sha256: Buffer | null;
  row: FileRow;
  /** Its bytes stored and checked (type, scan, location), ready to be made `ready`. */
  stored: Promise<CheckedFile> | null;
  /** Why it will not be made ready (its result), once known. */
  error: ServiceError | null;
}

/**
 * Reserves room for every checked entry as one step, inserting their rows as `receiving`
 * (invisible; a crash leaves them to the start-up cleanup): all or nothing, as a batch sign.
 */
export async function reserveBatch(
  ctx: IngestContext,
  caller: Caller,
  address: string,
  entries: readonly { entry: SignEntry; sha256: Buffer | null }[],
): Promise<BatchFile[]> {
  const now = ctx.now();
  const files = entries.map(
    ({ entry, sha256 }): BatchFile => ({
      entry,
      sha256,
      row: newFileRow(caller, address, now, {
        name: entry.name,
        mime: entry.mime,
        size: entry.size,
        status: 'receiving',
        metadata: entry.metadata,
        visibility: entry.visibility,
        partSize: null,
        checksum: null,
        expiresAt: receivingExpiry(ctx),
        uploadTokenHash: null,
        importState: null,
        deleteAfter: entry.deleteAfter,
      }),
      stored: null,
      error: null,
    }),
  );
  // One-request uploads are not pending uploads: only the storage quota applies (and the
  // anonymous caps, or the token's limits).
  await reserveUploads(
    ctx,
    caller,
    address,
    files.map((file) => file.row),
    { now, storageOnly: true },
  );
  return files;
}

/**
 * Stores one file's bytes (already held to its size and digest by the route), then checks
 * it as a one-request upload is checked, while the next file's bytes arrive. A refusal of
 * the bytes is thrown; one of the check is the file's result, settled by `makeReady`.
 */
export async function storeBatchFile(
  ctx: IngestContext,
  caller: Caller,
  file: BatchFile,
  bytes: AsyncIterable<Buffer>,
): Promise<void> {
  const { row, entry } = file;
  const options = { contentType: entry.mime };
  if (entry.size <= IN_MEMORY_BYTES) {
    // Read whole, then written while the next file's bytes arrive: each small file's
    // flush to disk (or PUT to the bucket) overlaps the next one's instead of following it.
    const chunks: Buffer[] = [];
    for await (const chunk of bytes) chunks.push(chunk);
    file.stored = ctx.blobs
      .put(row.id, Readable.from([Buffer.concat(chunks)]), options)
      .then(() => check(ctx, caller, file));
  } else {
    await ctx.blobs.put(row.id, bytes, options);
    file.stored = check(ctx, caller, file);
  }
  // Settled later, by makeReady; no unhandled rejection meanwhile.
  file.stored.catch(() => undefined);
}

/** What one stored file is, from its bytes; its scan and location stripping. */
async function check(
  ctx: IngestContext,
  caller: Caller,
  { row, entry }: BatchFile,
): Promise<CheckedFile> {
  const mime = await storedType(entry.mime, await readHead(ctx.blobs, row.id, entry.size));
  // What the project (or the token) takes, checked again on the type the bytes say.
  requireTypeFor(caller.project.allowedTypes, caller.token?.policy, mime, 'recognised');
  const ingested = await ingestStored(ctx, row, 'receiving', mime);
  return {
    mime,
    size: ingested.size ?? entry.size,
    scannedAt: ingested.scannedAt,
    placeholder: ingested.placeholder,
  };
}

/** One file's result: made `ready` (with its `file.ready` event), or taken back. */
export async function makeReady(
  ctx: IngestContext,
  log: FastifyBaseLogger,
  file: BatchFile,
): Promise<CompleteBatchResult> {
  const { row } = file;
  try {
    if (file.error) throw file.error;
    const checked = await (file.stored as NonNullable<BatchFile['stored']>);
    crashPoint('upload:stored');
    const fields = {
      mime: checked.mime,
      size: checked.size,
      scannedAt: checked.scannedAt,
      placeholder: checked.placeholder,
      createdAt: ctx.now(),
    };
    const made = await ctx.db.markReady(row.id, 'receiving', fields, fileEvent(ctx, 'file.ready'));
    if (!made) throw new Error(`Upload row ${row.id} left the receiving state`);
    ctx.metrics?.upload('ready');
    return { file: toFileRecord(ctx, { ...row, ...fields, status: 'ready' }) };
  } catch (error) {
    await takeBack(ctx, row.id);
    const failure = itemError(error, log, row.id);
    ctx.metrics?.upload(uploadFailure(failure));
    return { error: { ...failure.toBody().error, status: failure.status } };
  }
}

/**
 * Every file of a batch that broke off (the body cut, malformed or refused whole after its
 * files were reserved): none is kept, and each is an upload that ended with `outcome`.
 */
export async function discardBatch(
  ctx: IngestContext,
  files: BatchFile[],
  outcome: Exclude<UploadOutcome, 'ready' | 'expired'>,
): Promise<void> {
  await Promise.all(
    files.map(async (file) => {
      await file.stored?.catch(() => undefined);
      await takeBack(ctx, file.row.id);
      ctx.metrics?.upload(outcome);
    }),
  );
}

/** A file of a batch taken back; never throws, since its answer is already decided. */
async function takeBack(ctx: IngestContext, id: string): Promise<void> {
  try {
    await abortReceiving(ctx, id);
  } catch (error) {
    // A receiving row left behind is found by the start-up and expiry sweeps.
    ctx.log.warn({ err: error, id }, 'could not take back a file of a batch upload');
  }
}
