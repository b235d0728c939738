import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { MAX_BATCH, MAX_ONE_REQUEST_BYTES } from '../../../api/limits.js';
import type { CompleteBatchResult, UploadBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { crashPoint } from '../../crash-points.js';
import type { FileRow } from '../../db/metadata-store.js';
import { fileEvent } from '../../events/file-events.js';
import { bodyChunks, contentLength, exactBytes } from '../../http/body.js';
import { orStalled, SlowBodyError, untilStalled } from '../../http/body-pace.js';
import { verifiedBytes } from '../../http/content-digest.js';
import { declaredRoute } from '../../http/contract.js';
import { declaredBatch } from '../../http/declared-input.js';
import { atIndex, fail, ServiceError } from '../../http/errors.js';
import { mediaEssence } from '../../http/media-type.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { ingestStored } from '../../ingest/ingest.js';
import { itemError } from '../../uploads/complete.js';
import { newFileRow } from '../../uploads/new-file.js';
import type { SignEntry } from '../../uploads/sign.js';
import type { Caller } from '../auth.js';
import { reserveUploads } from '../quota.js';
import {
  MULTIPART_OVERHEAD,
  multipartError,
  receivingExpiry,
  renewWhileReceiving,
} from '../receiving.js';
import { toFileRecord } from '../records.js';
import type { RouteInput } from '../route-input.js';
import { validateSignEntry } from '../sign-entry.js';
import { readHead, storedType } from '../stored-type.js';
import { requireTypeFor } from '../upload-tokens.js';

/** The `files` field as the route declares it: 1 to 100 entries (`UploadBatchRequest`). */
const FILES = declaredBatch(declaredRoute('uploadBatch'), 'multipart/form-data', 'files');

/**
 * Files up to this size are read whole before they are written (see `receive`): at most
 * 100 of them, 25 MiB, held by one request at once.
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
interface BatchFile {
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
 * `POST /v1/upload/batch` (decisions.md, "Many small files"): up to 100 files' bytes in one
 * `multipart/form-data` request, for pages of small files. A `files` field comes first, a
 * JSON array of entries shaped as the batch sign's (`name`, `size`, `type`, `metadata`,
 * `visibility`), each checked as a sign checks it; then one `file` part per entry, in the
 * same order, of exactly its declared size. Every entry is checked and the room for every
 * file reserved (quota, anonymous caps, a token's limits) before a byte is stored, all or
 * nothing as for a batch sign. Then each file is what a one-request upload makes of it: its
 * type from its bytes, scanned, location stripped, `file.ready` recorded. `200 { "results":
 * [ … ] }` in the entries' order, each `{ "file": <record> }` or `{ "error": { "code",
 * "message", "status" } }`: one file's refusal does not hold back the others. The files
 * become `ready` together once the whole body has arrived, so a request cut half-way leaves
 * nothing behind (its rows are `receiving`, invisible, and taken back), and a client that
 * saw no answer can send it again without making copies.
 */
export async function uploadBatchHandler(
  ctx: ServiceContext,
  { request, reply, caller }: RouteInput<'uploadBatch'>,
): Promise<void> {
  if (mediaEssence(request.headers['content-type'] ?? '') !== 'multipart/form-data') {
    fail('invalid_request', 'A batch upload is a multipart/form-data body.');
  }
  const declared = contentLength(request);
  if (declared !== undefined && declared > MAX_ONE_REQUEST_BYTES + MULTIPART_OVERHEAD) {
    throw batchTooLarge();
  }
  const files: BatchFile[] = [];
  let received = 0;
  const stopRenewing = renewWhileReceiving(ctx, request.log, () =>
    files.map((file) => file.row.id),
  );
  try {
    const parts = request.parts({
      limits: {
        files: MAX_BATCH + 1,
        fields: 1,
        parts: MAX_BATCH + 2,
        fileSize: MAX_ONE_REQUEST_BYTES + 1,
      },
    });
    for await (const part of untilStalled(parts, request.raw)) {
      if (part.type === 'field') {
        if (part.fieldname !== 'files') continue;
        if (files.length > 0) fail('invalid_request', 'Send the files field once.');
        files.push(...(await reserve(ctx, caller, request.ip, String(part.value))));
        continue;
      }
      if (part.fieldname !== 'file') {
        await drain(request, part);
        continue;
      }
      if (files.length === 0) {
        fail('invalid_request', "The files field must come before the files' bytes.");
      }
      const file = files[received++];
      if (!file) {
        fail(
          'invalid_request',
          `The body has more file parts than the ${files.length} entries of files.`,
        );
      }
      await receive(ctx, caller, request, file, part);
    }
  } catch (error) {
    stopRenewing();
    await discard(ctx, files);
    throw error instanceof ServiceError ? error : multipartError(error);
  }
  stopRenewing();
  if (files.length === 0) fail('missing_file', 'The body has no files field.');
  for (const file of files.slice(received)) {
    file.error = new ServiceError('missing_file', "The body ended before this file's bytes.");
  }
  // The body is in; scans may still wait their turn: the service is busy, not the client.
  const results = await whileServiceWorks(request, () =>
    Promise.all(files.map((file) => makeReady(ctx, request, file))),
  );
  ctx.events.kick();
  const response: UploadBatchResponse = { results };
  reply.send(response);
}

/**
 * Checks every entry of the `files` field as a sign would and reserves room for all of them
 * as one step, inserting their rows as `receiving` (invisible; a crash leaves them to the
 * start-up cleanup). Any entry at fault refuses the batch whole, with its `index`.
 */
async function reserve(
  ctx: ServiceContext,
  caller: Caller,
  address: string,
  text: string,
): Promise<BatchFile[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('invalid_request', 'The files field must be JSON.');
  }
  // The array's form here; each entry's as a sign's (SignRequest, with a sign's own codes
  // and rules), then as the declared entry (UploadBatchEntry: its `sha256`).
  const items = FILES.form(parsed).entries;
  const entries = items.map((item, index) => {
    try {
      const entry = validateSignEntry(item, caller.project, caller);
      const { sha256 } = FILES.entry<{ sha256?: string }>(item);
      if (entry.size > MAX_ONE_REQUEST_BYTES) {
        fail('too_large', 'A file of a batch upload is at most 100 MiB; sign larger files.', {
          extra: { limit: MAX_ONE_REQUEST_BYTES },
        });
      }
      return { entry, sha256: sha256 === undefined ? null : Buffer.from(sha256, 'base64') };
    } catch (error) {
      throw atIndex(error, index, 'files');
    }
  });
  if (entries.reduce((sum, { entry }) => sum + entry.size, 0) > MAX_ONE_REQUEST_BYTES) {
    throw batchTooLarge();
  }
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
 * Stores one file's bytes (exactly its declared size; otherwise `size_mismatch` for this file
 * alone, the rest of its part read past), then checks it as a one-request upload is checked,
 * while the next file's bytes arrive.
 */
async function receive(
  ctx: ServiceContext,
  caller: Caller,
  request: FastifyRequest,
  file: BatchFile,
  part: MultipartFile,
): Promise<void> {
  const { row, entry } = file;
  const mismatch = () =>
    new ServiceError('size_mismatch', `The file's bytes are not the ${entry.size} declared.`);
  // Not destroyed when refused (`bodyChunks`): the rest of the part is read past, and the
  // next file's bytes follow it in the same body.
  const exact = exactBytes(untilStalled(bodyChunks(part.file), request.raw), entry.size, mismatch);
  const bytes = file.sha256
    ? verifiedBytes(
        exact,
        'sha256',
        file.sha256,
        () =>
          new ServiceError(
            'checksum_mismatch',
            'The file does not match its sha256: its bytes were damaged on the way, and it was not stored. Send it again.',
          ),
      )
    : exact;
  const options = { contentType: entry.mime };
  try {
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
  } catch (error) {
    // A stalled body is the whole request's failure, not this file's.
    if (!(error instanceof ServiceError) || error instanceof SlowBodyError) throw error;
    file.error = error;
    await drain(request, part);
    return;
  }
  // Settled later, by makeReady; no unhandled rejection meanwhile.
  file.stored.catch(() => undefined);
}

/** What one stored file is, from its bytes; its scan and location stripping. */
async function check(
  ctx: ServiceContext,
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
async function makeReady(
  ctx: ServiceContext,
  request: FastifyRequest,
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
    return { file: toFileRecord(ctx, { ...row, ...fields, status: 'ready' }) };
  } catch (error) {
    await takeBack(ctx, row.id);
    const failure = itemError(error, request.log, row.id);
    return { error: { ...failure.toBody().error, status: failure.status } };
  }
}

/** Every file of a batch that broke off (the body cut or malformed): none is kept. */
async function discard(ctx: ServiceContext, files: BatchFile[]): Promise<void> {
  await Promise.all(
    files.map(async (file) => {
      await file.stored?.catch(() => undefined);
      await takeBack(ctx, file.row.id);
    }),
  );
}

async function takeBack(ctx: ServiceContext, id: string): Promise<void> {
  try {
    await ctx.blobs.delete(id);
    await ctx.db.discardReceiving(id);
  } catch (error) {
    // A receiving row left behind is found by the start-up and expiry sweeps.
    ctx.log.warn({ err: error, id }, 'could not take back a file of a batch upload');
  }
}

/** Reads past a part that is not kept. `finished`, not 'end': a cut connection must fail. */
async function drain(request: FastifyRequest, part: MultipartFile): Promise<void> {
  part.file.resume();
  await orStalled(finished(part.file), request.raw);
}

function batchTooLarge(): ServiceError {
  return new ServiceError(
    'too_large',
    'The files of a batch upload add up to more than 100 MiB; send them in several batches.',
    { extra: { limit: MAX_ONE_REQUEST_BYTES } },
  );
}
