import type { Readable } from 'node:stream';
import type { ServedFile } from '../cache/serving-cache.js';
import type { ServiceContext } from '../context.js';
import type { ByteRange, RangeSender } from '../storage/blob-store.js';
import { answerHead } from './answer-head.js';
import { fileHeaders } from './file-headers.js';
import type { Servable } from './servable.js';

/**
 * What serving `id` needs, from memory when the cache has it (`cache/serving-cache.ts`), else
 * from the stores (and then kept: with the bytes, for a small file read by a GET; never a
 * private file). Null when there is no ready file with this id, or it is private and the
 * request is not `signed` by a valid link.
 */
export async function servedFile(
  ctx: ServiceContext,
  id: string,
  wantsBytes: boolean,
  signed: boolean,
): Promise<ServedFile | null> {
  const cache = ctx.servingCache;
  const cached = cache.get(id);
  if (cached && !cache.options.trustRecords) {
    // Another instance may have deleted it: the row decides, the rest is immutable.
    const row = await ctx.db.getLiveFile(id);
    if (row?.status !== 'ready') {
      cache.forget(id);
      return null;
    }
  }
  if (cached && (cached.bytes || !wantsBytes || cached.row.size > cache.options.maxFileBytes)) {
    if (ctx.metrics) ctx.metrics.cdnCacheHits++;
    return cached;
  }
  if (ctx.metrics) ctx.metrics.cdnCacheMisses++;
  const epoch = cache.epoch;
  const row = cached?.row ?? (await ctx.db.getLiveFile(id));
  if (row?.status !== 'ready') return null;
  // Unsigned, a private file is not there: not a byte of it is read.
  if (row.visibility === 'private' && !signed) return null;
  const file: ServedFile = {
    row,
    headers: cached?.headers ?? fileHeaders(row),
    bytes: null,
    wholeHead: null,
  };
  if (wantsBytes && row.size <= cache.options.maxFileBytes) {
    const bytes = await readWhole(ctx, row.id, row.size);
    if (!bytes) return null;
    file.bytes = bytes;
  }
  // A private file is never kept: no path can then answer it from memory without its
  // link being checked, and its unsigned 404 costs what an unknown id's does.
  if (row.visibility === 'public' && cache.options.maxBytes > 0) {
    // Only the memory path sends it, and only what the cache holds reaches that path.
    if (file.bytes) file.wholeHead = answerHead(file.headers, row.size);
    cache.put(id, file, epoch);
  }
  return file;
}

/**
 * A file's bytes, all of them, or null when the store no longer has it (a store that ends
 * short is a fault, not a file).
 */
async function readWhole(ctx: ServiceContext, id: string, size: number): Promise<Buffer | null> {
  if (size === 0) return Buffer.alloc(0);
  ctx.servingCache.storeReads++;
  if (ctx.blobs.readRange) return ctx.blobs.readRange(id, { start: 0, end: size - 1, whole: true });
  const stream = await ctx.blobs.get(id);
  return stream && gathered(stream, size);
}

async function gathered(stream: Readable, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  if (bytes.length !== size) {
    throw new Error(`The store gave ${bytes.length} bytes of a ${size}-byte file.`);
  }
  return bytes;
}

/**
 * Answers up to this size are read from the store in one buffer of their exact size (one
 * read, where the store can: `BlobStore.readRange`), not streamed: a stream of a small file
 * costs more than the file (a read that finds its end, a buffer of the stream's chunk size
 * allocated for each read, the piping), and its chunk size is what a stream holds in
 * memory for a slow client anyway. Larger answers are streamed, by the exact range, so no
 * read is spent finding the end. (This is `open`'s way, for the routes' answers and a store
 * that cannot send an answer itself: the direct path lets the store send, `openSender`.)
 */
export const READ_WHOLE_BYTES = 256 * 1024;

/**
 * Answers larger than this are sent by the store itself where it can
 * (`BlobStore.openSender`: on the local disk, from buffers reused from one answer to the
 * next). Smaller ones are read in one buffer of their own (`READ_WHOLE_BYTES`): no larger
 * than what the allocator hands out from memory it already has.
 */
export const SEND_FROM_STORE_BYTES = 64 * 1024;

/** A stored file as the direct path answers it: `Servable`, and the store's own sending. */
export interface ServableFile extends Servable {
  /**
   * Null when the store does not send this answer itself (no bytes to send, a small answer,
   * a store without `openSender`): then `open` gives them. Else the bytes opened to be
   * sent, or null when the file went away since it was looked up.
   */
  openSender(range?: ByteRange): Promise<RangeSender | null> | null;
}

/** A file as it is stored: its bytes from memory when the serving cache holds them. */
export function servableFile(ctx: ServiceContext, file: ServedFile): ServableFile {
  const { row } = file;
  const wanted = (range?: ByteRange): ByteRange =>
    range ?? { start: 0, end: row.size - 1, whole: true };
  return {
    size: row.size,
    headers: file.headers,
    bytes: file.bytes,
    openSender: (range) => {
      const asked = wanted(range);
      const length = asked.end - asked.start + 1;
      if (file.bytes || length <= SEND_FROM_STORE_BYTES || !ctx.blobs.openSender) return null;
      ctx.servingCache.storeReads++;
      return ctx.blobs.openSender(row.id, asked);
    },
    open: async (range) => {
      const asked = wanted(range);
      const length = asked.end - asked.start + 1;
      if (length <= 0) return Buffer.alloc(0);
      ctx.servingCache.storeReads++;
      if (length <= READ_WHOLE_BYTES && ctx.blobs.readRange) {
        return ctx.blobs.readRange(row.id, asked);
      }
      return ctx.blobs.streamRange
        ? ctx.blobs.streamRange(row.id, asked)
        : ctx.blobs.get(row.id, asked);
    },
  };
}
