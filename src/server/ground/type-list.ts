/**
 * A list of accepted types as an operator writes it (`FILEHOST_ALLOWED_TYPES`, `npm run admin
 * -- projects set --types`): comma-separated `type/subtype` or `type/*`; `*` (or `any`)
 * for every type (no list). Throws a `TypeError` naming the entry that is not a type.
 */
export function parseTypeList(raw: string): string[] | null {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (entries.length === 0 || entries.some((entry) => entry === '*' || entry === 'any')) {
    return null;
  }
  for (const entry of entries) {
    if (!/^[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+)$/.test(entry)) {
      throw new TypeError(`"${entry}" is not a media type like image/png or image/*`);
    }
  }
  return entries;
}
