import { isPlainObject } from '../http/body.js';
import { fail } from '../http/errors.js';
import type { ClaimedPart } from '../uploads/complete.js';

/**
 * The parts a complete body lists (`{ "parts": [ … ] }`, optional); none when absent. Read
 * by both complete routes (the single one, and each entry of a batch).
 */
export function parseClaimedParts(body: unknown): ClaimedPart[] {
  if (body === undefined) return [];
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  if (body.parts === undefined) return [];
  if (!Array.isArray(body.parts)) fail('invalid_request', 'parts must be an array.');
  return body.parts.map((part: unknown) => {
    if (
      !isPlainObject(part) ||
      !Number.isSafeInteger(part.partNumber) ||
      typeof part.etag !== 'string'
    ) {
      fail(
        'invalid_request',
        'Each of parts must be { "partNumber": <integer>, "etag": "<string>" }.',
      );
    }
    return { partNumber: part.partNumber as number, etag: part.etag };
  });
}
