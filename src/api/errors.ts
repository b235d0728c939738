/**
 * Every error code the service answers with, and its HTTP status: shared by the service
 * (which throws them) and the client (which narrows on them). `status` and `code` are the
 * stable wire contract; the human messages live with the service (server/ground/error-messages.ts)
 * so that browser bundles do not carry them.
 */
export const API_ERROR_STATUS = {
  invalid_request: 400,
  missing_file: 400,
  empty_body: 400,
  size_mismatch: 400,
  checksum_missing: 400,
  checksum_mismatch: 400,
  missing_auth: 401,
  invalid_key: 401,
  token_expired: 401,
  origin_not_allowed: 403,
  secret_key_required: 403,
  invalid_signature: 403,
  url_expired: 403,
  quota_exceeded: 403,
  token_exhausted: 403,
  token_scope: 403,
  upload_token_required: 403,
  not_found: 404,
  request_timeout: 408,
  upload_incomplete: 409,
  upload_not_pending: 409,
  upload_conflict: 409,
  too_large: 413,
  unsupported_type: 415,
  infected: 422,
  metadata_unreadable: 422,
  unscannable: 422,
  uri_too_long: 414,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
  insufficient_storage: 507,
} as const satisfies Record<string, number>;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/** The body of every error response. Extra fields inside `error` may appear. */
export interface ApiErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    /** The request's `X-Request-Id`: quote it when reporting a failure, it finds its log lines. */
    requestId?: string;
    [extra: string]: unknown;
  };
}

export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && Object.hasOwn(API_ERROR_STATUS, value);
}
