import { finished } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { MAX_BATCH, MAX_ONE_REQUEST_BYTES } from '../../../api/limits.js';
import type { UploadBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { declaredRoute } from '../../contract-reader/contract.js';
import { atIndex, fail, ServiceError } from '../../ground/errors.js';
import { mediaEssence } from '../../ground/media-type.js';
import { bodyChunks, contentLength, exactBytes } from '../../http/body.js';
import { orStalled, SlowBodyError, untilStalled } from '../../http/body-pace.js';
import { verifiedBytes } from '../../http/content-digest.js';
import { declaredBatch } from '../../http/declared-input.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { uploadFailure } from '../../metrics/upload-outcome.js';
import type { Caller } from '../../rules/auth.js';
import { MULTIPART_OVERHEAD, multipartError, renewWhileReceiving } from '../../rules/receiving.js';
import {
  type BatchFile,
  discardBatch,
  makeReady,
  reserveBatch,
  storeBatchFile,
} from '../../uploads/batch.js';
import { validateSignEntry } from '../../uploads/sign-entry.js';
import type { RouteInput } from '../route-input.js';

/** The `files` field as the route declares it: 1 to 100 entries (`UploadBatchRequest`). */
const FILES = declaredBatch(declaredRoute('uploadBatch'), 'multipart/form-data', 'files');

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
    const answer = error instanceof ServiceError ? error : multipartError(error);
    // A client gone mid-body lost its connection, whatever the parser made of the cut.
    await discardBatch(ctx, files, request.raw.readableAborted ? 'failed' : uploadFailure(answer));
    throw answer;
  }
  stopRenewing();
  if (files.length === 0) fail('missing_file', 'The body has no files field.');
  for (const file of files.slice(received)) {
    file.error = new ServiceError('missing_file', "The body ended before this file's bytes.");
  }
  // The body is in; scans may still wait their turn: the service is busy, not the client.
  const results = await whileServiceWorks(request, () =>
    Promise.all(files.map((file) => makeReady(ctx, request.log, file))),
  );
  ctx.events.kick();
  const response: UploadBatchResponse = { results };
  reply.send(response);
}

/**
 * Checks every entry of the `files` field as a sign would and reserves room for all of them
 * as one step (`reserveBatch`). Any entry at fault refuses the batch whole, with its `index`.
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
  return reserveBatch(ctx, caller, address, entries);
}

/**
 * Hands one file's bytes to `storeBatchFile`, held to exactly its declared size (otherwise
 * `size_mismatch` for this file alone, the rest of its part read past) and to its sha256.
 */
async function receive(
  ctx: ServiceContext,
  caller: Caller,
  request: FastifyRequest,
  file: BatchFile,
  part: MultipartFile,
): Promise<void> {
  const { entry } = file;
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
  try {
    await storeBatchFile(ctx, caller, file, bytes);
  } catch (error) {
    // A stalled body is the whole request's failure, not this file's.
    if (!(error instanceof ServiceError) || error instanceof SlowBodyError) throw error;
    file.error = error;
    await drain(request, part);
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
