import { ApiError } from '../../client/api-error.js';
import { partPutError } from '../../client/part-put-error.js';
import { isTransientStatus } from '../../client/transient.js';

/**
 * An XHR failure from Uppy (`error.request` is the XMLHttpRequest: a part PUT) as an
 * ApiError, S3's refusals in the API's words (a `BadDigest` is `checksum_mismatch`).
 */
export function fromXhrError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const xhr = (error as { request?: XMLHttpRequest } | undefined)?.request;
  if (!xhr || xhr.status === 0) return ApiError.network(error);
  const { status, responseText } = xhr;
  return partPutError(
    ApiError.fromBody(status, responseText, xhr.getResponseHeader('Retry-After')),
    responseText,
  );
}

/** Part PUTs worth repeating at once: a lost connection, 408, 429, 5xx. */
export function shouldRetryXhr(xhr: XMLHttpRequest): boolean {
  return isTransientStatus(xhr.status);
}
