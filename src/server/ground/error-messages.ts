import type { ApiErrorCode } from '../../api/errors.js';

/** The default sentence of each error code; handlers may say something more specific. */
export const ERROR_MESSAGES: Readonly<Record<ApiErrorCode, string>> = {
  invalid_request: 'The request is malformed.',
  missing_file: 'The multipart body has no part named "file".',
  empty_body: 'There are no bytes to store: the file is empty.',
  size_mismatch: 'The part body does not have the byte count that was signed for it.',
  checksum_missing:
    'This upload was signed with checksums: every part PUT must carry the digest of its bytes.',
  checksum_mismatch:
    'The part body does not match its digest (damaged on the way); it was not stored. Send it again.',
  missing_auth: 'No Authorization header. Send "Authorization: Bearer <API key>".',
  invalid_key: 'The API key is not recognized.',
  token_expired: 'The upload token has expired; ask your backend for a new one.',
  origin_not_allowed: "This origin is not on the publishable key's allowlist.",
  secret_key_required: 'This operation needs the secret key.',
  invalid_signature: 'The upload URL was altered or was not issued by this service.',
  url_expired: 'The upload URL has expired; sign the upload again.',
  quota_exceeded: "The project's storage quota or pending-upload cap would be passed.",
  token_exhausted: "The upload token's limit on files or bytes would be passed.",
  token_scope: 'An upload token is accepted only on upload calls; use the secret key here.',
  upload_token_required:
    'This project accepts uploads only with an upload token from its backend; the publishable key alone may list and get files.',
  not_found: 'Not found.',
  request_timeout:
    'The request body did not arrive in time; send it again (the connection is closed).',
  upload_incomplete: 'Not every part of the upload has arrived whole.',
  upload_not_pending: 'The upload is already complete.',
  upload_conflict:
    'The upload was completed with other parts than these: the file holds other bytes than the ones you sent.',
  too_large: 'The file is larger than the limit.',
  unsupported_type: 'This type of file is not accepted here; nothing was kept.',
  infected: 'The scanner found malware in the file; nothing was kept.',
  metadata_unreadable:
    'The location could not be removed from this photo (its metadata cannot be rewritten, or a position is still found); nothing was kept.',
  unscannable:
    'The scanner could not check the file within its limits (an archive that unpacks to too much, or a scan that takes too long); nothing was kept.',
  uri_too_long: 'The request URL is longer than 8 KiB.',
  rate_limited: 'Too many requests; retry after the given delay.',
  headers_too_large: 'The request headers are larger than the service accepts (16 KiB).',
  internal_error: 'The service failed unexpectedly. Try again later.',
  unavailable:
    'The service cannot answer now (its database or storage is busy or unreachable). Retry later.',
  insufficient_storage: 'There is no room to store the bytes now; nothing was kept. Retry later.',
};
