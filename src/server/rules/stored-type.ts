import { buffer } from 'node:stream/consumers';
import { fileTypeFromBuffer } from 'file-type';
import { DEFAULT_MIME } from '../../api/limits.js';
import { fail } from '../ground/errors.js';
import { isRecognisable, mediaEssence } from '../ground/media-type.js';
import type { BlobStore } from '../storage/blob-store.js';

/**
 * How much of a file's beginning the recogniser reads: file-type's own advice for a
 * buffer (4,100 bytes covers every signature it knows but a few container formats, which
 * it then reports as what it can tell from there).
 */
export const HEAD_BYTES = 4100;

/**
 * Types the recogniser could know from their bytes but that are text underneath, so a file
 * of them without the signature it looks for (XML without its `<?xml` line, say) is still
 * what it claims: they are kept when nothing is recognised.
 */
const TEXT_LIKE =
  /^(text\/|application\/(.+\+)?(xml|json|javascript|ecmascript)$|image\/svg\+xml$)/;

/**
 * The type a stored file is kept and served as, from its first bytes (decisions.md, "What
 * a file is, from its bytes"): the recognised type when there is one; otherwise the
 * declared type when it is one that cannot be known from bytes (plain text, CSV, JSON,
 * SVG, HTML …); and when it is one the recogniser would have known (an image, a PDF, an
 * archive …), the bytes are not what was declared: `application/octet-stream`.
 */
export async function storedType(declared: string, head: Uint8Array): Promise<string> {
  const recognised = await fileTypeFromBuffer(head);
  if (recognised) return recognised.mime;
  const essence = mediaEssence(declared);
  const knowable = isRecognisable(essence) && !TEXT_LIKE.test(essence);
  return knowable ? DEFAULT_MIME : declared;
}

/** The first `HEAD_BYTES` of a stored object: a ranged read, never the whole object. */
export async function readHead(blobs: BlobStore, key: string, size: number): Promise<Buffer> {
  if (size === 0) return Buffer.alloc(0);
  const stream = await blobs.get(key, { start: 0, end: Math.min(size, HEAD_BYTES) - 1 });
  return stream ? buffer(stream) : Buffer.alloc(0);
}

/**
 * Whether a project's list of types (`image/*`, `application/pdf`) admits `type`; a
 * project without a list admits every type. An exact entry matches the type as declared or
 * recognised; a wildcard only types the recogniser knows (decisions.md, "Allowed types"),
 * so `image/x-foo` with HTML inside is not an image to `image/*`.
 */
export function typeAllowed(allowed: readonly string[] | null, type: string): boolean {
  if (allowed === null) return true;
  const essence = mediaEssence(type);
  const [family] = essence.split('/');
  return allowed.some((entry) => {
    const wanted = entry.trim().toLowerCase();
    if (wanted === essence) return true;
    return (wanted === '*/*' || wanted === `${family}/*`) && isRecognisable(essence);
  });
}

/** Refuses a type outside the project's list: `415 unsupported_type`. */
export function requireAllowedType(
  allowed: readonly string[] | null,
  type: string,
  what: 'declared' | 'recognised',
): void {
  if (typeAllowed(allowed, type)) return;
  fail(
    'unsupported_type',
    what === 'declared'
      ? `Files of type ${mediaEssence(type)} are not accepted here (accepted: ${allowed?.join(', ')}).`
      : `The file's content is ${mediaEssence(type)}, a type not accepted here (accepted: ${allowed?.join(', ')}); nothing was kept.`,
    { extra: { type: mediaEssence(type), allowed } },
  );
}
