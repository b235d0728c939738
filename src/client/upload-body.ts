/**
 * A request body the runtime's fetch can send: streams need `duplex: 'half'` (added for you).
 * A module of its own because both the client (which sends it) and part-digest.ts (which
 * hashes it) need it, and part-digest.ts must not import the client that imports it.
 */
export type UploadBody =
  | Blob
  | ArrayBuffer
  | Uint8Array<ArrayBuffer>
  | ReadableStream<Uint8Array>
  | string;
