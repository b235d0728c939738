import type { PartChecksum } from '../api/checksum.js';
import type { SignResponse, UploadState } from '../api/types.js';
import { ApiError } from './api-error.js';
import { backoffMs } from './retry.js';
import { isTransient } from './transient.js';

/**
 * The decisions of a multi-step upload, in one place for both uploaders: the typed client
 * (`FilehostClient.uploadFile`, `uploadFiles`) and `<file-uploader>`'s Uppy plugins. What
 * was signed, which parts are missing (a resume), fresh URLs merged into a plan, what
 * complete is told, and which failures are worth another try. (The steps themselves, in
 * order, are `UploadSequence`'s; what only sending parts needs is `part-plan.ts`.)
 */

/** One part of a file's upload: where to PUT it, and its ETag once the service holds it. */
export interface PlannedPart {
  partNumber: number;
  size: number;
  url: string;
  headers: Record<string, string>;
  etag: string | null;
}

/** What the sign step learned about a file: its upload id and its parts. */
export interface UploadPlan {
  uploadId: string;
  /** What the sign answered: shown on every later call about this upload. */
  uploadToken: string | null;
  partSize: number;
  /** The digest every part PUT must carry, when the upload was signed with one. */
  checksum: PartChecksum | null;
  parts: PlannedPart[];
}

export function planFromSign(signed: SignResponse): UploadPlan {
  return {
    uploadId: signed.id,
    // A service from before upload tokens answers none.
    uploadToken: signed.uploadToken ?? null,
    partSize: signed.partSize,
    // A service from before checksums answers none.
    checksum: signed.checksum ?? null,
    parts: signed.parts.map((part) => ({
      partNumber: part.partNumber,
      size: part.size,
      url: part.url,
      headers: part.headers,
      etag: null,
    })),
  };
}

/**
 * A plan from `GET /v1/uploads/:id`: fresh URLs, and the parts already held (resume). The
 * state never carries the token: the caller kept it from the sign.
 */
export function planFromState(state: UploadState, uploadToken: string | null): UploadPlan {
  return {
    uploadId: state.id,
    uploadToken,
    partSize: state.partSize,
    checksum: state.checksum ?? null,
    parts: state.parts.map((part) => ({
      partNumber: part.partNumber,
      size: part.size,
      url: part.url ?? '',
      headers: part.headers ?? {},
      etag: part.etag,
    })),
  };
}

/** A part as complete is told of it: the ETag its PUT answered. */
export interface ClaimedPart {
  partNumber: number;
  etag: string;
}

/**
 * What complete is told: every part with the ETag its PUT answered, once all have one;
 * otherwise nothing, and the service completes with the parts it holds.
 */
export function claimedParts(plan: UploadPlan): ClaimedPart[] | undefined {
  const claimed: ClaimedPart[] = [];
  for (const { partNumber, etag } of plan.parts) {
    if (etag === null) return undefined;
    claimed.push({ partNumber, etag });
  }
  return claimed;
}

/** Where in its upload a file failed. */
export type UploadStep = 'sign' | 'upload' | 'complete';

/**
 * Whether a file whose upload failed is started again by itself, and after how long (ms):
 * a transient failure (no answer, 408, 429, 5xx) or an expired URL, after the service's
 * `Retry-After` or a backoff (an expired URL at once); and a first 403 on a part PUT, which
 * the new attempt resumes with fresh URLs. Null: the file waits for its user.
 */
export function fileRetryDelayMs(
  error: unknown,
  step: UploadStep,
  attempt: number,
  maxAttempts: number,
): number | null {
  if (!(error instanceof ApiError) || attempt >= maxAttempts) return null;
  // An expired URL is signed again; damaged bytes are sent again (the store kept none).
  if (error.code === 'url_expired' || error.code === 'checksum_mismatch') return 0;
  const refusedUrl = step === 'upload' && error.status === 403 && attempt === 0;
  if (!isTransient(error) && !refusedUrl) return null;
  return backoffMs(error.retryAfter, attempt, 1000);
}
