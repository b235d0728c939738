import contentType from 'content-type';
import { supportedMimeTypes } from 'file-type';
import { DEFAULT_MIME } from '../../api/limits.js';
import { fail } from './errors.js';

/**
 * A client-declared media type, validated and normalized (lower-case type, parameters
 * kept, e.g. a text file's charset). Absent means `application/octet-stream`.
 */
export function normalizeMediaType(value: string | undefined, source: string): string {
  if (value === undefined || value.trim() === '') return DEFAULT_MIME;
  try {
    return contentType.format(contentType.parse(value));
  } catch {
    fail('invalid_request', `${source} "${truncate(value)}" is not a valid media type.`);
  }
}

/** The essence (`type/subtype`) of a stored media type, for decisions about serving it. */
export function mediaEssence(value: string): string {
  return (value.split(';', 1)[0] ?? '').trim().toLowerCase();
}

function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

/**
 * Whether the recogniser knows `type` from bytes (file-type's list): only such a type can be
 * vouched for by what a file is, so only such a type matches a wildcard (`image/*`) or may
 * be served inline.
 */
export function isRecognisable(type: string): boolean {
  return supportedMimeTypes.has(mediaEssence(type) as never);
}
