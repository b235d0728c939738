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

/**
 * The first bytes by which a type is recognised (the service stores the type it finds in
 * a file's bytes, decisions.md "What a file is, from its bytes").
 */
const SIGNATURES: Record<string, number[]> = {
  // A whole 1x1 PNG: the recogniser reads the chunks after the signature.
  'image/png': hex(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2215bc60000000049454e44ae426082',
  ),
  'image/jpeg': [0xff, 0xd8, 0xff, 0xe0],
  'application/pdf': [...'%PDF-1.4\n'].map((c) => c.charCodeAt(0)),
  'video/mp4': [0, 0, 0, 0x18, ...'ftypisom'].map((c) =>
    typeof c === 'string' ? c.charCodeAt(0) : c,
  ),
  'audio/mpeg': [...'ID3'].map((c) => c.charCodeAt(0)).concat([3, 0, 0, 0, 0, 0]),
};

function hex(text: string): number[] {
  return Array.from({ length: text.length / 2 }, (_, index) =>
    Number.parseInt(text.slice(index * 2, index * 2 + 2), 16),
  );
}

/** `patternBytes` that start as a file of `type` does, so the service recognises them. */
export function bytesOfType(type: string, size: number, seed = 1): Uint8Array<ArrayBuffer> {
  const signature = SIGNATURES[type];
  if (!signature) throw new Error(`No signature for ${type}`);
  const bytes = patternBytes(Math.max(size, signature.length), seed);
  bytes.set(signature);
  return bytes;
}
