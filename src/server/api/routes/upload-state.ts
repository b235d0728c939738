import type { SignedPart, UploadState } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { fail } from '../../ground/errors.js';
import { importStateOf } from '../../imports/import-state.js';
import { partLayout } from '../../rules/records.js';
import { partUrlExpiry, UPLOAD_TOKEN_HEADER } from '../../rules/upload-access.js';
import type { HeldPart } from '../../storage/blob-store.js';
import { expiryByHeldParts, heldParts, multiStepUpload, signParts } from '../../uploads/parts.js';
import type { RouteInput } from '../route-input.js';

/**
 * `GET /v1/uploads/:id`: which parts the service holds whole, so a client resumes by
 * sending only the others, with fresh URLs for a pending upload (so resuming also works
 * after the first URLs expired); they never outlive the upload, and asking does not move
 * its expiry. A ready upload lists the ETags it was completed with. An import answers its
 * record instead (`importStateOf`).
 */
export async function uploadStateHandler(
  ctx: ServiceContext,
  { request, reply, caller }: RouteInput<'uploadState', { id: string }>,
): Promise<void> {
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
    expiresAt = expiryByHeldParts(ctx, row, held);
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
