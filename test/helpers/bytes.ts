/**
 * Deterministic bytes of a given size, so every byte of a round trip can be compared.
 * No Node imports: the browser tests use it too.
 */
export function patternBytes(size: number, seed = 1): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < size; index++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}
