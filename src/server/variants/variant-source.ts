import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileRow } from '../db/metadata-store.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { SourceFile } from './variant-encoder.js';

/**
 * The original of `row` as a file the encoder opens itself, or null when it went away: the
 * store's own file where it keeps one on this machine (the local disk), else a temporary
 * copy streamed from the store (a bucket), removed on `release`. Either way this process
 * never holds the whole original: a 95 MB original made into variants two at a time would
 * otherwise cost 190 MB of buffers on top of libvips' own memory.
 */
export async function openOriginal(blobs: BlobStore, row: FileRow): Promise<SourceFile | null> {
  if (blobs.localPath) {
    const path = blobs.localPath(row.id);
    const found = await stat(path).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    });
    if (!found) return null;
    checkSize(found.size, row);
    return { path, release: async () => {} };
  }
  const stream = await blobs.get(row.id);
  if (!stream) return null;
  const dir = await mkdtemp(join(tmpdir(), 'filehost-original-'));
  const release = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'original');
  try {
    await pipeline(stream, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    checkSize((await stat(path)).size, row);
  } catch (error) {
    await release();
    throw error;
  }
  return { path, release };
}

/** Blobs never change once stored: a size other than the record's is a fault of the store. */
function checkSize(size: number, row: FileRow): void {
  if (size !== row.size) {
    throw new Error(`The store gave ${size} bytes of a ${row.size}-byte file.`);
  }
}
