import type { ClientErrorCode } from '../../client/api-error.js';
import { failureContext } from '../shared/failure-text.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';

export { failureContext };

/** Codes of failures found in the browser before anything is sent. */
export type RejectionCode = 'type_not_allowed' | 'too_many_files' | 'duplicate_file';

/**
 * `script_missing`: a file of the script-tag bundle (the upload engine, say) is not deployed
 * beside `filehost.js`; its URL is named in the console.
 */
export type FailureCode = ClientErrorCode | RejectionCode | 'script_missing';

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
  /**
   * Extra fields of the service's error; `requestId` names the failed request (shown after
   * the code, so a user's report quoting it finds the service's log lines).
   */
  details: Readonly<Record<string, unknown>>;
}

/**
 * A failure found in the browser, as it is put in the page's words: kept as this, not as
 * the words, so that a failure on screen is worded again when the element's language
 * changes.
 */
export type FailureWording = (strings: FileUploaderStrings, locale: string) => UploadFailure;

/** A failure found in the browser, before (or instead of) any request. */
export function localFailure(code: FailureCode, step: FailureStep, message: string): UploadFailure {
  return {
    code,
    status: 0,
    step,
    message,
    serviceMessage: null,
    retryAfter: null,
    details: {},
  };
}
