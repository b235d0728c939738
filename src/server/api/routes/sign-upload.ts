import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BATCH, PLAN_SIGN_CAP } from '../../../api/limits.js';
import type { SignBatchResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import type { Project } from '../../db/metadata-store.js';
import {
  BATCH_JSON_LIMIT,
  isPlainObject,
  JSON_LIMIT,
  jsonDeadline,
  readSizedJson,
} from '../../http/body.js';
import { atIndex, fail } from '../../http/errors.js';
import { normalizeMediaType } from '../../http/media-type.js';
import { type SignEntry, signUpload, signUploads } from '../../uploads/sign.js';
import { authenticate, type Caller } from '../auth.js';
import { validateMetadata } from '../metadata.js';
import { sanitizeName } from '../names.js';
import { requireAllowedType } from '../stored-type.js';
import {
  applyTokenPolicy,
  DELETE_AFTER,
  requireTokenFileSize,
  requireTokenType,
  wholeNumber,
} from '../upload-tokens.js';
import { parseVisibility } from '../visibility.js';

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
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  if (body.files === undefined) {
    // One file: held to the limit it always had.
    if (bytes > JSON_LIMIT) {
      fail('invalid_request', `The JSON body is larger than ${JSON_LIMIT / 1024} KiB.`);
    }
    const entry = validateSignEntry(body, caller.project, caller);
    reply.code(201).send(await signUpload(ctx, caller, request.ip, entry));
    return;
  }
  const { files } = body;
  if (!Array.isArray(files) || files.length < 1 || files.length > MAX_BATCH) {
    fail('invalid_request', `files must be an array of 1 to ${MAX_BATCH} files to sign.`);
  }
  const entries = files.map((file: unknown, index) => {
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

/**
 * Checks one file to sign (a single sign's body, or one entry of a batch) and answers it
 * normalized; throws the documented error a single sign gives for it. With an upload token,
 * its policy applies too: its size and types bound the file, its metadata wins, its
 * visibility and `deleteAfter` are forced.
 */
export function validateSignEntry(
  body: unknown,
  project: Pick<Project, 'plan' | 'allowedTypes'>,
  caller: Pick<Caller, 'keyKind' | 'token'>,
): SignEntry {
  const { plan } = project;
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  const { name, size, type, metadata, checksum, visibility, deleteAfter } = body;
  if (name !== undefined && typeof name !== 'string') {
    fail('invalid_request', 'name must be a string.');
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    fail('invalid_request', 'size must be a whole number of bytes.');
  }
  if (size === 0) fail('empty_body', 'The file is empty: there are no bytes to upload.');
  const cap = PLAN_SIGN_CAP[plan];
  if (size > cap) {
    fail('too_large', `The file is larger than ${formatCap(cap)}, the limit of the ${plan} plan.`, {
      extra: { limit: cap },
    });
  }
  if (type !== undefined && typeof type !== 'string') {
    fail('invalid_request', 'type must be a media type string.');
  }
  if (checksum !== undefined && typeof checksum !== 'boolean') {
    fail('invalid_request', 'checksum must be true or false.');
  }
  if (deleteAfter !== undefined && caller.keyKind !== 'secret') {
    fail(
      'secret_key_required',
      'deleteAfter at sign needs the secret key; an upload token sets it in its policy.',
    );
  }
  const ownDeleteAfter = wholeNumber(
    deleteAfter,
    'deleteAfter',
    DELETE_AFTER.min,
    DELETE_AFTER.max,
  );
  const mime = normalizeMediaType(type, 'type');
  requireAllowedType(project.allowedTypes, mime, 'declared');
  const given = {
    metadata: validateMetadata(metadata, 'metadata'),
    visibility: parseVisibility(visibility, 'visibility'),
  };
  const policy = caller.token?.policy;
  if (policy) {
    requireTokenFileSize(policy, size);
    requireTokenType(policy, mime, 'declared');
  }
  return {
    name: sanitizeName(name),
    size,
    mime,
    ...(policy ? applyTokenPolicy(policy, given.metadata, given.visibility) : given),
    checksum: checksum === true,
    deleteAfter: policy ? policy.deleteAfter : ownDeleteAfter,
  };
}

function formatCap(bytes: number): string {
  return bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${bytes / 1_000_000} MB`;
}
