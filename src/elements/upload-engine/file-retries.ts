import type { ApiError } from '../../client/api-error.js';
import { MissingChunkError } from '../../client/missing-chunk.js';
import { fileRetryDelayMs, type UploadStep } from '../../client/upload-plan.js';
import type { ConnectionProblem } from '../shared/connection.js';
import { describeApiError } from '../shared/failure-text.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import { type FailureStep, failureContext, localFailure, type UploadFailure } from './failure.js';
import { type FailureCause, LocalFailure } from './failure-cause.js';
import type { FileUpload } from './file-state.js';
import { fromXhrError } from './xhr-error.js';

/**
 * A file's failures and its automatic retries: what went wrong (as the retry rules and the
 * page each need it), whether the file starts again by itself and when.
 */

/**
 * How the uploader names a code for its user when the call was about an upload the file
 * already had (its parts, its completion, its state on a resume): a missing upload is one
 * that expired. The sign of a new upload has none: `not_found` there is a wrong endpoint.
 */
const ALIASES = { not_found: 'upload_expired' };

export function describeFailure(
  error: ApiError,
  step: FailureStep,
  strings: FileUploaderStrings,
  context: { locale: string; origin: string },
  aboutItsUpload = step !== 'sign',
): UploadFailure {
  const aliases = aboutItsUpload ? ALIASES : undefined;
  const described = describeApiError(error, strings.errors, { ...context, aliases });
  return { ...described, code: error.code, step };
}

/**
 * The service's refusals of a file as it is (its size, its type, no bytes, malware), and of
 * the uploader's right to send more (the token's limits spent, a token required): no
 * retry helps.
 */
const FILE_REFUSED = [
  'too_large',
  'unsupported_type',
  'empty_body',
  'infected',
  'metadata_unreadable',
  'unscannable',
  'token_exhausted',
  'upload_token_required',
];

/** Whether a failure is the service refusing the file itself (then no Retry is offered). */
export function refusesTheFile(failure: UploadFailure): boolean {
  return FILE_REFUSED.includes(failure.code);
}

/** Automatic retries of one file after transient failures, before it is left to the user. */
const AUTO_RETRIES = 3;

/** A failure of any step as it was: ours as thrown, a PUT's XHR failure as an `ApiError`. */
export function causeOf(error: unknown, step: UploadStep): FailureCause {
  if (error instanceof MissingChunkError) return { error: missingChunk(step), step };
  return { error: isLocalFailure(error) ? error : fromXhrError(error), step };
}

/** A chunk the upload needs (the part sender, MD5) is not deployed: retrying cannot help. */
function missingChunk(step: FailureStep): LocalFailure {
  return new LocalFailure((strings) =>
    localFailure(
      'script_missing',
      step,
      strings.errors.script_missing(failureContext({ code: 'script_missing' })),
    ),
  );
}

/** A failure in the page's words (the only place an `ApiError` becomes text). */
export function describeCause(
  { error, step }: FailureCause,
  host: { readonly texts: FileUploaderStrings; readonly locale: string },
): UploadFailure {
  if (isLocalFailure(error)) return error.word(host.texts, host.locale);
  return describeFailure(error, step, host.texts, {
    locale: host.locale,
    origin: window.location.origin,
  });
}

/** How long before a failed file starts again by itself (ms); null: it waits for its user. */
export function autoRetryDelayMs(upload: FileUpload): number | null {
  const { cause } = upload;
  if (!cause || isLocalFailure(cause.error)) return null;
  return fileRetryDelayMs(cause.error, cause.step, upload.attempts, AUTO_RETRIES);
}

/** Starts the file again after `delayMs`; shown as retrying until then. */
export function scheduleRetry(upload: FileUpload, delayMs: number, start: () => void): void {
  clearRetry(upload);
  const timer = setTimeout(() => {
    upload.retry = null;
    start();
  }, delayMs);
  upload.retry = { timer, at: Date.now() + delayMs };
}

export function clearRetry(upload: FileUpload): void {
  if (upload.retry) clearTimeout(upload.retry.timer);
  upload.retry = null;
}

/** The page's own settings stop the file before any request (no key, a secret key). */
export function setupFailure(problem: ConnectionProblem): LocalFailure {
  const code = problem === 'secret_key' ? 'invalid_key' : 'missing_auth';
  return new LocalFailure((strings) =>
    localFailure(code, 'sign', strings.errors[problem](failureContext({ code }))),
  );
}

function isLocalFailure(error: unknown): error is LocalFailure {
  return error instanceof LocalFailure;
}
