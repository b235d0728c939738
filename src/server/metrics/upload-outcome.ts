import { ServiceError } from '../ground/errors.js';
import type { UploadOutcome } from './service-metrics.js';

/**
 * How an upload that threw ended: `refused` for the client's reasons (a documented 4xx:
 * its type, its size, a quota, malware), `failed` for anything else (the service's fault,
 * or the connection lost).
 */
export function uploadFailure(error: unknown): Exclude<UploadOutcome, 'ready' | 'expired'> {
  return error instanceof ServiceError && error.status < 500 ? 'refused' : 'failed';
}
