import type { ApiError, ClientErrorCode } from '../../client/api-error.js';
import type { UploadStep } from '../../client/upload-plan.js';
import { describeApiError, type FailureContext, failureContext } from '../shared/failure-text.js';
import type { FileUploaderStrings } from './strings.js';

export { failureContext };

/** Codes of failures found in the browser before anything is sent. */
export type RejectionCode = 'type_not_allowed' | 'too_many_files' | 'duplicate_file';

export type FailureCode = ClientErrorCode | RejectionCode;

/** Where in the upload a file failed. */
export type FailureStep = 'validate' | 'sign' | 'upload' | 'complete';

/** A failed file, as the page sees it in `upload-error` and the user reads it. */
export interface UploadFailure {
  code: FailureCode;
  /** HTTP status of the service's answer; 0 when it never answered (or for `validate`). */
  status: number;
  step: FailureStep;
  /** The sentence shown to the user. */
  message: string;
  /** The service's own message, when there was one. */
  serviceMessage: string | null;
  /** Seconds the service asked to wait (rate_limited). */
  retryAfter: number | null;
  details: Readonly<Record<string, unknown>>;
}

/**
 * How the uploader names a code for its user once a file has an upload: a missing upload
 * is one that expired. (At sign there is none yet: `not_found` there is a wrong endpoint.)
 */
const ALIASES = { not_found: 'upload_expired' };

export function describeFailure(
  error: ApiError,
  step: FailureStep,
  strings: FileUploaderStrings,
  context: { locale: string; origin: string },
): UploadFailure {
  const aliases = step === 'sign' ? undefined : ALIASES;
  const described = describeApiError(error, strings.errors, { ...context, aliases });
  return { ...described, code: error.code, step };
}

/** A failure found before any request (no key, a secret key, no endpoint). */
export class LocalFailure extends Error {
  constructor(readonly failure: UploadFailure) {
    super(failure.message);
  }
}

/** What made a file fail, kept as it was (an `ApiError`) until the page's words are needed. */
export interface FailureCause {
  error: ApiError | LocalFailure;
  step: UploadStep;
}

/** A failure found in the browser, before (or instead of) any request. */
export function localFailure(code: FailureCode, step: FailureStep, message: string): UploadFailure {
  return { code, status: 0, step, message, serviceMessage: null, retryAfter: null, details: {} };
}

/** A file refused by the checks made before sending, with the rule it broke. */
export function rejection(
  code: RejectionCode | 'too_large' | 'empty_body',
  strings: FileUploaderStrings,
  context: Partial<FailureContext>,
): UploadFailure {
  return localFailure(code, 'validate', strings.errors[code](failureContext({ code, ...context })));
}
