import { MetadataUnavailableError } from '../db/unavailable.js';
import { ServiceError } from '../ground/errors.js';
import { BlobUnavailableError } from '../storage/blob-store.js';
import { isDiskFull } from '../storage/disk-reserve.js';

/** Seconds a client is asked to wait when the service's database or storage is away. */
const RETRY_AFTER_SECONDS = 5;

/**
 * A fault of the machine or of a store the service depends on, as the documented error:
 * never blamed on the client, and never a 500 with internals. Null for anything else.
 */
export function serviceFault(error: unknown): ServiceError | null {
  const full =
    (error instanceof BlobUnavailableError && error.reason === 'full') || isDiskFull(error);
  if (full) return new ServiceError('insufficient_storage');
  if (error instanceof MetadataUnavailableError || error instanceof BlobUnavailableError) {
    return new ServiceError('unavailable', undefined, {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      extra: { retryAfter: RETRY_AFTER_SECONDS },
    });
  }
  return null;
}
