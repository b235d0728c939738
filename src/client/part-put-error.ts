import { ApiError } from './api-error.js';

/**
 * A refused part PUT in the words of the API. S3 answers part PUTs itself, in XML; its
 * `BadDigest` (the bytes do not match their `Content-MD5`) is what the local store calls
 * `checksum_mismatch`, so a caller handles one code whichever storage holds the parts.
 */
export function partPutError(error: ApiError, bodyText: string): ApiError {
  if (error.code !== 'unexpected_response' || !/<Code>BadDigest<\/Code>/.test(bodyText)) {
    return error;
  }
  return new ApiError(
    error.status,
    'checksum_mismatch',
    'The storage refused the part: its bytes do not match their Content-MD5 (S3 BadDigest).',
    { details: { storageCode: 'BadDigest' } },
  );
}
