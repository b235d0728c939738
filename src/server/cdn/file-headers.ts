import { create as contentDisposition } from 'content-disposition';
import contentType from 'content-type';
import type { FileRow } from '../db/metadata-store.js';
import { isRecognisable, mediaEssence } from '../ground/media-type.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';

/**
 * Charsets in which a browser reads a text file's bytes as the text a scanner or a person
 * sees in them. Any other declared charset can make the same bytes read as markup: in
 * UTF-7 `+ADw-script+AD4-` is `<script>`, and a browser that honours it renders what no
 * check of the bytes found (decisions.md, "Text served inline").
 */
const INLINE_TEXT_CHARSETS = new Set(['utf-8', 'us-ascii']);

/**
 * Types a browser may render in place. Everything else (HTML, SVG, XML, JavaScript and
 * anything unknown, and text in a charset other than UTF-8 or US-ASCII) could run script in
 * the CDN's origin, so it is served as an attachment under a sandboxing CSP.
 */
export function isSafeInline(mime: string): boolean {
  const essence = mediaEssence(mime);
  if (essence === 'image/svg+xml') return false;
  if (essence === 'text/plain') return hasInlineCharset(mime);
  // A media type is inline only when the recogniser knows it from bytes: a stored
  // `image/x-foo` may hold anything (HTML) that a browser could be talked into rendering.
  return (
    (/^(image|audio|video)\/[\w.+-]+$/.test(essence) && isRecognisable(essence)) ||
    essence === 'application/pdf'
  );
}

/** No `charset` parameter, or one of `INLINE_TEXT_CHARSETS` (case and quotes aside). */
function hasInlineCharset(mime: string): boolean {
  let charset: string | undefined;
  try {
    charset = contentType.parse(mime).parameters.charset;
  } catch {
    // Stored types were validated on the way in; one that no longer parses is not trusted.
    return false;
  }
  return charset === undefined || INLINE_TEXT_CHARSETS.has(charset.toLowerCase());
}

/** Files are immutable and ids never reused, so the id is a strong validator. */
export function etagOf(row: FileRow): string {
  return `"${row.id}"`;
}

/**
 * Every response header of a file that depends only on the file (all of them: it never
 * changes). Lower-case names, as the framework sends them; the memory path
 * (`memory-path.ts`) sends these as they are.
 */
export function fileHeaders(row: FileRow): Record<string, string> {
  const inline = isSafeInline(row.mime);
  return {
    'content-type': row.mime,
    etag: etagOf(row),
    'last-modified': new Date(row.createdAt).toUTCString(),
    'cache-control': 'public, max-age=31536000, immutable',
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': REQUEST_ID_HEADER,
    'cross-origin-resource-policy': 'cross-origin',
    'content-disposition': contentDisposition(row.name, { type: inline ? 'inline' : 'attachment' }),
    ...(inline ? {} : { 'content-security-policy': 'sandbox' }),
  };
}
