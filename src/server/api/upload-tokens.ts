import { randomBytes } from 'node:crypto';
import { UPLOAD_TOKEN_PREFIX } from '../../api/routes.js';
import type { FileMetadata, UploadTokenPolicy, Visibility } from '../../api/types.js';
import type { Project } from '../db/metadata-store.js';
import { isPlainObject } from '../http/body.js';
import { fail, ServiceError } from '../http/errors.js';
import { mediaEssence } from '../http/media-type.js';
import { hashKey } from '../secrets.js';
import { parseTypeList } from '../type-list.js';
import { validateMetadata } from './metadata.js';
import { largestFile, projectQuota } from './quota.js';
import { requireAllowedType } from './stored-type.js';
import { parseVisibility } from './visibility.js';

/** `expiresIn` of a token: 60 s to 24 hours, 1 hour by default (decisions.md). */
export const TOKEN_LIFETIME = { min: 60, max: 86_400, default: 3_600 } as const;
/** `deleteAfter` of a token or a secret-key sign: 60 s to 365 days. */
export const DELETE_AFTER = { min: 60, max: 365 * 86_400 } as const;
/** `maxFiles` of a token: a bound so that the number stays a number any database keeps. */
const MAX_FILES_BOUND = 1_000_000_000;

const POLICY_FIELDS = new Set([
  'maxFiles',
  'maxFileSize',
  'maxBytes',
  'types',
  'metadata',
  'visibility',
  'deleteAfter',
  'expiresIn',
]);

/** A new upload token: `upt_` and 32 random bytes, URL-safe; only `hash` is stored. */
export function newUploadTokenValue(): { token: string; hash: string } {
  const token = UPLOAD_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashKey(token) };
}

/**
 * The body of `POST /v1/upload-tokens`, checked against the project's own limits (no
 * token may allow more than the project does): the policy as it is stored, and the
 * token's lifetime in seconds. Anything else is `400 invalid_request`, a field the service
 * does not know included (a misspelt limit must not pass silently as no limit).
 */
export function parseTokenPolicy(
  body: unknown,
  project: Pick<Project, 'plan' | 'allowedTypes' | 'storageQuota' | 'maxPendingUploads'>,
): { policy: UploadTokenPolicy; expiresIn: number } {
  const given = body === undefined ? {} : body;
  if (!isPlainObject(given)) fail('invalid_request', 'The body must be a JSON object.');
  for (const field of Object.keys(given)) {
    if (!POLICY_FIELDS.has(field)) {
      fail('invalid_request', `${field} is not a field of an upload token's policy.`);
    }
  }
  const largest = largestFile(project.plan);
  const quota = projectQuota(project);
  const maxFileSize = wholeNumber(given.maxFileSize, 'maxFileSize', 1, largest);
  return {
    policy: {
      maxFiles: wholeNumber(given.maxFiles, 'maxFiles', 1, MAX_FILES_BOUND),
      maxFileSize,
      maxBytes: wholeNumber(
        given.maxBytes,
        'maxBytes',
        1,
        quota.storageBytes ?? Number.MAX_SAFE_INTEGER,
      ),
      types: tokenTypes(given.types, project.allowedTypes),
      metadata: given.metadata === undefined ? {} : validateMetadata(given.metadata, 'metadata'),
      visibility:
        given.visibility === undefined ? null : parseVisibility(given.visibility, 'visibility'),
      deleteAfter: wholeNumber(
        given.deleteAfter,
        'deleteAfter',
        DELETE_AFTER.min,
        DELETE_AFTER.max,
      ),
    },
    expiresIn:
      wholeNumber(given.expiresIn, 'expiresIn', TOKEN_LIFETIME.min, TOKEN_LIFETIME.max) ??
      TOKEN_LIFETIME.default,
  };
}

/** An optional whole number in `min..max`: null when absent, else `400 invalid_request`. */
export function wholeNumber(
  value: unknown,
  field: string,
  min: number,
  max: number,
): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail('invalid_request', `${field} must be a whole number from ${min} to ${max}.`, {
      extra: { field, min, max },
    });
  }
  return value;
}

/**
 * A token's `types`: a non-empty array of entries in the allowed-types syntax, each one the
 * project accepts too (a token never widens the project's list). `["*"]` is every type the
 * project takes: no list of the token's own.
 */
function tokenTypes(value: unknown, projectTypes: readonly string[] | null): string[] | null {
  if (value === undefined) return null;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > 100 ||
    !value.every((entry) => typeof entry === 'string' && entry.length <= 255)
  ) {
    fail('invalid_request', 'types must be an array of 1 to 100 media types like "image/*".');
  }
  let types: string[] | null;
  try {
    types = parseTypeList((value as string[]).join(','));
  } catch (error) {
    fail('invalid_request', `types: ${(error as Error).message}.`);
  }
  if (types === null || projectTypes === null) return types;
  for (const entry of types) {
    const [family] = entry.split('/');
    const covered = projectTypes.some(
      (allowed) => allowed === entry || allowed === '*/*' || allowed === `${family}/*`,
    );
    if (!covered) {
      fail(
        'invalid_request',
        `types: ${entry} is not accepted by the project (accepted: ${projectTypes.join(', ')}); a token cannot widen it.`,
      );
    }
  }
  return types;
}

/** `413 too_large` for a file larger than a token allows, naming the limit. */
export function tokenTooLarge(limit: number): ServiceError {
  return new ServiceError(
    'too_large',
    `The file is larger than ${limit} bytes, the largest file this upload token allows.`,
    { extra: { limit } },
  );
}

/** Refuses a file larger than a token allows. */
export function requireTokenFileSize(policy: UploadTokenPolicy, size: number): void {
  if (policy.maxFileSize !== null && size > policy.maxFileSize) {
    throw tokenTooLarge(policy.maxFileSize);
  }
}

/** Refuses a declared or recognised type outside a token's `types`: `415 unsupported_type`. */
export function requireTokenType(
  policy: UploadTokenPolicy,
  type: string,
  what: 'declared' | 'recognised',
): void {
  requireAllowedType(policy.types, mediaEssence(type), what);
}

/**
 * What a file signed with a token keeps: the uploader's metadata with the token's laid over
 * it (the token's keys win, so a page cannot forge `user`), and the token's visibility when
 * it sets one. The merged metadata must still fit the limits of any metadata.
 */
export function applyTokenPolicy(
  policy: UploadTokenPolicy,
  metadata: FileMetadata,
  visibility: Visibility,
): { metadata: FileMetadata; visibility: Visibility } {
  return {
    metadata: validateMetadata({ ...metadata, ...policy.metadata }, 'metadata'),
    visibility: policy.visibility ?? visibility,
  };
}
