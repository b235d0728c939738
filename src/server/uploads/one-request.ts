import type { Visibility } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';
import { fileEvent } from '../events/file-events.js';
import { crashPoint } from '../ground/crash-points.js';
import { fail } from '../ground/errors.js';
import { ingestStored, type ScanWhileStoring } from '../ingest/ingest.js';
import type { IngestContext } from '../ingest/ingest-context.js';
import { uploadFailure } from '../metrics/upload-outcome.js';
import type { Caller } from '../rules/auth.js';
import { reserveUploads } from '../rules/quota.js';
import { receivingExpiry } from '../rules/receiving.js';
import { readHead, storedType } from '../rules/stored-type.js';
import { applyTokenPolicy, requireTypeFor } from '../rules/upload-tokens.js';
import { abortReceiving } from './abort.js';
import { newFileRow } from './new-file.js';

/**
 * The one-request upload (`POST /v1/upload`) below HTTP: its row is created `receiving`
 * (invisible) and its room reserved before a byte is stored, so a crash mid-upload is found
 * and cleaned up at the next start; it turns `ready` only once the bytes are durable and
 * checked, and is taken back otherwise. The route reads the body (raw or multipart) into
 * the store.
 */

/** A one-request upload as received: what its headers and body said, then its bytes. */
export interface Received {
  name: string;
  mime: string;
  size: number;
  metadata: Record<string, string>;
  visibility: Visibility;
}

/**
 * The upload's `receiving` row, its room reserved for `reserved` bytes, what the body may
 * hold (it becomes the file's real size when it is stored).
 */
export async function startReceiving(
  ctx: IngestContext,
  caller: Caller,
  address: string,
  first: { name: string; mime: string; reserved: number; visibility: Visibility },
): Promise<FileRow> {
  const now = ctx.now();
  const receiving = newFileRow(caller, address, now, {
    name: first.name,
    mime: first.mime,
    size: first.reserved,
    status: 'receiving',
    metadata: {},
    visibility: first.visibility,
    partSize: null,
    checksum: null,
    expiresAt: receivingExpiry(ctx),
    uploadTokenHash: null,
    importState: null,
    deleteAfter: caller.token?.policy?.deleteAfter ?? null,
  });
  // One-request uploads are not pending uploads: only the storage quota applies (and the
  // anonymous caps, or the token's limits).
  await reserveUploads(ctx, caller, address, [receiving], { now, storageOnly: true });
  return receiving;
}

/**
 * Stores the upload's bytes (`store`, the route's reading of its body), checks what they
 * are (type, scan, location) and makes the file `ready` with its `file.ready` event; a
 * failure at any step takes the upload back whole. `whileBusy` wraps the wait for a scan,
 * which is the service's, not the client's.
 */
export async function receiveOneRequest(
  ctx: IngestContext,
  caller: Caller,
  receiving: FileRow,
  store: () => Promise<Received>,
  scanning: ScanWhileStoring,
  whileBusy: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<Received> {
  const { id } = receiving;
  const policy = caller.token?.policy ?? null;
  try {
    const received = await store();
    if (received.size === 0) fail('empty_body');
    // What the file is, from its bytes; a type the project (or the token) does not take
    // keeps nothing.
    received.mime = await storedType(received.mime, await readHead(ctx.blobs, id, received.size));
    requireTypeFor(caller.project.allowedTypes, policy, received.mime, 'recognised');
    if (policy)
      Object.assign(received, applyTokenPolicy(policy, received.metadata, received.visibility));
    const ingested = await whileBusy(() =>
      ingestStored(ctx, receiving, 'receiving', received.mime, scanning),
    );
    received.size = ingested.size ?? received.size;
    crashPoint('upload:stored');
    const made = await ctx.db.markReady(
      id,
      'receiving',
      {
        ...received,
        scannedAt: ingested.scannedAt,
        placeholder: ingested.placeholder,
        createdAt: ctx.now(),
      },
      fileEvent(ctx, 'file.ready'),
    );
    if (!made) throw new Error(`Upload row ${id} left the receiving state`);
    crashPoint('event:recorded');
    ctx.events.kick();
    ctx.metrics?.upload('ready');
    return received;
  } catch (error) {
    ctx.metrics?.upload(uploadFailure(error));
    await abortReceiving(ctx, id);
    throw error;
  }
}
