import { PLAN_SIGN_CAP, type Plan } from '../../api/limits.js';
import { check } from '../contract-reader/validate.js';
import type { Project } from '../db/metadata-store.js';
import { fail, ServiceError } from '../ground/errors.js';
import { normalizeMediaType } from '../ground/media-type.js';
import { isPlainObject } from '../ground/plain-object.js';
import type { Caller } from '../rules/auth.js';
import { validateMetadata } from '../rules/metadata.js';
import { sanitizeName } from '../rules/names.js';
import { requireAllowedType } from '../rules/stored-type.js';
import {
  applyTokenPolicy,
  requireTokenFileSize,
  requireTokenType,
} from '../rules/upload-tokens.js';
import { parseVisibility } from '../rules/visibility.js';
import type { SignEntry } from './sign.js';

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
  if (isPlainObject(body) && body.deleteAfter !== undefined && caller.keyKind !== 'secret') {
    fail(
      'secret_key_required',
      'deleteAfter at sign needs the secret key; an upload token sets it in its policy.',
    );
  }
  // The form is the schema's (SignRequest); what follows are the plan's and the project's rules.
  const { name, size, type, metadata, checksum, visibility, deleteAfter } = check(
    'SignRequest',
    body,
    {
      '/size minimum': ({ data }) =>
        data === 0
          ? new ServiceError('empty_body', 'The file is empty: there are no bytes to upload.')
          : undefined,
      // Past 2^53 a number is no count of bytes at all.
      '/size maximum': ({ data }) => (Number.isSafeInteger(data) ? tooLarge(plan) : undefined),
    },
  );
  if (size > PLAN_SIGN_CAP[plan]) throw tooLarge(plan);
  const ownDeleteAfter = deleteAfter ?? null;
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

/** `413 too_large` for a file over the plan's cap. */
function tooLarge(plan: Plan): ServiceError {
  const cap = PLAN_SIGN_CAP[plan];
  return new ServiceError(
    'too_large',
    `The file is larger than ${formatCap(cap)}, the limit of the ${plan} plan.`,
    { extra: { limit: cap } },
  );
}

function formatCap(bytes: number): string {
  return bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${bytes / 1_000_000} MB`;
}
