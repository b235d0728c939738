/**
 * Characters that can disguise a file name or break a layout: C0/C1 controls, bidi
 * embeddings, overrides and isolates, and zero-width characters. `/` and `\` go too, so a
 * name can never read as a path. The service removes them from every stored name; the
 * elements remove them from names they show before the service has seen them.
 */
export const UNSAFE_NAME_CHARS =
  /[\p{Cc}\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF/\\]/gu;

/** NFC, unsafe characters removed, trimmed: the name as it is safe to show. */
export function cleanName(raw: string): string {
  return raw.normalize('NFC').replace(UNSAFE_NAME_CHARS, '').trim();
}
