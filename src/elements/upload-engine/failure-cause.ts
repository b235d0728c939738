import type { ApiError } from '../../client/api-error.js';
import type { UploadStep } from '../../client/upload-plan.js';
import type { FailureWording } from './failure.js';

/**
 * A failure the uploader words itself, never retried by itself: found before any request
 * (no key, a secret key), or an answer it says in its own terms (a remembered upload the
 * service no longer knows).
 */
export class LocalFailure extends Error {
  constructor(readonly word: FailureWording) {
    // No message of its own: what the page and the user read is `word`'s, in their language.
    super();
  }
}

/** What made a file fail, kept as it was (an `ApiError`) until the page's words are needed. */
export interface FailureCause {
  error: ApiError | LocalFailure;
  step: UploadStep;
}
