import {
  METADATA_MAX_KEY_LENGTH,
  METADATA_MAX_KEYS,
  METADATA_MAX_VALUE_LENGTH,
} from '../../api/limits.js';
import type { FileMetadata } from '../../api/types.js';
import { fail } from '../ground/errors.js';

/** Validates user metadata: a flat object of strings within the documented limits. */
export function validateMetadata(value: unknown, source: string): FileMetadata {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    fail('invalid_request', `${source} must be a JSON object of string values.`);
  }
  const entries = Object.entries(value);
  if (entries.length > METADATA_MAX_KEYS) {
    fail('invalid_request', `${source} has more than ${METADATA_MAX_KEYS} keys.`);
  }
  const result: FileMetadata = {};
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > METADATA_MAX_KEY_LENGTH) {
      fail('invalid_request', `${source} keys must be 1 to ${METADATA_MAX_KEY_LENGTH} characters.`);
    }
    if (key === '__proto__') {
      // A legal JSON key, but one that turns into a prototype in most JavaScript clients.
      fail('invalid_request', `${source} may not use the key "__proto__".`);
    }
    if (typeof item !== 'string') {
      fail('invalid_request', `${source} value of "${key}" must be a string.`);
    }
    if (item.length > METADATA_MAX_VALUE_LENGTH) {
      fail(
        'invalid_request',
        `${source} value of "${key}" is longer than ${METADATA_MAX_VALUE_LENGTH} characters.`,
      );
    }
    result[key] = item;
  }
  return result;
}

/** Metadata that travels as JSON text (the `X-Metadata` header or a multipart field). */
export function parseMetadataJson(text: string | undefined, source: string): FileMetadata {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('invalid_request', `${source} is not valid JSON.`);
  }
  return validateMetadata(parsed, source);
}
