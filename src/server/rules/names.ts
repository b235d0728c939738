import { DEFAULT_NAME, NAME_MAX_BYTES } from '../../api/limits.js';
import { cleanName } from '../../api/names.js';
import { fail } from '../ground/errors.js';

const ONLY_DOTS = /^\.+$/;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

const encoder = new TextEncoder();

/** The display name rules (README, the API): NFC, unsafe characters removed, ≤255 UTF-8 bytes. */
export function sanitizeName(raw: string | undefined | null): string {
  if (!raw) return DEFAULT_NAME;
  const cleaned = cleanName(raw);
  const cut = truncateUtf8(cleaned, NAME_MAX_BYTES).trim();
  if (cut === '' || ONLY_DOTS.test(cut)) return DEFAULT_NAME;
  return cut;
}

/** Cuts on a code point boundary so the result is still valid UTF-8. */
function truncateUtf8(value: string, maxBytes: number): string {
  if (encoder.encode(value).length <= maxBytes) return value;
  let bytes = 0;
  let out = '';
  for (const char of value) {
    const size = encoder.encode(char).length;
    if (bytes + size > maxBytes) break;
    bytes += size;
    out += char;
  }
  return out;
}

/**
 * `X-Filename` carries UTF-8 names percent-encoded (headers are Latin-1); a value without
 * any `%XX` is taken as it is.
 */
export function decodeFilenameHeader(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!PERCENT_ESCAPE.test(value)) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    fail('invalid_request', 'X-Filename has a percent-encoding that is not valid UTF-8.');
  }
}

/** The file's public URL: the last segment is decorative, the CDN routes on the id. */
export function fileUrl(cdnUrl: string, id: string, name: string): string {
  return `${cdnUrl}/${id}/${encodeURIComponent(name)}`;
}
