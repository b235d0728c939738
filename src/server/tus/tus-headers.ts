import type { IncomingHttpHeaders } from 'node:http';
import type { ApiErrorCode } from '../../api/errors.js';
import { fail, ServiceError } from '../ground/errors.js';

/** The one protocol version served (tus.io's "Resumable upload protocol 1.0.0"). */
export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = [
  'creation',
  'creation-with-upload',
  'expiration',
  'checksum',
  'termination',
];
/** `Upload-Checksum` algorithms, as tus names them, with Node's name for each. */
export const TUS_CHECKSUMS = { sha1: 'sha1', md5: 'md5', sha256: 'sha256' } as const;
export type TusChecksumAlgorithm = keyof typeof TUS_CHECKSUMS;

/** The only body type a PATCH (and creation-with-upload) may carry. */
export const TUS_BODY_TYPE = 'application/offset+octet-stream';

/** The tus headers a browser may send and read (CORS), beside the API's own. */
export const TUS_REQUEST_HEADERS = [
  'Tus-Resumable',
  'Upload-Length',
  'Upload-Metadata',
  'Upload-Offset',
  'Upload-Checksum',
  'X-HTTP-Method-Override',
];
export const TUS_RESPONSE_HEADERS = [
  'Location',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Tus-Checksum-Algorithm',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Expires',
  'Filehost-File-Id',
  'Filehost-File-Url',
];

/**
 * An error whose status is tus's rather than the API's for its code: the body keeps the
 * documented code (`checksum_mismatch`, `invalid_request`), while the status is the one a
 * tus client acts on (`460`, `412`).
 */
export class TusStatusError extends ServiceError {
  override readonly status: number;
  constructor(
    status: number,
    code: ApiErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(code, message, { headers });
    this.status = status;
  }
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) fail('invalid_request', `The ${name} header may appear only once.`);
  return value;
}

/** `412` unless the request says it speaks tus 1.0.0 (every request but `OPTIONS`). */
export function requireTusResumable(headers: IncomingHttpHeaders): void {
  const version = single(headers, 'tus-resumable');
  if (version !== TUS_VERSION) {
    throw new TusStatusError(
      412,
      'invalid_request',
      `This endpoint speaks tus ${TUS_VERSION}: send "Tus-Resumable: ${TUS_VERSION}".`,
      { 'Tus-Version': TUS_VERSION },
    );
  }
}

const DIGITS = /^(0|[1-9][0-9]{0,15})$/;

/** A non-negative integer header (`Upload-Length`, `Upload-Offset`); undefined when absent. */
export function byteCountHeader(headers: IncomingHttpHeaders, name: string): number | undefined {
  const value = single(headers, name);
  if (value === undefined) return undefined;
  const count = DIGITS.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(count)) {
    fail(
      'invalid_request',
      `${name} must be a whole number of bytes, not ${JSON.stringify(value)}.`,
    );
  }
  return count;
}

/**
 * `Upload-Metadata`: comma-separated pairs of a key and its base64 value (a key alone means
 * an empty value). A key repeated, a malformed pair or a value that is not base64 is
 * `400 invalid_request`: metadata read one way only.
 */
export function parseUploadMetadata(value: string | undefined): Map<string, string> {
  const pairs = new Map<string, string>();
  if (value === undefined || value.trim() === '') return pairs;
  for (const item of value.split(',')) {
    const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: ([A-Za-z0-9+/]*={0,2}))?\s*$/.exec(item);
    if (!match) fail('invalid_request', `Upload-Metadata has a malformed pair: ${item.trim()}`);
    const [, key, encoded = ''] = match as unknown as [string, string, string | undefined];
    if (pairs.has(key)) fail('invalid_request', `Upload-Metadata names ${key} twice.`);
    if (encoded.length % 4 !== 0) {
      fail('invalid_request', `Upload-Metadata's ${key} is not base64.`);
    }
    const decoded = Buffer.from(encoded, 'base64');
    const text = decoded.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(decoded)) {
      fail('invalid_request', `Upload-Metadata's ${key} is not UTF-8 text.`);
    }
    pairs.set(key, text);
  }
  return pairs;
}

/** `Upload-Checksum: <algorithm> <base64 digest>`; null when absent. */
export function parseUploadChecksum(
  headers: IncomingHttpHeaders,
): { algorithm: TusChecksumAlgorithm; digest: Buffer } | null {
  const value = single(headers, 'upload-checksum');
  if (value === undefined) return null;
  const match = /^([a-z0-9]+) ([A-Za-z0-9+/]+={0,2})$/.exec(value.trim());
  const algorithm = match?.[1];
  if (!match || algorithm === undefined || !(algorithm in TUS_CHECKSUMS)) {
    fail(
      'invalid_request',
      `Upload-Checksum must be "<algorithm> <base64 digest>" with one of ${Object.keys(TUS_CHECKSUMS).join(', ')}.`,
    );
  }
  return {
    algorithm: algorithm as TusChecksumAlgorithm,
    digest: Buffer.from(match[2] as string, 'base64'),
  };
}
