import { parseMetadataJson } from '../rules/metadata.js';
import { parseUploadMetadata } from './tus-headers.js';

/** The name a file gets when its client sends none (tus makes `filename` optional). */
const UNNAMED = 'upload';

/**
 * A creation's `Upload-Length` and `Upload-Metadata` as the body of a sign
 * (`validateSignEntry` checks it, so a tus creation is refused exactly as a sign is):
 * `filename` (or Uppy's `name`), `filetype` (or `type`), `visibility`, `metadata` (a JSON
 * object of strings) and `deleteAfter` (seconds; the secret key only, as at sign). Other keys
 * are ignored: clients add their own (Uppy sends `relativePath`).
 */
export function signEntryOfMetadata(
  header: string | undefined,
  size: number,
): Record<string, unknown> {
  const pairs = parseUploadMetadata(header);
  const name = pairs.get('filename') || pairs.get('name') || UNNAMED;
  const type = pairs.get('filetype') || pairs.get('type') || undefined;
  const deleteAfter = pairs.get('deleteAfter');
  return {
    name,
    size,
    ...(type ? { type } : {}),
    metadata: parseMetadataJson(pairs.get('metadata'), 'Upload-Metadata metadata'),
    ...(pairs.has('visibility') ? { visibility: pairs.get('visibility') } : {}),
    ...(deleteAfter === undefined
      ? {}
      : { deleteAfter: /^[0-9]{1,15}$/.test(deleteAfter) ? Number(deleteAfter) : deleteAfter }),
  };
}
