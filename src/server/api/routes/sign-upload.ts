import type { SignBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { atIndex } from '../../ground/errors.js';
import { signUpload, signUploads } from '../../uploads/sign.js';
import { validateSignEntry } from '../../uploads/sign-entry.js';
import type { RouteInput } from '../route-input.js';

/**
 * `POST /v1/uploads/sign`: creates the file row as `pending` and answers with one signed
 * PUT URL per part. With `{ "files": [ … ] }` it signs 1 to 100 files at once, all or
 * nothing: every entry is checked before anything is created, and a fault half-way undoes
 * what was made.
 */
export async function signUploadHandler(
  ctx: ServiceContext,
  { request, reply, caller, body }: RouteInput<'signUpload'>,
): Promise<void> {
  if (!body.batch) {
    const entry = validateSignEntry(body.entry, caller.project, caller);
    reply.code(201).send(await signUpload(ctx, caller, request.ip, entry));
    return;
  }
  const entries = body.entries.map((file, index) => {
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
