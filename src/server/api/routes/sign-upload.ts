import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import {
  BATCH_JSON_LIMIT,
  isPlainObject,
  JSON_LIMIT,
  jsonDeadline,
  readSizedJson,
} from '../../http/body.js';
import { atIndex, fail } from '../../http/errors.js';
import { check } from '../../http/validate.js';
import { signUpload, signUploads } from '../../uploads/sign.js';
import { authenticate } from '../auth.js';
import { BATCH_FILES, validateSignEntry } from '../sign-entry.js';

/**
 * `POST /v1/uploads/sign`: creates the file row as `pending` and answers with one signed
 * PUT URL per part. With `{ "files": [ … ] }` it signs 1 to 100 files at once, all or
 * nothing: every entry is checked before anything is created, and a fault half-way undoes
 * what was made.
 */
export async function signUploadHandler(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { upload: 'start' });
  const { value: body, bytes } = await readSizedJson(request, {
    limit: BATCH_JSON_LIMIT,
    deadlineMs: jsonDeadline(ctx),
  });
  if (!isPlainObject(body) || body.files === undefined) {
    // One file: held to the limit it always had.
    if (bytes > JSON_LIMIT) {
      fail('invalid_request', `The JSON body is larger than ${JSON_LIMIT / 1024} KiB.`);
    }
    const entry = validateSignEntry(body, caller.project, caller);
    reply.code(201).send(await signUpload(ctx, caller, request.ip, entry));
    return;
  }
  const { files } = check(BATCH_FILES, body);
  const entries = files.map((file, index) => {
    try {
      return validateSignEntry(file, caller.project, caller);
    } catch (error) {
      throw atIndex(error, index, 'files');
    }
  });
  const response: SignBatchResponse = {
    uploads: await signUploads(ctx, caller, request.ip, entries),
  };
  reply.code(201).send(response);
}
