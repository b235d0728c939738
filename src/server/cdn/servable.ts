import type { Readable } from 'node:stream';
import type { ByteRange } from '../storage/blob-store.js';

/**
 * What the CDN answers a GET or HEAD with, whatever it is (a file, or a variant of an image):
 * its size, its headers (validators included), and its bytes, from memory or opened from
 * the store, whole or by range.
 */
export interface Servable {
  size: number;
  /** Lower-case names; `etag` and `last-modified` are the validators. */
  headers: Record<string, string>;
  /** The whole body when it is held in memory; null: `open` reads it. */
  bytes: Buffer | null;
  /**
   * The body (a range of it), or null when it went away since it was looked up: a stream,
   * or for a small answer, where the store can, the bytes in one buffer.
   */
  open(range?: ByteRange): Promise<Readable | Buffer | null>;
}
