/** Numbers of the contract that both the service and clients rely on. */

const MiB = 1024 * 1024;

/** One-request upload (`POST /v1/upload`): at most 100 MiB stored. */
export const MAX_ONE_REQUEST_BYTES = 100 * MiB;

export const PLANS = ['free', 'paid'] as const;
export type Plan = (typeof PLANS)[number];

/** Size caps of the multi-step (sign) flow: decimal 100 MB on free, as the reference says. */
export const PLAN_SIGN_CAP: Readonly<Record<Plan, number>> = {
  free: 100_000_000,
  paid: 5 * 1024 * MiB,
};

/** S3's minimum part size; no part but the last is ever smaller. */
export const MIN_PART_SIZE = 5 * MiB;
export const MAX_PARTS = 10_000;

/** Entries of one batch sign or batch complete (`files` / `uploads`): 1 to 100. */
export const MAX_BATCH = 100;

export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 100;

export const NAME_MAX_BYTES = 255;
export const DEFAULT_NAME = 'upload';
export const DEFAULT_MIME = 'application/octet-stream';

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;

/**
 * Uploads one client keeps signed but not finished at once (`<file-uploader>`, and each
 * `FilehostClient`), signing more as earlier ones complete: the service holds at most 200
 * anonymous pending uploads per address, so 2,000 files from one page still go.
 */
export const MAX_UNFINISHED_UPLOADS = 100;
