/**
 * A record's CDN URL, for a test of a public file: a private file's record has none
 * (`url: null`), and a test that reaches for it has gone wrong, so it fails here.
 */
export function publicUrlOf(record: { url: string | null; id?: string }): string {
  if (record.url === null) throw new Error(`The file ${record.id ?? ''} has no public URL.`);
  return record.url;
}
