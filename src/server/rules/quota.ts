import { MAX_ONE_REQUEST_BYTES, PLAN_SIGN_CAP, type Plan } from '../../api/limits.js';
import type { Usage } from '../../api/types.js';
import {
  type AnonymousCaps,
  type FileRow,
  type Project,
  type ProjectUsage,
  type Quota,
  QuotaExceededError,
  type Reservation,
  TokenExhaustedError,
} from '../db/metadata-store.js';
import { atIndex, ServiceError } from '../ground/errors.js';
import { addressGroup } from '../rate-limit/address-group.js';
import type { Caller } from './auth.js';
import type { CoreContext } from './context.js';

/**
 * One client address group's anonymous pending uploads at once (decisions.md, "Abuse by
 * the public key, round two").
 */
export const ADDRESS_PENDING_UPLOADS = 200;
/** One client address group's anonymous bytes per window: 1 GB, or twice the largest file. */
export const ADDRESS_BYTES = 1_000_000_000;
/** The window an address group's anonymous bytes are counted in: any 24 hours. */
export const ADDRESS_WINDOW_MS = 24 * 3600 * 1000;
/** The part of a project's limits its anonymous files may hold when it sets none of its own. */
export const DEFAULT_ANONYMOUS_SHARE = 0.5;

/** Each plan's limits (decisions.md, "Quotas and usage"): free 10 GB and 1,000 pending uploads. */
export const PLAN_QUOTA: Readonly<Record<Plan, Quota>> = {
  free: { storageBytes: 10_000_000_000, pendingUploads: 1_000 },
  paid: { storageBytes: null, pendingUploads: null },
};

/** A project's limits: its own where set (0: none), else its plan's. */
export function projectQuota(
  project: Pick<Project, 'plan' | 'storageQuota' | 'maxPendingUploads'>,
): Quota {
  const plan = PLAN_QUOTA[project.plan];
  const own = (value: number | null, planValue: number | null) =>
    value === null ? planValue : value === 0 ? null : value;
  return {
    storageBytes: own(project.storageQuota, plan.storageBytes),
    pendingUploads: own(project.maxPendingUploads, plan.pendingUploads),
  };
}

/**
 * The largest file a project of `plan` may hold, whichever way it is uploaded: the sign
 * flow's cap or the one-request upload's, whichever is larger.
 */
export function largestFile(plan: Plan): number {
  return Math.max(PLAN_SIGN_CAP[plan], MAX_ONE_REQUEST_BYTES);
}

/** The part of its limits a project's anonymous files may hold together (0 to 1). */
export function anonymousShareOf(project: Pick<Project, 'anonymousShare'>): number {
  return project.anonymousShare ?? DEFAULT_ANONYMOUS_SHARE;
}

/**
 * The bounds of anonymous uploads (publishable key, no upload token) of a project from one
 * client address group (`addressGroup`): per group at most 200 pending uploads, and 1 GB
 * (or twice the plan's largest file, whichever is larger) of uploads started in any 24
 * hours that are pending or became ready; all anonymous files together, pending or ready,
 * at most the project's anonymous share of its quota and pending cap. So no stranger can
 * fill a project: its backend's uploads (secret key, upload tokens) always have the rest.
 */
export function anonymousCaps(
  project: Pick<Project, 'plan' | 'storageQuota' | 'maxPendingUploads' | 'anonymousShare'>,
  address: string,
): AnonymousCaps {
  const quota = projectQuota(project);
  const largest = largestFile(project.plan);
  const share = anonymousShareOf(project);
  const part = (value: number | null) => (value === null ? null : Math.floor(value * share));
  return {
    address: addressGroup(address),
    perAddress: {
      uploads: ADDRESS_PENDING_UPLOADS,
      bytes: Math.max(ADDRESS_BYTES, 2 * largest),
      windowMs: ADDRESS_WINDOW_MS,
    },
    share: { storageBytes: part(quota.storageBytes), pendingUploads: part(quota.pendingUploads) },
  };
}

/**
 * Everything new uploads of `caller` must fit: the project's quota (`quota`, for one-request
 * uploads without the pending cap), the anonymous caps for a publishable key, the token's
 * limits for an upload token.
 */
export function reservationFor(
  caller: Caller,
  address: string,
  now: number,
  quota: Quota = projectQuota(caller.project),
): Reservation {
  const { token } = caller;
  return {
    quota,
    now,
    anonymous: caller.keyKind === 'publishable' ? anonymousCaps(caller.project, address) : null,
    token: token
      ? { id: token.id, maxFiles: token.policy.maxFiles, maxBytes: token.policy.maxBytes }
      : null,
  };
}

/** `403 token_exhausted`: which of the token's limits, and how much of it is left. */
export function tokenExhaustedError(error: TokenExhaustedError): ServiceError {
  const available = Math.max(0, error.max - error.used);
  return new ServiceError(
    'token_exhausted',
    error.limit === 'files'
      ? `This upload token allows ${error.max} files; ${available} more may be uploaded with it.`
      : `This upload token allows ${error.max} bytes in all; ${available} bytes are left.`,
    {
      extra: {
        limit: error.limit === 'files' ? 'max_files' : 'max_bytes',
        max: error.max,
        available,
      },
    },
  );
}

/** `403 quota_exceeded`, saying which limit and how much room is left. */
export function quotaError(error: QuotaExceededError, quota: Quota): ServiceError {
  const { usage } = error;
  if (error.limit !== 'storage' && error.limit !== 'pending_uploads') {
    const { max, used } = error.bound;
    const available = Math.max(0, max - used);
    const hours = ADDRESS_WINDOW_MS / 3_600_000;
    const sentences: Record<typeof error.limit, string> = {
      anonymous_storage: `Files uploaded without an upload token may hold at most ${max} bytes in all, their share of the project's quota, and ${available} bytes of it are left; uploads with an upload token or the secret key are not held back by it.`,
      anonymous_pending_uploads: `Uploads without an upload token may have at most ${max} pending uploads at once, their share of the project's cap, and ${available} of them are left; uploads with an upload token or the secret key are not held back by it.`,
      address_bytes: `Uploads without an upload token from one address may bring at most ${max} bytes in any ${hours} hours, and ${available} bytes of it are left now.`,
      address_uploads: `Uploads without an upload token from one address may have at most ${max} pending uploads at once; complete or cancel some first.`,
    };
    // Both shares are one limit on the wire: the anonymous share of the project's limits.
    const limit =
      error.limit === 'anonymous_storage' || error.limit === 'anonymous_pending_uploads'
        ? 'anonymous_share'
        : error.limit;
    return new ServiceError('quota_exceeded', sentences[error.limit], {
      extra: { limit, quota: max, available },
    });
  }
  if (error.limit === 'storage') {
    const room = Math.max(0, (quota.storageBytes ?? 0) - usage.storedBytes - usage.pendingBytes);
    return new ServiceError(
      'quota_exceeded',
      `The project's storage quota of ${quota.storageBytes} bytes would be passed: ${room} bytes are left (stored files and pending uploads count).`,
      { extra: { limit: 'storage', quota: quota.storageBytes, available: room } },
    );
  }
  return new ServiceError(
    'quota_exceeded',
    `The project may have at most ${quota.pendingUploads} pending uploads at once; complete or cancel some first.`,
    {
      extra: {
        limit: 'pending_uploads',
        quota: quota.pendingUploads,
        available: Math.max(0, (quota.pendingUploads ?? 0) - usage.pendingUploads),
      },
    },
  );
}

/** The `GET /v1/usage` answer. */
export function usageAnswer(usage: ProjectUsage, quota: Quota): Usage {
  return {
    storedBytes: usage.storedBytes,
    files: usage.files,
    pendingBytes: usage.pendingBytes,
    pendingUploads: usage.pendingUploads,
    anonymousBytes: usage.anonymousBytes,
    variantBytes: usage.variantBytes,
    quota: { storageBytes: quota.storageBytes, pendingUploads: quota.pendingUploads },
  };
}

/**
 * Inserts new uploads of `caller`, only if they fit everything `reservationFor` bounds (the
 * project's quota; for a publishable key the anonymous caps; for a token its limits),
 * checked and inserted as one step (exact however many sign at once, on however many
 * instances): else `403 quota_exceeded` or `403 token_exhausted`, with the `index` of the
 * first entry over when there are several, and nothing created. `storageOnly`: one-request
 * uploads, which are not pending uploads, meet no pending-upload cap.
 */
export async function reserveUploads(
  ctx: CoreContext,
  caller: Caller,
  address: string,
  rows: FileRow[],
  options: { now?: number; storageOnly?: boolean } = {},
): Promise<void> {
  const quota = projectQuota(caller.project);
  const bounds = options.storageOnly ? { ...quota, pendingUploads: null } : quota;
  try {
    await ctx.db.insertFiles(
      caller.project.id,
      rows,
      reservationFor(caller, address, options.now ?? ctx.now(), bounds),
    );
  } catch (error) {
    let refusal: ServiceError;
    if (error instanceof QuotaExceededError) refusal = quotaError(error, quota);
    else if (error instanceof TokenExhaustedError) refusal = tokenExhaustedError(error);
    else throw error;
    throw rows.length > 1 ? atIndex(refusal, error.index, 'files') : refusal;
  }
}
