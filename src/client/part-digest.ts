import type { Hash } from 'node:crypto';
import { CHECKSUM_HEADER, checksumHeaderValue, type PartChecksum } from '../api/checksum.js';
import type { UploadBody } from './client.js';

/**
 * The digest of a part's bytes (base64) for the header its upload asks for, or null when
 * this runtime cannot compute it without a library: MD5 in a browser (WebCrypto has no
 * MD5), so a browser sends S3 parts unchecked rather than carry an MD5 implementation in
 * every page's bundle.
 *
 * Node (and Deno, Bun) hash with `node:crypto` as the bytes stream by, so a 64 MiB part read
 * from disk is never held whole; it is looked up at run time (`process.getBuiltinModule`),
 * not imported, so browser bundles never see it. Browsers hash SHA-256 with WebCrypto, which
 * needs the part's bytes at once (a Blob part is read into memory, then let go).
 *
 * A stream body is used up by hashing: the caller slices the part again to send it.
 */
export async function partDigest(
  algorithm: PartChecksum,
  body: UploadBody,
): Promise<string | null> {
  const createHash = nodeCreateHash();
  if (createHash) {
    const hash = createHash(algorithm);
    await eachChunk(body, (chunk) => hash.update(chunk));
    return hash.digest('base64');
  }
  if (algorithm !== 'sha256' || typeof crypto === 'undefined' || !crypto.subtle) return null;
  return sha256Base64(await wholeBytes(body));
}

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

/**
 * The `Content-Digest` header for a Blob's bytes (WebCrypto SHA-256): what `<file-uploader>`
 * adds to each part PUT of an upload signed with `checksum: 'sha256'`. The part is read into
 * memory once (at most one part size); WebCrypto hashes it off the page's main thread.
 */
export async function sha256Header(blob: Blob): Promise<Record<string, string>> {
  return {
    [CHECKSUM_HEADER.sha256]: checksumHeaderValue(
      'sha256',
      await sha256Base64(await blob.arrayBuffer()),
    ),
  };
}
