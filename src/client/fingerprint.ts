import { blobDigest } from './part-digest.js';

/** How much of each end of a file its fingerprint hashes: a file changed in place differs there. */
const FINGERPRINT_EDGE = 1024 * 1024;

/**
 * What tells a file's bytes apart from any others across runs, for both uploaders (a
 * `fileSource`'s in Node, `<file-uploader>`'s in IndexedDB): what the caller knows of the
 * file (`identity`: name or path, size, type, last change) and a SHA-256 of its first and
 * last MiB. The file is read only there, so a fingerprint of 10 GiB costs 2 MiB of reading.
 */
export async function fingerprintOf(
  file: Blob,
  identity: readonly (string | number)[],
): Promise<string> {
  const edges =
    file.size <= 2 * FINGERPRINT_EDGE
      ? file
      : new Blob([file.slice(0, FINGERPRINT_EDGE), file.slice(file.size - FINGERPRINT_EDGE)]);
  // Small files of a batch are read together (see blobDigest).
  return JSON.stringify([...identity, await blobDigest('sha256', edges)]);
}
