import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedPart, UploadState } from '../../api/types.js';
import { authenticate } from '../auth.js';
import type { ServiceContext } from '../context.js';
import type { FileRow } from '../db/metadata-store.js';
import { fail } from '../errors.js';
import { partLayout } from '../records.js';
import type { PartPlacement } from '../storage/blob-store.js';

export function signParts(
  ctx: ServiceContext,
  row: Pick<FileRow, 'id' | 'mime'>,
  layout: PartPlacement[],
  expiresAt: number,
): SignedPart[] {
  return layout.map((part) =>
    ctx.signer.signedPart({
      uploadId: row.id,
      partNumber: part.partNumber,
      size: part.size,
      type: row.mime,
      expiresAt,
    }),
  );
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
  const held = new Map((await ctx.db.listParts(row.id)).map((part) => [part.partNumber, part]));
  const layout = partLayout(row.size, row.partSize);
  let expiresAt = row.expiresAt ?? row.createdAt;
  let signed: SignedPart[] = [];
  if (row.status === 'pending') {
    expiresAt = ctx.now() + ctx.config.uploadUrlTtlSeconds * 1000;
    await ctx.db.extendExpiry(row.id, expiresAt);
    signed = signParts(ctx, row, layout, expiresAt);
  }
  const body: UploadState = {
    id: row.id,
    status: row.status === 'ready' ? 'ready' : 'pending',
    expiresAt,
    partSize: row.partSize,
    parts: layout.map((part, index) => {
      const whole = held.get(part.partNumber);
      const etag = whole && whole.size === part.size ? whole.etag : null;
      const fresh = signed[index];
      return fresh ? { ...fresh, etag } : { partNumber: part.partNumber, size: part.size, etag };
    }),
  };
  reply.send(body);
}
