import { createMD5 } from 'hash-wasm';

/**
 * MD5 for browsers, which WebCrypto does not offer and S3 checks (`Content-MD5`): hash-wasm's
 * WebAssembly MD5, in a chunk of its own that a page fetches only when an upload asks for
 * it. A Blob or stream is hashed as it is read (about 1 ms of main thread per 700 KiB chunk
 * Chromium hands over), never held whole.
 */
export async function md5Base64(bytes: Blob | ReadableStream<Uint8Array>): Promise<string> {
  const hash = await createMD5();
  const reader = (bytes instanceof Blob ? bytes.stream() : bytes).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return btoa(String.fromCharCode(...hash.digest('binary')));
    hash.update(value);
  }
}
