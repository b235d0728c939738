import { ApiError, type ClientErrorCode, isTransientStatus } from '../../client/api-error.js';
import { formatBytes } from '../shared/format.js';
import type { FailureContext, FileUploaderStrings } from './strings.js';

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

/** Failures worth an automatic retry: the same request may well work a little later. */
export function isTransientFailure(failure: UploadFailure): boolean {
  // A failure of our own before any request (status 0, code not network_error) is not one.
  if (failure.code === 'network_error' || failure.code === 'url_expired') return true;
  return failure.status !== 0 && isTransientStatus(failure.status);
}

/** An XHR failure from Uppy (`error.request` is the XMLHttpRequest) as an ApiError. */
export function fromXhrError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const xhr = (error as { request?: XMLHttpRequest } | undefined)?.request;
  if (!xhr || xhr.status === 0) return ApiError.network(error);
  return ApiError.fromBody(xhr.status, xhr.responseText, xhr.getResponseHeader('Retry-After'));
}

export function describeFailure(
  error: ApiError,
  step: FailureStep,
  strings: FileUploaderStrings,
  context: { locale: string; origin: string },
): UploadFailure {
  const limit =
    typeof error.details.limit === 'number' ? formatBytes(error.details.limit, context.locale) : '';
  const full = failureContext({
    origin: typeof error.details.origin === 'string' ? error.details.origin : context.origin,
    limit,
    seconds: String(error.retryAfter ?? 60),
    code: error.code,
    message: error.message,
  });
  const text = strings.errors;
  const byCode: Partial<Record<FailureCode, () => string>> = {
    origin_not_allowed: () => text.origin_not_allowed(full),
    invalid_key: () => text.invalid_key(full),
    missing_auth: () => text.missing_auth(full),
    too_large: () => text.too_large(full),
    rate_limited: () => text.rate_limited(full),
    empty_body: () => text.empty_body(full),
    network_error: () => text.network_error(full),
    not_found: () => text.upload_expired(full),
  };
  return {
    code: error.code,
    status: error.status,
    step,
    message: (byCode[error.code] ?? (() => text.unexpected(full)))(),
    serviceMessage: error.code === 'network_error' ? null : error.message,
    retryAfter: error.retryAfter,
    details: error.details,
  };
}

/** A message context with only what is known filled in. */
export function failureContext(known: Partial<FailureContext>): FailureContext {
  return {
    origin: '',
    limit: '',
    seconds: '',
    accept: '',
    max: '',
    code: '',
    message: '',
    ...known,
  };
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
