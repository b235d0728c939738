import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { UploadSource } from './client.js';

/**
 * A file on disk as an upload source for `FilehostClient.uploadFile` in Node: each part is
 * read as a stream of its byte range, so no part, let alone the file, is held in memory.
 */
export async function fileSource(path: string, type?: string): Promise<UploadSource> {
  const info = await stat(path);
  if (!info.isFile()) throw new TypeError(`${path} is not a file`);
  return {
    size: info.size,
    name: basename(path),
    type,
    slice: (start, end) =>
      Readable.toWeb(createReadStream(path, { start, end: end - 1 })) as ReadableStream<Uint8Array>,
  };
}
