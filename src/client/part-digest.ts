import type { Hash } from 'node:crypto';
import { CHECKSUM_HEADER, checksumHeaderValue, type PartChecksum } from '../api/checksum.js';
import { Batcher, eachAlone } from './batcher.js';
import { loadChunk } from './missing-chunk.js';
import type { UploadBody } from './upload-body.js';

/**
 * The header that carries a part's digest, as its upload asks for it (`{}` where this
 * runtime cannot hash: WebCrypto is missing outside secure contexts).
 */
export async function digestHeaders(
  algorithm: PartChecksum,
  body: UploadBody,
): Promise<Record<string, string>> {
  return digestHeader(algorithm, await partDigest(algorithm, body));
}

/**
 * The same for a Blob, with only what a browser needs (what `<file-uploader>` loads); `{}`
 * for an upload signed without checksums (`algorithm` null).
 */
export async function blobDigestHeader(
  algorithm: PartChecksum | null,
  blob: Blob,
): Promise<Record<string, string>> {
  return algorithm ? digestHeader(algorithm, await blobDigest(algorithm, blob)) : {};
}

function digestHeader(algorithm: PartChecksum, digest: string | null): Record<string, string> {
  return digest === null
    ? {}
    : { [CHECKSUM_HEADER[algorithm]]: checksumHeaderValue(algorithm, digest) };
}

/**
 * The digest of a part's bytes (base64) for the header its upload asks for, or null when
 * this runtime cannot compute it.
 *
 * Node (and Deno, Bun) hash with `node:crypto` as the bytes stream by, so a 64 MiB part read
 * from disk is never held whole; it is looked up at run time (`process.getBuiltinModule`),
 * not imported, so browser bundles never see it. Browsers: see `blobDigest`.
 *
 * A stream body is used up by hashing: the caller slices the part again to send it.
 */
export async function partDigest(
  algorithm: PartChecksum,
  body: UploadBody,
): Promise<string | null> {
  const createHash = nodeCreateHash();
  if (!createHash) {
    return blobDigest(algorithm, body instanceof Blob ? body : new Blob([await wholeBytes(body)]));
  }
  const hash = createHash(algorithm);
  await eachChunk(body, (chunk) => hash.update(chunk));
  return hash.digest('base64');
}

/**
 * A browser's digest of a Blob: SHA-256 with WebCrypto, which needs the bytes at once (the
 * part is read into memory, then let go) and hashes off the page's main thread; MD5 (what
 * S3 checks; WebCrypto has none) read and hashed in a worker by the WebAssembly MD5 of
 * `./md5.js`, a chunk loaded on first use. Null without WebCrypto (outside secure contexts).
 */
export async function blobDigest(algorithm: PartChecksum, blob: Blob): Promise<string | null> {
  if (algorithm === 'md5') return (await loadChunk(() => import('./md5.js'))).md5Base64(blob);
  if (typeof crypto === 'undefined' || !crypto.subtle) return null;
  if (blob.size <= SMALL_BLOB_BYTES) return smallBlobDigests.add(blob);
  return sha256Base64(await blob.arrayBuffer());
}

/** Small enough to be read together with others (at most 64 of them: 16 MiB at once). */
const SMALL_BLOB_BYTES = 256 * 1024;

/**
 * SHA-256 of small Blobs asked for at about the same time, read as ONE Blob: a browser
 * reads each Blob from its blob store with a round trip between processes, so 200 files of
 * 20 KiB took 130-180 ms read one by one and 55-95 ms read together (same page, 4 runs).
 * When the read fails (a file gone from the disk), each is read alone: the others hash.
 */
const smallBlobDigests = new Batcher<Blob, string>(
  async (blobs) => {
    const hashEach = (bytes: ArrayBuffer) => {
      let offset = 0;
      return eachAlone(blobs, (blob) => {
        offset += blob.size;
        return sha256Base64(new Uint8Array(bytes, offset - blob.size, blob.size));
      });
    };
    try {
      return await hashEach(await new Blob(blobs).arrayBuffer());
    } catch {
      return eachAlone(blobs, async (blob) => sha256Base64(await blob.arrayBuffer()));
    }
  },
  { windowMs: 0, max: 64 },
);

/** WebCrypto's SHA-256 of `bytes`, base64 (32 bytes: one call of fromCharCode takes them). */
export async function sha256Base64(bytes: BufferSource): Promise<string> {
  return btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))));
}

/** Whether hashing `body` uses it up, so the bytes must be sliced again to be sent. */
export function consumedByHashing(body: UploadBody): boolean {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

function nodeCreateHash(): ((algorithm: string) => Hash) | null {
  const runtime = (globalThis as { process?: Partial<NodeJS.Process> }).process;
  const crypto = runtime?.getBuiltinModule?.('node:crypto');
  return crypto?.createHash ?? null;
}

async function eachChunk(body: UploadBody, use: (chunk: Uint8Array) => void): Promise<void> {
  if (typeof body === 'string') {
    use(new TextEncoder().encode(body));
    return;
  }
  if (body instanceof ArrayBuffer) {
    use(new Uint8Array(body));
    return;
  }
  if (body instanceof Uint8Array) {
    use(body);
    return;
  }
  const reader = (body instanceof Blob ? body.stream() : body).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    use(value);
  }
}

async function wholeBytes(body: UploadBody): Promise<Uint8Array<ArrayBuffer>> {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  return new Uint8Array(await new Response(body).arrayBuffer());
}
