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
  const digest = await crypto.subtle.digest('SHA-256', await wholeBytes(body));
  return toBase64(new Uint8Array(digest));
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

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary);
}

/**
 * The `Content-Digest` header for a Blob's bytes (WebCrypto SHA-256): what `<file-uploader>`
 * adds to each part PUT of an upload signed with `checksum: 'sha256'`. The part is read into
 * memory once (at most one part size); WebCrypto hashes it off the page's main thread.
 */
export async function sha256Header(blob: Blob): Promise<Record<string, string>> {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  // 32 bytes: one call of fromCharCode takes them all.
  const base64 = btoa(String.fromCharCode(...new Uint8Array(digest)));
  return { [CHECKSUM_HEADER.sha256]: checksumHeaderValue('sha256', base64) };
}
