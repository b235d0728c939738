/** Where a media type is cut into parts for `*` (as Uppy's `mime-match` cuts it). */
const PARTS = /[/+.]/;

/**
 * Whether an `accept` list (as `<input accept>`: media types, `type/*`, extensions,
 * comma-separated; empty: anything) takes `file`, read exactly as the upload engine reads it
 * (Uppy's `allowedFileTypes`), so that an image waits for the editor only if it would be
 * accepted once it goes, and is refused at once otherwise.
 */
export function accepts(accept: string, file: { name: string; type: string }): boolean {
  const items = accept
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length === 0 || items.some((item) => takes(item, file));
}

function takes(item: string, file: { name: string; type: string }): boolean {
  if (item.includes('/')) return file.type !== '' && typeMatches(file.type, item);
  const extension = extensionOf(file.name);
  return item.startsWith('.') && extension !== '' && extension === item.slice(1).toLowerCase();
}

/** `image/*` takes `image/png`; a pattern without `*` only itself. */
function typeMatches(type: string, pattern: string): boolean {
  const target = type.replace(/;.*?$/, '');
  const wanted = pattern.split(';')[0] ?? '';
  const targetParts = target.split(PARTS);
  if (targetParts.length < 2) return false;
  if (!wanted.includes('*')) return target === wanted;
  return wanted.split(PARTS).every((part, index) => part === '*' || part === targetParts[index]);
}

/** After the name's last dot, in lower case; none for `name` or `name.`. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 || dot === name.length - 1 ? '' : name.slice(dot + 1).toLowerCase();
}
