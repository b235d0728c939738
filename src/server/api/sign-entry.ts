import { PLAN_SIGN_CAP } from '../../api/limits.js';
import type { Project } from '../db/metadata-store.js';
import { isPlainObject } from '../http/body.js';
import { fail } from '../http/errors.js';
import { normalizeMediaType } from '../http/media-type.js';
import type { SignEntry } from '../uploads/sign.js';
import type { Caller } from './auth.js';
import { validateMetadata } from './metadata.js';
import { sanitizeName } from './names.js';
import { requireAllowedType } from './stored-type.js';
import {
  applyTokenPolicy,
  DELETE_AFTER,
  requireTokenFileSize,
  requireTokenType,
  wholeNumber,
} from './upload-tokens.js';
import { parseVisibility } from './visibility.js';

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
