import type { SignedPart } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';
import { fail } from '../ground/errors.js';
import type { Caller } from '../rules/auth.js';
import type { CoreContext } from '../rules/context.js';
import { pendingExpiry, requireUploadAccess } from '../rules/upload-access.js';
import {
  BlobNotFoundError,
  type HeldPart,
  type MultipartUpload,
  type PartPlacement,
} from '../storage/blob-store.js';

/** How the blob store addresses a multi-step upload's row. */
export function multipartOf(
  row: Pick<FileRow, 'id' | 'mime' | 'storageUploadId' | 'checksum'>,
): MultipartUpload {
  return {
    key: row.id,
    uploadId: row.storageUploadId ?? row.id,
    contentType: row.mime,
    checksum: row.checksum,
  };
}

export function signParts(
  ctx: CoreContext,
  row: Pick<FileRow, 'id' | 'mime' | 'storageUploadId' | 'checksum'>,
  layout: PartPlacement[],
  expiresAt: number,
): Promise<SignedPart[]> {
  const upload = multipartOf(row);
  return Promise.all(layout.map((part) => ctx.blobs.signPart(upload, part, expiresAt)));
}

/**
 * The parts the blob store holds whole for a pending upload, by part number; null when the
 * store has no such upload open any more (completed by a racing request, or cancelled).
 * Parts go straight to the store (at scale, to the bucket), so this is how the service
 * learns what arrived.
 */
export async function heldParts(
  ctx: CoreContext,
  row: FileRow,
): Promise<Map<number, HeldPart> | null> {
  try {
    const parts = await ctx.blobs.listParts(multipartOf(row));
    return new Map(parts.map((part) => [part.partNumber, part]));
  } catch (error) {
    if (error instanceof BlobNotFoundError) return null;
    throw error;
  }
}

/** When the last part the store holds arrived; null when none did, or the store cannot say. */
export function lastPartArrival(held: Map<number, HeldPart> | null): number | null {
  let last: number | null = null;
  for (const part of held?.values() ?? []) {
    if (part.arrivedAt !== undefined && (last === null || part.arrivedAt > last)) {
      last = part.arrivedAt;
    }
  }
  return last;
}

/** A pending upload's expiry by the parts the store holds (each arrival moves it). */
export function expiryByHeldParts(
  ctx: CoreContext,
  row: Pick<FileRow, 'createdAt'>,
  held: Map<number, HeldPart> | null,
): number {
  return pendingExpiry(ctx.config, row.createdAt, lastPartArrival(held));
}

/**
 * The pending upload `id` of the caller's project, if the caller may act on it (with a
 * publishable key: shows its upload token) and it has not expired; `not_found` otherwise,
 * alike for an unknown id, another project's, a missing or wrong token.
 */
export async function multiStepUpload(
  ctx: CoreContext,
  caller: Caller,
  id: string,
  token: unknown,
): Promise<FileRow & { partSize: number }> {
  const row = await ctx.db.getVisibleFile(caller.project.id, id);
  if (!row || row.partSize === null) fail('not_found', 'No upload with this id.');
  requireUploadAccess(caller, row, token);
  return row as FileRow & { partSize: number };
}
