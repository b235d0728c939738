import { randomBytes } from 'node:crypto';
import { close, createReadStream, createWriteStream, fsync, open as openCallback } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import {
  BlobBusyError,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  type PartPlacement,
} from './blob-store.js';

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const WRITE_BUFFER = 1024 * 1024;
const READ_BUFFER = 256 * 1024;

interface PartWriter {
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Bytes on the local disk. Objects are written to `tmp/`, flushed and renamed into
 * `blobs/`, so one is whole or absent. A multipart upload is one sparse file in
 * `partial/` that parts write into at their offsets; completing renames it into
 * `blobs/`, so completing a 5 GiB upload copies nothing.
 *
 * Parts share that file, so this class serializes what S3 would keep apart: a re-written
 * part first stops the earlier writer of the same part, and completion or abort never
 * overlaps a part write. That bookkeeping is in memory, which is why one data directory
 * belongs to one process (see `data-dir-lock.ts`).
 */
export class LocalDiskBlobStore implements BlobStore {
  readonly #root: string;
  readonly #writers = new Map<string, Map<number, PartWriter>>();
  /** Keys being aborted: no new part write may start. */
  readonly #sealed = new Set<string>();
  readonly #completing = new Map<string, Promise<void>>();

  constructor(root: string) {
    this.#root = root;
  }

  async recover(): Promise<void> {
    await rm(join(this.#root, 'tmp'), { recursive: true, force: true });
    await Promise.all(
      ['tmp', 'blobs', 'partial'].map((dir) => mkdir(join(this.#root, dir), { recursive: true })),
    );
  }

  async put(key: string, source: AsyncIterable<Buffer> | Readable): Promise<{ size: number }> {
    const target = this.#blobPath(key);
    const temporary = join(this.#root, 'tmp', `${key}.${randomBytes(6).toString('hex')}`);
    let size = 0;
    try {
      await pipeline(
        source,
        async function* count(chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            yield chunk;
          }
        },
        fileWriter(temporary, 'wx', 0),
      );
      await syncFile(temporary);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await mkdir(dirname(target), { recursive: true });
    await rename(temporary, target);
    await syncDirectory(dirname(target));
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    let fd: number;
    try {
      fd = await openFd(this.#blobPath(key), 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    return createReadStream('', {
      fd,
      start: range?.start,
      end: range?.end,
      highWaterMark: READ_BUFFER,
    });
  }

  async delete(key: string, uploadId?: string | null): Promise<void> {
    if (uploadId) await this.abortMultipart(key, uploadId);
    await rm(this.#blobPath(key), { force: true });
  }

  async createMultipart(key: string, totalSize: number): Promise<string> {
    const path = this.#partialPath(key);
    const handle = await open(path, 'wx', 0o644);
    try {
      // Sized up front (sparse: no disk is used until parts arrive), so completing never
      // has to grow or copy it.
      await handle.truncate(totalSize);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(dirname(path));
    return key;
  }

  async writePart(
    key: string,
    _uploadId: string,
    part: PartPlacement,
    source: AsyncIterable<Buffer> | Readable,
  ): Promise<{ etag: string }> {
    for (;;) {
      const earlier = this.#writers.get(key)?.get(part.partNumber);
      if (!earlier) break;
      earlier.abort.abort(new Error('Replaced by a newer write of the same part'));
      await earlier.done;
    }
    if (this.#sealed.has(key) || this.#completing.has(key)) {
      throw new BlobBusyError('The upload is being completed or aborted');
    }
    // From the check above to registering below nothing awaits, so no completion can
    // slip in between.
    const parts = this.#writers.get(key) ?? new Map<number, PartWriter>();
    this.#writers.set(key, parts);
    let finished!: () => void;
    const writer: PartWriter = {
      abort: new AbortController(),
      done: new Promise((resolve) => {
        finished = resolve;
      }),
    };
    parts.set(part.partNumber, writer);
    try {
      const path = this.#partialPath(key);
      try {
        // 'r+' never creates: a part for an upload that is gone fails with ENOENT.
        await pipeline(source, fileWriter(path, 'r+', part.offset), {
          signal: writer.abort.signal,
        });
        await syncFile(path);
      } catch (error) {
        if (isMissing(error)) throw new BlobNotFoundError(key);
        throw error;
      }
      // The ETag names this write of the part, not its content: hashing every byte on the
      // event loop was half of its busy time in a profile of a 1 GiB upload, and completion
      // only needs to know that the part it holds is the one the client sent last.
      return { etag: `"${randomBytes(16).toString('hex')}"` };
    } finally {
      if (parts.get(part.partNumber) === writer) parts.delete(part.partNumber);
      if (parts.size === 0 && this.#writers.get(key) === parts) this.#writers.delete(key);
      finished();
    }
  }

  completeMultipart(key: string, _uploadId: string, parts: PartPlacement[]): Promise<void> {
    // A second completion while one runs (a client retrying) shares its outcome.
    const running = this.#completing.get(key);
    if (running) return running;
    if (this.#writers.get(key)?.size) {
      return Promise.reject(new BlobBusyError('A part is still being written'));
    }
    if (this.#sealed.has(key)) {
      return Promise.reject(new BlobBusyError('The upload is being aborted'));
    }
    const job = this.#complete(key, parts).finally(() => this.#completing.delete(key));
    this.#completing.set(key, job);
    return job;
  }

  async #complete(key: string, parts: PartPlacement[]): Promise<void> {
    const partial = this.#partialPath(key);
    const target = this.#blobPath(key);
    const expected = parts.reduce((sum, part) => sum + part.size, 0);
    const found = await stat(partial).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    if (!found) {
      // Completed before (a retry after a lost answer, or a crash after the rename).
      if (await exists(target)) return;
      throw new BlobNotFoundError(key);
    }
    if (found.size !== expected) {
      throw new Error(`Partial file of ${key} has ${found.size} bytes, expected ${expected}`);
    }
    await mkdir(dirname(target), { recursive: true });
    await rename(partial, target);
    await syncDirectory(dirname(target));
    await syncDirectory(dirname(partial));
  }

  async abortMultipart(key: string, _uploadId: string): Promise<void> {
    this.#sealed.add(key);
    try {
      await this.#completing.get(key)?.catch(() => undefined);
      const parts = this.#writers.get(key);
      if (parts) {
        const running = [...parts.values()];
        for (const writer of running) writer.abort.abort(new Error('Upload aborted'));
        await Promise.all(running.map((writer) => writer.done));
      }
      await rm(this.#partialPath(key), { force: true });
    } finally {
      this.#sealed.delete(key);
    }
  }

  #blobPath(key: string): string {
    assertKey(key);
    return join(this.#root, 'blobs', key.slice(0, 2), key);
  }

  #partialPath(key: string): string {
    assertKey(key);
    return join(this.#root, 'partial', key);
  }
}

function assertKey(key: string): void {
  // Keys are generated ids; this guard keeps a bug elsewhere from ever naming a path.
  if (!KEY_PATTERN.test(key)) throw new TypeError(`Invalid blob key: ${JSON.stringify(key)}`);
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
}

/** Makes a rename durable: the directory entry is flushed, not only the file. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// The write stream owns its descriptor (a failed pipeline closes it), so durability is a
// separate fsync once it has finished: on Linux fsync flushes the file, whichever
// descriptor wrote it. (A FileHandle's stream would be neater, but on Node 20 a FileHandle
// whose write stream has finished never answers a following `sync()`.)
const openFd = promisify(openCallback) as (path: string, flags: string) => Promise<number>;
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

function fileWriter(path: string, flags: 'wx' | 'r+', start: number) {
  return createWriteStream(path, { flags, start, mode: 0o644, highWaterMark: WRITE_BUFFER });
}

async function syncFile(path: string): Promise<void> {
  const fd = await openFd(path, 'r+');
  try {
    await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
}
