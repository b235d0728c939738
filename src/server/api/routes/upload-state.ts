import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedPart, UploadState } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import type { FileRow } from '../../db/metadata-store.js';
import { fail } from '../../http/errors.js';
import { importStateOf } from '../../imports/import-state.js';
import {
  BlobNotFoundError,
  type HeldPart,
  type MultipartUpload,
  type PartPlacement,
} from '../../storage/blob-store.js';
import { authenticate, type Caller } from '../auth.js';
import { partLayout } from '../records.js';
import {
  partUrlExpiry,
  pendingExpiry,
  requireUploadAccess,
  UPLOAD_TOKEN_HEADER,
} from '../upload-access.js';

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

/**
 * The pending upload `id` of the caller's project, if the caller may act on it (with a
 * publishable key: shows its upload token) and it has not expired; `not_found` otherwise,
 * alike for an unknown id, another project's, a missing or wrong token.
 */
export async function multiStepUpload(
  ctx: ServiceContext,
  caller: Caller,
  id: string,
  token: unknown,
): Promise<FileRow & { partSize: number }> {
  const row = await ctx.db.getVisibleFile(caller.project.id, id);
  if (!row || row.partSize === null) fail('not_found', 'No upload with this id.');
  requireUploadAccess(caller, row, token);
  return row as FileRow & { partSize: number };
}

/**
 * `GET /v1/uploads/:id`: which parts the service holds whole, so a client resumes by
 * sending only the others, with fresh URLs for a pending upload (so resuming also works
 * after the first URLs expired); they never outlive the upload, and asking does not move
 * its expiry. A ready upload lists the ETags it was completed with. An import answers its
 * record instead (`importStateOf`).
 */
export async function uploadStateHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { upload: 'continue' });
  // An import is followed here too: the one call on it an upload token may make.
  const imported = await importStateOf(
    ctx,
    caller,
    request.params.id,
    request.headers[UPLOAD_TOKEN_HEADER],
  );
  if (imported) {
    reply.send(imported);
    return;
  }
  const row = await multiStepUpload(
    ctx,
    caller,
    request.params.id,
    request.headers[UPLOAD_TOKEN_HEADER],
  );
  const layout = partLayout(row.size, row.partSize);
  let expiresAt = row.expiresAt ?? row.createdAt;
  let signed: SignedPart[] = [];
  let held = new Map<number, HeldPart>();
  if (row.status === 'pending') {
    held = (await heldParts(ctx, row)) ?? held;
    expiresAt = pendingExpiry(ctx.config, row.createdAt, lastPartArrival(held));
    const now = ctx.now();
    if (expiresAt <= now) fail('not_found', 'The upload expired.');
    signed = await signParts(ctx, row, layout, partUrlExpiry(ctx.config, now, expiresAt));
  }
  const completed = new Map(row.completedParts?.map((part) => [part.partNumber, part.etag]));
  const body: UploadState = {
    id: row.id,
    status: row.status === 'ready' ? 'ready' : 'pending',
    expiresAt,
    partSize: row.partSize,
    checksum: row.checksum,
    parts: layout.map((part, index) => {
      const whole = held.get(part.partNumber);
      const etag =
        row.status === 'ready'
          ? (completed.get(part.partNumber) ?? '')
          : whole && whole.size === part.size
            ? whole.etag
            : null;
      const fresh = signed[index];
      return fresh ? { ...fresh, etag } : { partNumber: part.partNumber, size: part.size, etag };
    }),
  };
  reply.send(body);
}
