import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedPart, UploadState } from '../../api/types.js';
import { authenticate } from '../auth.js';
import type { ServiceContext } from '../context.js';
import type { FileRow } from '../db/metadata-store.js';
import { fail } from '../errors.js';
import { partLayout } from '../records.js';
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
  ctx: ServiceContext,
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
 */
export async function heldParts(
  ctx: ServiceContext,
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

/**
 * `GET /v1/uploads/:id`: which parts the service holds whole, so a client resumes by
 * sending only the others. A pending upload's URLs are signed afresh (and its expiry
 * pushed out), so resuming also works after the first URLs expired.
 */
export async function uploadStateHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request);
  const row = await ctx.db.getVisibleFile(caller.project.id, request.params.id);
  if (!row || row.partSize === null) fail('not_found', 'No multi-step upload with this id.');
  const layout = partLayout(row.size, row.partSize);
  let expiresAt = row.expiresAt ?? row.createdAt;
  let signed: SignedPart[] = [];
  let held = new Map<number, HeldPart>();
  if (row.status === 'pending') {
    held = (await heldParts(ctx, row)) ?? held;
    expiresAt = ctx.now() + ctx.config.uploadUrlTtlSeconds * 1000;
    await ctx.db.extendExpiry(row.id, expiresAt);
    signed = await signParts(ctx, row, layout, expiresAt);
  }
  const body: UploadState = {
    id: row.id,
    status: row.status === 'ready' ? 'ready' : 'pending',
    expiresAt,
    partSize: row.partSize,
    checksum: row.checksum,
    parts: layout.map((part, index) => {
      const whole = held.get(part.partNumber);
      // A ready file holds every part; their ETags are no longer the store's to list.
      const etag =
        row.status === 'ready' ? '' : whole && whole.size === part.size ? whole.etag : null;
      const fresh = signed[index];
      return fresh ? { ...fresh, etag } : { partNumber: part.partNumber, size: part.size, etag };
    }),
  };
  reply.send(body);
}
