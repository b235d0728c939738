import type { FileRecord } from '../../api/types.js';
import type { FileRow, TusUploadState } from '../db/metadata-store.js';
import { fileEvent } from '../events/file-events.js';
import { removeFile } from '../files/remove.js';
import { crashPoint } from '../ground/crash-points.js';
import { fail } from '../ground/errors.js';
import { constantTimeEqual, hashKey } from '../ground/secrets.js';
import type { IngestContext } from '../ingest/ingest-context.js';
import type { Caller } from '../rules/auth.js';
import { pendingExpiry } from '../rules/upload-access.js';
import { completeUpload } from './complete.js';
import { multipartOf } from './parts.js';
import { createPendingUpload, type NewUpload, type SignEntry } from './sign.js';
import { TusLease } from './tus-lease.js';

/**
 * A tus upload is a pending multi-step upload like any sign makes (same row, reservation,
 * multipart upload, expiry), whose parts the service writes itself as PATCH bodies bring
 * them; its upload token is the secret in its URL. Parts are 5 MiB (S3's smallest, and
 * tus-js-client's usual chunk), larger only where 10,000 would not hold the file.
 */
export const TUS_PART_SIZE = 5 * 1024 * 1024;

/** Creates the pending upload (every check a sign makes) and its tus state at offset 0. */
export async function createTusUpload(
  ctx: IngestContext,
  caller: Caller,
  address: string,
  entry: SignEntry,
): Promise<NewUpload> {
  const upload = await createPendingUpload(ctx, caller, address, entry, TUS_PART_SIZE);
  await ctx.db.createTusUpload(upload.row.id);
  return upload;
}

/** A tus upload as its URL and credential reach it. */
export interface TusUpload {
  row: FileRow & { partSize: number };
  /** Null once it finished (or for an upload no tus request made). */
  state: TusUploadState | null;
  /** The secret from its URL: its upload token. */
  secret: string;
}

/**
 * The tus upload `id` of the caller's project, reached with its URL's `secret` (a
 * capability: only its hash is stored) and a credential of the kind that created it: the
 * secret key always; an upload token only the one that created it; a publishable key only
 * an anonymous upload. Anything else is `404 not_found`, alike for an unknown id, as a
 * stranger must learn nothing. A pending upload past its expiry is gone too.
 */
export async function tusUpload(
  ctx: IngestContext,
  caller: Caller,
  id: string,
  secret: string,
): Promise<TusUpload> {
  const row = await ctx.db.getVisibleFile(caller.project.id, id);
  const known = row?.uploadTokenHash ?? null;
  if (!row || row.partSize === null || known === null) notFound();
  if (!constantTimeEqual(hashKey(secret), known)) notFound();
  const creator =
    caller.keyKind === 'secret' ||
    (caller.keyKind === 'token' ? row.tokenId === caller.keyId : row.anonymousAddress !== null);
  if (!creator) notFound();
  if (row.status === 'pending' && (row.expiresAt ?? 0) <= ctx.now()) {
    fail('not_found', 'The upload expired.');
  }
  const state = row.status === 'pending' ? await ctx.db.getTusUpload(id) : null;
  if (row.status === 'pending' && !state) notFound();
  return { row: row as FileRow & { partSize: number }, state, secret };
}

function notFound(): never {
  fail('not_found', 'No upload with this id.');
}

/** How far an upload's recorded expiry may lag behind its last PATCH. */
const EXPIRY_STEP_MS = 60_000;

/** The object that keeps the bytes of an unfinished part whose data ends at `offset`. */
function partialName(offset: number): string {
  return `tus-part-${offset}`;
}

/** What one PATCH brings: its bytes, and a check of all of them before any is counted. */
export interface TusPatch {
  /** `Upload-Offset`: where the client says its bytes begin. */
  offset: number;
  body: AsyncIterable<Buffer>;
  /** `Content-Length`, when the request has one: whole parts within it are streamed. */
  length?: number;
  /**
   * With `Upload-Checksum`: feeds each byte, and at the end throws (`460`) unless they match;
   * nothing of the PATCH is counted before it has passed.
   */
  checksum: { update(chunk: Buffer): void; verify(): void } | null;
}

/** Where the upload stands after a PATCH; `file` when it was the last one. */
export interface TusProgress {
  offset: number;
  /** When the pending upload expires now (each PATCH moves it); none once it is a file. */
  expiresAt?: number;
  file?: FileRecord;
}

/**
 * Receives one PATCH. Its write lease is taken in the database with a compare-and-set on
 * the offset (`takeTusLease`), so of two PATCHes at once, on any instances, one writes and
 * the other is `409`; an offset other than the upload's is `409` too. Bytes are cut into
 * the upload's parts, each written to the store whole as it fills; the bytes short of a
 * part at the end are kept as an object of their own (`tus-part-<offset>`) until the next
 * PATCH brings the rest, so any instance continues. The offset is recorded only once what
 * it counts is durable: after each part (without a checksum, so a cut connection or a
 * killed instance keeps every whole part), or after the checksum passed (with one, so a
 * mismatch keeps nothing of the PATCH). The last byte ends the upload as `complete` does.
 */
export async function receiveTusPatch(
  ctx: IngestContext,
  caller: Caller,
  upload: TusUpload,
  patch: TusPatch,
): Promise<TusProgress> {
  const { row } = upload;
  const state = upload.state as TusUploadState;
  if (patch.offset !== state.offset) offsetConflict(state.offset);
  const lease = await TusLease.take(ctx, row.id, patch.offset);
  if (!lease) {
    const current = await ctx.db.getTusUpload(row.id);
    if (current && current.offset !== patch.offset) offsetConflict(current.offset);
    fail('upload_conflict', 'Another PATCH is writing this upload; ask HEAD for its offset.', {
      extra: { offset: current?.offset ?? state.offset },
    });
  }
  // What the database records (`committed`), and what the store holds durably (`durable`):
  // each part is recorded once the next one is stored or the PATCH ends, so that a PATCH of
  // one part costs the database two writes (the lease, then offset and release together).
  let committed = patch.offset;
  let durable = patch.offset;
  const record = async (offset: number, release: boolean) => {
    await lease.advance(offset, release);
    committed = offset;
  };
  try {
    let offset: number;
    try {
      offset = await writeParts(ctx, row, patch, lease, async (end) => {
        if (!patch.checksum && durable > committed) await record(durable, false);
        durable = end;
      });
      patch.checksum?.verify();
    } catch (error) {
      // A cut connection keeps every whole part it brought (not with a checksum: nothing of
      // a PATCH counts before its digest matched).
      if (!patch.checksum && durable > committed) {
        await record(durable, true).catch(() => undefined);
      }
      throw error;
    }
    await record(offset, true);
    let expiresAt = row.expiresAt as number;
    const moved = pendingExpiry(ctx.config, row.createdAt, ctx.now());
    // Moved at most once a minute: the sweeper also reads when the last part arrived.
    if (moved - expiresAt > EXPIRY_STEP_MS) {
      await ctx.db.extendExpiry(row.id, moved);
      expiresAt = moved;
    }
    if (patch.offset % row.partSize !== 0 && offset !== patch.offset) {
      await ctx.blobs.deleteDerivedObject(row.id, partialName(patch.offset)).catch(() => {});
    }
    if (offset < row.size) return { offset, expiresAt };
    crashPoint('tus:last-byte');
    return { offset, file: await finishTusUpload(ctx, caller, upload) };
  } finally {
    await lease.release();
  }
}

function offsetConflict(offset: number): never {
  fail('upload_conflict', `Upload-Offset does not match: the upload is at byte ${offset}.`, {
    extra: { offset },
  });
}

/**
 * Writes the PATCH's bytes into the upload's parts (the unfinished part's earlier bytes
 * first), calling `partDone` with the offset after each whole part; keeps the bytes short of
 * a part at the end as their own object. Answers the offset after the last byte.
 */
async function writeParts(
  ctx: IngestContext,
  row: FileRow & { partSize: number },
  patch: TusPatch,
  lease: TusLease,
  partDone: (offset: number) => Promise<void>,
): Promise<number> {
  const partSize = row.partSize;
  let partStart = Math.floor(patch.offset / partSize) * partSize;
  const partLength = () => Math.min(partSize, row.size - partStart);
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  if (patch.offset > partStart) {
    const earlier = await readPartial(ctx, row.id, patch.offset);
    pending.push(earlier);
    pendingBytes = earlier.length;
  }
  let offset = patch.offset;
  const store = multipartOf(row);
  const body = new BodyReader(patch.body);
  const declaredEnd = patch.length === undefined ? null : patch.offset + patch.length;
  if (declaredEnd !== null && declaredEnd > row.size) {
    fail('too_large', `The bytes go past Upload-Length (${row.size}); nothing was taken.`, {
      extra: { limit: row.size },
    });
  }
  const take = (chunk: Buffer) => {
    lease.check();
    if (offset + chunk.length > row.size) {
      fail('too_large', `The bytes go past Upload-Length (${row.size}); nothing more is taken.`, {
        extra: { limit: row.size },
      });
    }
    patch.checksum?.update(chunk);
    offset += chunk.length;
    return chunk;
  };
  for (;;) {
    const size = partLength();
    const placement = { partNumber: partStart / partSize + 1, offset: partStart, size };
    if (size > 0 && pendingBytes === 0 && declaredEnd !== null && declaredEnd - offset >= size) {
      // A whole part ahead, by Content-Length: it streams to the store as it arrives, so
      // receiving and storing overlap (no 5 MiB held first).
      await ctx.blobs.putPart(store, placement, body.exactly(size, take));
      partStart += size;
      await partDone(partStart);
      continue;
    }
    const chunk = await body.next();
    if (chunk === null) break;
    pending.push(take(chunk));
    pendingBytes += chunk.length;
    while (pendingBytes > 0 && pendingBytes >= partLength()) {
      const all = Buffer.concat(pending, pendingBytes);
      const size = partLength();
      const partNumber = partStart / partSize + 1;
      await ctx.blobs.putPart(
        store,
        { partNumber, offset: partStart, size },
        all.subarray(0, size),
      );
      pending.length = 0;
      pendingBytes = all.length - size;
      if (pendingBytes > 0) pending.push(all.subarray(size));
      partStart += size;
      await partDone(partStart);
    }
  }
  if (pendingBytes > 0) {
    await ctx.blobs.putDerived(row.id, partialName(offset), Buffer.concat(pending, pendingBytes), {
      contentType: 'application/octet-stream',
    });
  }
  return offset;
}

/**
 * A body read chunk by chunk, from which a number of bytes exactly can be taken as a stream
 * of their own (a part), the chunk that crosses its end split and the rest kept for after.
 */
class BodyReader {
  readonly #iterator: AsyncIterator<Buffer>;
  #leftover: Buffer | null = null;

  constructor(source: AsyncIterable<Buffer>) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  /** The next chunk; null at the end. */
  async next(): Promise<Buffer | null> {
    if (this.#leftover) {
      const chunk = this.#leftover;
      this.#leftover = null;
      return chunk;
    }
    const result = await this.#iterator.next();
    return result.done ? null : result.value;
  }

  /** Exactly `size` bytes, each passed through `take`; fails if the body ends before. */
  async *exactly(size: number, take: (chunk: Buffer) => Buffer): AsyncGenerator<Buffer> {
    let left = size;
    while (left > 0) {
      const chunk = await this.next();
      if (chunk === null) throw new Error('The body ended before its Content-Length');
      if (chunk.length > left) this.#leftover = chunk.subarray(left);
      const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
      left -= part.length;
      yield take(part);
    }
  }
}

async function readPartial(ctx: IngestContext, id: string, offset: number): Promise<Buffer> {
  const stream = await ctx.blobs.getDerived(id, partialName(offset));
  if (!stream) throw new Error(`The unfinished part of tus upload ${id} at ${offset} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Ends an upload whose every byte arrived exactly as `complete` ends one (type from the
 * bytes, scan, location stripped, `ready`, `file.ready`), or refuses it as `complete` would.
 * Safe to run again (a PATCH retried after the scanner was away).
 */
export async function finishTusUpload(
  ctx: IngestContext,
  caller: Caller,
  upload: TusUpload,
): Promise<FileRecord> {
  // Unfinished parts a failed PATCH left (a checksum mismatch, a cut connection) go first.
  await ctx.blobs.deleteDerived(upload.row.id);
  // Its tus state goes with the pending row (metadata-store.ts, `createTusUpload`).
  return completeUpload(ctx, caller, { id: upload.row.id, claimed: [], token: upload.secret });
}

/**
 * Termination: a pending upload is cancelled as `DELETE /v1/files/:id` cancels one (its
 * bytes go, `file.deleted`). A finished one is a file, which only the secret key deletes.
 */
export async function terminateTusUpload(
  ctx: IngestContext,
  caller: Caller,
  upload: TusUpload,
): Promise<void> {
  if (upload.row.status !== 'pending' && caller.keyKind !== 'secret') {
    fail('secret_key_required', 'The upload finished: only the secret key deletes the file.');
  }
  const event = fileEvent(ctx, 'file.deleted', 'deleted');
  const removed = await removeFile(ctx, caller.project.id, upload.row.id, { event });
  if (!removed) notFound();
}
