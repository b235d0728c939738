import { randomBytes } from 'node:crypto';
import { UPLOAD_TOKEN_PREFIX } from '../../api/routes.js';
import type { FileMetadata, UploadTokenPolicy, Visibility } from '../../api/types.js';
import type { JsonBodyOf } from '../contract/operations.js';
import type { Project } from '../db/metadata-store.js';
import { fail, ServiceError } from '../ground/errors.js';
import { mediaEssence } from '../ground/media-type.js';
import { hashKey } from '../ground/secrets.js';
import { parseTypeList } from '../ground/type-list.js';
import { validateMetadata } from './metadata.js';
import { largestFile, projectQuota } from './quota.js';
import { requireAllowedType } from './stored-type.js';

/**
 * `expiresIn` of a token: 60 s to 24 hours (UploadTokenRequest's bounds), 1 hour by default
 * (decisions.md).
 */
export const TOKEN_LIFETIME = { min: 60, max: 86_400, default: 3_600 } as const;

/** A new upload token: `upt_` and 32 random bytes, URL-safe; only `hash` is stored. */
export function newUploadTokenValue(): { token: string; hash: string } {
  const token = UPLOAD_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashKey(token) };
}

/**
 * The body of `POST /v1/upload-tokens`, of its declared form (`UploadTokenRequest`: a
 * field it does not list is `400 invalid_request`, so a misspelt limit cannot pass
 * silently as no limit) and within the project's own limits (no token may allow more than
 * the project does): the policy as it is stored, and the token's lifetime in seconds.
 */
export function parseTokenPolicy(
  body: JsonBodyOf<'createUploadToken'>,
  project: Pick<Project, 'plan' | 'allowedTypes' | 'storageQuota' | 'maxPendingUploads'>,
): { policy: UploadTokenPolicy; expiresIn: number } {
  const given = body ?? {};
  const quota = projectQuota(project);
  return {
    policy: {
      maxFiles: given.maxFiles ?? null,
      maxFileSize: atMost(given.maxFileSize, 'maxFileSize', largestFile(project.plan)),
      maxBytes: atMost(given.maxBytes, 'maxBytes', quota.storageBytes ?? Number.MAX_SAFE_INTEGER),
      types: tokenTypes(given.types, project.allowedTypes),
      metadata: { ...given.metadata },
      visibility: given.visibility ?? null,
      deleteAfter: given.deleteAfter ?? null,
    },
    expiresIn: given.expiresIn ?? TOKEN_LIFETIME.default,
  };
}

/** An optional whole number (its form checked) within the project's `max`: null when absent. */
function atMost(value: number | undefined, field: string, max: number): number | null {
  if (value === undefined) return null;
  if (value > max) fail('invalid_request', `${field} must be a whole number from 1 to ${max}.`);
  return value;
}

/**
 * A token's `types`: a non-empty array of entries in the allowed-types syntax, each one the
 * project accepts too (a token never widens the project's list). `["*"]` is every type the
 * project takes: no list of the token's own.
 */
function tokenTypes(
  value: readonly string[] | undefined,
  projectTypes: readonly string[] | null,
): string[] | null {
  if (value === undefined) return null;
  let types: string[] | null;
  try {
    types = parseTypeList(value.join(','));
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
 * Refuses a type the project does not take, or the upload's token (when it has one):
 * `415 unsupported_type`. What each upload checks the type its bytes say against.
 */
export function requireTypeFor(
  allowedTypes: readonly string[] | null,
  policy: UploadTokenPolicy | null | undefined,
  type: string,
  what: 'declared' | 'recognised',
): void {
  requireAllowedType(allowedTypes, type, what);
  if (policy) requireTokenType(policy, type, what);
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
