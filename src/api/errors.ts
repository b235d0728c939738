/**
 * Every error the service answers with: one table, shared by the service (which throws
 * them) and the client (which narrows on them). `status` and `code` are the stable wire
 * contract; `message` is the default human sentence and may change.
 */
export const API_ERRORS = {
  invalid_request: { status: 400, message: 'The request is malformed.' },
  missing_file: { status: 400, message: 'The multipart body has no part named "file".' },
  empty_body: { status: 400, message: 'There are no bytes to store: the file is empty.' },
  size_mismatch: {
    status: 400,
    message: 'The part body does not have the byte count that was signed for it.',
  },
  missing_auth: {
    status: 401,
    message: 'No Authorization header. Send "Authorization: Bearer <API key>".',
  },
  invalid_key: { status: 401, message: 'The API key is not recognized.' },
  origin_not_allowed: {
    status: 403,
    message: "This origin is not on the publishable key's allowlist.",
  },
  secret_key_required: { status: 403, message: 'This operation needs the secret key.' },
  invalid_signature: {
    status: 403,
    message: 'The upload URL was altered or was not issued by this service.',
  },
  url_expired: { status: 403, message: 'The upload URL has expired; sign the upload again.' },
  not_found: { status: 404, message: 'Not found.' },
  upload_incomplete: {
    status: 409,
    message: 'Not every part of the upload has arrived whole.',
  },
  upload_not_pending: { status: 409, message: 'The upload is already complete.' },
  too_large: { status: 413, message: 'The file is larger than the limit.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the given delay.' },
  internal_error: { status: 500, message: 'The service failed unexpectedly. Try again later.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** The body of every error response. Extra fields inside `error` may appear. */
export interface ApiErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    [extra: string]: unknown;
  };
}

export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && Object.hasOwn(API_ERRORS, value);
}
