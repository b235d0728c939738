import { NETWORK_ERROR_CODES } from '../../ground/network-errors.js';
import { BlobNotFoundError, BlobUnavailableError } from '../blob-store.js';

/**
 * How the S3 store tells the service's faults (a bucket that is full or unreachable) from
 * everything else. Codes are matched by name because S3-compatible stores send the same
 * codes as AWS but not always the same statuses (RGW's `QuotaExceeded` is a 403).
 */

/** The store has no room: a quota, a full cluster. */
const FULL_CODES = new Set(['QuotaExceeded', 'InsufficientStorage', 'InsufficientCapacity']);

/** The store cannot answer now; a later attempt may succeed. */
const UNAVAILABLE_CODES = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'Throttling',
  'ThrottlingException',
  'TooManyRequests',
  'RequestTimeout',
  'TimeoutError',
]);

/** The HTTP status S3 answered with, if it answered at all. */
export function statusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}

/** The S3 error code (`NoSuchKey`, `SlowDown`…), which the SDK puts in `name`. */
export function codeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { Code?: unknown }).Code;
  return typeof code === 'string' ? code : error.name;
}

export function isNoSuchUpload(error: unknown): boolean {
  return codeOf(error) === 'NoSuchUpload';
}

/**
 * The multipart upload does not exist (any more). AWS says `NoSuchUpload`; RGW 16 says
 * `NoSuchKey` to ListParts for an upload that was aborted, completed or never made.
 */
export function isUploadGone(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'NoSuchUpload' || code === 'NoSuchKey';
}

/** `NoSuchKey` from GET, a bare 404 from HEAD (which has no body to name the code). */
export function isNoSuchKey(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'NoSuchKey' || code === 'NotFound' || statusOf(error) === 404;
}

function isNetworkError(error: unknown): boolean {
  // The SDK hands Node's own error through, sometimes wrapped; follow the causes.
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    if (current instanceof Error && current.name === 'TimeoutError') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Turns a fault of the store into `BlobUnavailableError` (keeping the original as `cause`)
 * and leaves every other error as it is, so a bug or a misconfiguration is not hidden as
 * "try again later".
 */
export function toStoreError(error: unknown, action: string): unknown {
  if (error instanceof BlobUnavailableError || error instanceof BlobNotFoundError) return error;
  const code = codeOf(error);
  const status = statusOf(error);
  const detail = `${code ?? 'error'}${status ? ` ${status}` : ''}`;
  if ((code && FULL_CODES.has(code)) || status === 507) {
    return new BlobUnavailableError('full', `S3 has no room to ${action} (${detail})`, {
      cause: error,
    });
  }
  if ((code && UNAVAILABLE_CODES.has(code)) || (status !== undefined && status >= 500)) {
    return new BlobUnavailableError('unreachable', `S3 could not ${action} (${detail})`, {
      cause: error,
    });
  }
  if (isNetworkError(error)) {
    return new BlobUnavailableError(
      'unreachable',
      `S3 is unreachable to ${action}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return error;
}
