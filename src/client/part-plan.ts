import type { UploadState } from '../api/types.js';
import type { PlannedPart, UploadPlan } from './upload-plan.js';

/**
 * What only sending a file's parts needs of its plan (`sendParts`, `putWithFreshUrl`):
 * which parts are missing, where each starts, fresh URLs taken in, and which refusals get
 * them. Apart from `upload-plan.ts`, so that the upload engine (which signs, resumes and
 * completes) does not carry it: its part sender, loaded on use, does.
 */

/** The parts the service does not hold yet: all of them at first, the rest on a resume. */
export function missingParts(plan: UploadPlan): PlannedPart[] {
  return plan.parts.filter((part) => part.etag === null);
}

/** Where each part starts in the file. */
export function partStart(plan: UploadPlan, part: PlannedPart): number {
  return (part.partNumber - 1) * plan.partSize;
}

/**
 * Takes the fresh URLs of `state` into `plan` (after an expired or refused URL); the ETags
 * the plan holds stay, so nothing already sent is sent again.
 */
export function takeFreshUrls(plan: UploadPlan, state: UploadState): UploadPlan {
  for (const fresh of state.parts) {
    const part = plan.parts.find((p) => p.partNumber === fresh.partNumber);
    if (part && fresh.url) {
      part.url = fresh.url;
      part.headers = fresh.headers ?? part.headers;
    }
  }
  return plan;
}

/**
 * Whether a failed part PUT gets fresh URLs (once): any 403 (an expired URL: a long upload,
 * a laptop asleep; S3 words it its own way) and no answer at all (an expired S3 URL answers
 * without CORS headers, which a browser reports as a network error).
 */
export function needsFreshUrls(status: number): boolean {
  return status === 403 || status === 0;
}
