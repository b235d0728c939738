import type { FileMetadata, SignResponse, Visibility } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';
import { ServiceError } from '../ground/errors.js';
import type { Caller } from '../rules/auth.js';
import type { CoreContext } from '../rules/context.js';
import { reserveUploads } from '../rules/quota.js';
import { choosePartSize, partLayout } from '../rules/records.js';
import { newUploadToken, partUrlExpiry, pendingExpiry } from '../rules/upload-access.js';
import { newFileRow } from './new-file.js';
import { signParts } from './parts.js';
import { takeBackSigned } from './take-back.js';

/** Uploads of one batch created at once: enough to hide S3's round trips, few enough to be polite. */
const BATCH_CONCURRENCY = 8;

/** One file to sign, checked: what `signUpload` makes a pending upload of. */
export interface SignEntry {
  name: string;
  size: number;
  mime: string;
  metadata: FileMetadata;
  /** `checksum: true` was asked: parts must carry the digest the store checks. */
  checksum: boolean;
  /** Kept from sign to complete: what was chosen at sign is what the ready file is. */
  visibility: Visibility;
  /** Seconds after the sign at which the file deletes itself; null: never. */
  deleteAfter: number | null;
}

/** A pending upload as sign makes it: its row (before its storage exists) and its token. */
export interface NewUpload {
  row: FileRow;
  /** Answered once, in the sign answer; the row keeps only its hash. */
  token: string;
}

function newUpload(
  ctx: CoreContext,
  caller: Caller,
  address: string,
  entry: SignEntry,
  partSize = ctx.config.partSize,
): NewUpload {
  const now = ctx.now();
  const { token, hash } = newUploadToken();
  const row = newFileRow(caller, address, now, {
    name: entry.name,
    mime: entry.mime,
    size: entry.size,
    status: 'pending',
    metadata: entry.metadata,
    visibility: entry.visibility,
    partSize: choosePartSize(entry.size, partSize),
    expiresAt: pendingExpiry(ctx.config, now, null),
    // Null when the store checks no digest (S3 with FILEHOST_S3_CHECKSUM=none): the answer
    // says so, and the client sends none.
    checksum: entry.checksum ? ctx.blobs.partChecksum : null,
    uploadTokenHash: hash,
    importState: null,
    deleteAfter: entry.deleteAfter,
  });
  return { row, token };
}

/**
 * Creates the storage side of a pending upload whose row exists, and records its id in the
 * row (so that a failed batch knows what to take back).
 */
async function createStorage(ctx: CoreContext, row: FileRow): Promise<void> {
  row.storageUploadId = await ctx.blobs.createMultipart(row.id, {
    size: row.size,
    partSize: row.partSize as number,
    contentType: row.mime,
  });
}

/** The sign answer for a pending upload whose storage exists. */
async function signAnswer(ctx: CoreContext, { row, token }: NewUpload): Promise<SignResponse> {
  const { id, expiresAt, partSize, checksum } = row as FileRow & {
    expiresAt: number;
    partSize: number;
  };
  const urlsExpireAt = partUrlExpiry(ctx.config, ctx.now(), expiresAt);
  return {
    id,
    uploadToken: token,
    expiresAt,
    partSize,
    checksum,
    parts: await signParts(ctx, row, partLayout(row.size, partSize), urlsExpireAt),
  };
}

/**
 * Creates one pending upload (its row, then its multipart upload) and signs its parts. The
 * row comes first: if the process dies before the storage side exists, the row still
 * expires and the sweeper cleans up whatever was created.
 */
export async function signUpload(
  ctx: CoreContext,
  caller: Caller,
  address: string,
  entry: SignEntry,
): Promise<SignResponse> {
  return signAnswer(ctx, await createPendingUpload(ctx, caller, address, entry));
}

/**
 * A sign without its answer: the pending upload (row, reservation, multipart upload) and its
 * token. tus creates its uploads here, in parts of its own `partSize`, so that they are
 * bound by every rule a sign is bound by.
 */
export async function createPendingUpload(
  ctx: CoreContext,
  caller: Caller,
  address: string,
  entry: SignEntry,
  partSize?: number,
): Promise<NewUpload> {
  const upload = newUpload(ctx, caller, address, entry, partSize);
  await createPendingUploads(ctx, caller, address, [upload.row]);
  return upload;
}

/**
 * Signs every upload of a batch, all or nothing (see `createPendingUploads`), and answers
 * them in order.
 */
export async function signUploads(
  ctx: CoreContext,
  caller: Caller,
  address: string,
  entries: SignEntry[],
): Promise<SignResponse[]> {
  const uploads = entries.map((entry) => newUpload(ctx, caller, address, entry));
  await createPendingUploads(
    ctx,
    caller,
    address,
    uploads.map(({ row }) => row),
  );
  return Promise.all(uploads.map((upload) => signAnswer(ctx, upload)));
}

/**
 * Creates pending uploads (one for a single sign or a tus upload, up to 100 for a batch)
 * all or nothing, a step at a time for all of them: the rows together (the embedded store
 * commits writes that arrive together as one transaction: one fsync for the batch, not one
 * per file), then the storage side a few at a time, then every storage id together. On
 * the first failure no further upload is started; once those under way have settled,
 * everything made is taken back (`takeBackSigned`) and the failure is thrown (a fault of a
 * store: 503 or 507). The client that hears it signs again, so nothing it was never told
 * of may stay pending.
 */
async function createPendingUploads(
  ctx: CoreContext,
  caller: Caller,
  address: string,
  rows: FileRow[],
): Promise<void> {
  try {
    await reserveUploads(ctx, caller, address, rows);
  } catch (error) {
    // A refusal (quota, token) inserted nothing; a fault may have, before it failed.
    if (!(error instanceof ServiceError)) await takeBackSigned(ctx, caller, rows);
    throw error;
  }
  try {
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < rows.length) {
        const index = next++;
        await createStorage(ctx, rows[index] as FileRow).catch((error: unknown) => {
          failed = true;
          throw error;
        });
      }
    };
    await settleAll(
      Array.from({ length: Math.min(BATCH_CONCURRENCY, rows.length) }, () => worker()),
    );
    await settleAll(
      rows.map(({ id, storageUploadId }) =>
        ctx.db.setStorageUploadId(id, storageUploadId as string),
      ),
    );
  } catch (error) {
    await takeBackSigned(ctx, caller, rows);
    throw error;
  }
}

/** Waits for every promise to settle, then throws the first failure if there was one. */
async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  for (const outcome of await Promise.allSettled(promises)) {
    if (outcome.status === 'rejected') throw outcome.reason;
  }
}
