import { randomBytes } from 'node:crypto';
import {
  close,
  constants,
  createReadStream,
  createWriteStream,
  fsync,
  open as openCallback,
  read,
} from 'node:fs';
import {
  access,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { ID_PATTERN } from '../../../api/routes.js';
import type { SignedPart } from '../../../api/types.js';
import {
  assertDerivedName,
  BlobBusyError,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  type HeldPart,
  type MultipartUpload,
  type PartPlacement,
  type RangeSender,
} from '../blob-store.js';
import { PartSigner } from './part-signer.js';
import { fileRangeSender } from './range-sender.js';
import {
  appendLog,
  createLog,
  replayLog,
  type UploadManifest,
  type UploadState,
} from './upload-log.js';
import { pipeUntilClosed } from './write-file.js';

const WRITE_BUFFER = 1024 * 1024;
const READ_BUFFER = 256 * 1024;

export interface LocalDiskOptions {
  /** The folder that holds everything (`<data dir>/storage`). */
  root: string;
  /** Key of the part URLs' HMAC. */
  signingSecret: Buffer;
  /** The API's public base URL, read when a URL is signed (known once the API is bound). */
  apiUrl: () => string;
  now?: () => number;
}

interface PartWriter {
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Bytes on the local disk. Objects are written to `tmp/`, flushed and renamed into
 * `blobs/`, so one is whole or absent. A multipart upload is two files in `uploads/`: one
 * sparse data file, sized up front, that parts write into at their offsets, and its log
 * (`upload-log.ts`: the manifest, then a line for each part that arrived whole, after its
 * bytes were flushed). Completing renames the data file into `blobs/`, so completing a
 * 5 GiB upload copies nothing. Parts arrive through the store's own signed route on the
 * API (`api/routes/local-part.ts`), the way S3 receives them at presigned URLs.
 *
 * Parts share one file, so this class serializes what S3 would keep apart: a re-written
 * part first stops the earlier writer of the same part, and completion or abort never
 * overlaps a part write. That bookkeeping is in memory, which is why one data directory
 * belongs to one process (see `lockDataDir` in `data-dir.ts`).
 */
export class LocalDiskBlobStore implements BlobStore {
  /** Checked by the part route as the bytes stream (`http/content-digest.ts`). */
  readonly partChecksum = 'sha256' as const;
  readonly #root: string;
  readonly signer: PartSigner;
  readonly now: () => number;
  readonly #writers = new Map<string, Map<number, PartWriter>>();
  /** Keys being aborted: no new part write may start. */
  readonly #sealed = new Set<string>();
  readonly #completing = new Map<string, Promise<void>>();
  /**
   * Open uploads as their logs say, kept in memory once read (this process owns the data
   * directory), so a part PUT or a completion does not re-read the disk each time.
   */
  readonly #open = new Map<string, Promise<UploadState | null>>();

  /**
   * The data directory is there and this process may write in it: a removed, remounted
   * read-only or unmounted directory fails, and so does a disk that hangs (the caller's
   * deadline).
   */
  async probe(): Promise<void> {
    await access(join(this.#root, 'blobs'), constants.W_OK);
  }

  constructor(options: LocalDiskOptions) {
    this.#root = options.root;
    this.signer = new PartSigner(options.signingSecret, options.apiUrl);
    this.now = options.now ?? Date.now;
  }

  async recover(): Promise<void> {
    await rm(join(this.#root, 'tmp'), { recursive: true, force: true });
    // `partial/` held multipart uploads before parts were recorded beside their bytes;
    // without those records their parts cannot be trusted, so they are dropped (their
    // clients find the upload gone and start again).
    await rm(join(this.#root, 'partial'), { recursive: true, force: true });
    await Promise.all(
      ['tmp', 'blobs', 'uploads'].map((dir) => mkdir(join(this.#root, dir), { recursive: true })),
    );
    // Half of an upload is none: a data file whose log was never written (a sign that
    // died before it answered), or a log whose data is gone (a completion or abort that
    // died before removing it).
    const names = new Set(await readdir(join(this.#root, 'uploads')));
    for (const name of names) {
      const twin = name.endsWith('.log') ? name.slice(0, -4) : `${name}.log`;
      if (!names.has(twin))
        await rm(join(this.#root, 'uploads', name), { force: true, recursive: true });
    }
  }

  async put(key: string, source: AsyncIterable<Buffer> | Readable): Promise<{ size: number }> {
    let size = 0;
    await this.#writeThroughTmp(this.#blobPath(key), key, (temporary) =>
      // Until closed: the temp file must exist no more once this fails.
      pipeUntilClosed(
        (async function* count() {
          for await (const chunk of source) {
            size += chunk.length;
            yield chunk;
          }
        })(),
        fileWriter(temporary, 'wx', 0),
      ),
    );
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    return readFrom(this.#blobPath(key), range);
  }

  localPath(key: string): string {
    return this.#blobPath(key);
  }

  readRange(key: string, range: ByteRange): Promise<Buffer | null> {
    return readRangeFrom(this.#blobPath(key), range);
  }

  async openSender(key: string, range: ByteRange): Promise<RangeSender | null> {
    const fd = await openOrNull(this.#blobPath(key));
    return fd === null ? null : fileRangeSender(fd, range);
  }

  async head(key: string): Promise<{ size: number } | null> {
    const found = await statOrNull(this.#blobPath(key));
    return found ? { size: found.size } : null;
  }

  async delete(key: string, uploadId?: string | null): Promise<void> {
    if (uploadId) await this.abortMultipart({ key, uploadId, contentType: '' });
    await rm(this.#blobPath(key), { force: true });
  }

  /** In `derived/<key's first two>/<key>/<name>`, written through `tmp/` as objects are. */
  async putDerived(key: string, name: string, bytes: Buffer): Promise<void> {
    await this.#writeThroughTmp(this.#derivedPath(key, name), `${key}.${name}`, (temporary) =>
      writeFile(temporary, bytes, { flag: 'wx', mode: 0o644 }),
    );
  }

  /**
   * Puts a file at `target` durably and whole or not at all: `write` makes it in `tmp/`
   * (named after `label`), it is flushed, renamed into place and its directory flushed;
   * when any step fails, nothing of it is left in `tmp/`.
   */
  async #writeThroughTmp(
    target: string,
    label: string,
    write: (temporary: string) => Promise<unknown>,
  ): Promise<void> {
    const temporary = join(this.#root, 'tmp', `${label}.${randomBytes(6).toString('hex')}`);
    try {
      await write(temporary);
      await syncFile(temporary);
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(dirname(target));
  }

  async getDerived(key: string, name: string, range?: ByteRange): Promise<Readable | null> {
    return readFrom(this.#derivedPath(key, name), range);
  }

  async headDerived(key: string, name: string): Promise<{ size: number } | null> {
    const found = await statOrNull(this.#derivedPath(key, name));
    return found ? { size: found.size } : null;
  }

  async deleteDerived(key: string): Promise<void> {
    await rm(this.#derivedDir(key), { recursive: true, force: true });
  }

  async deleteDerivedObject(key: string, name: string): Promise<void> {
    await rm(this.#derivedPath(key, name), { force: true });
  }

  async createMultipart(
    key: string,
    options: { size: number; partSize: number; contentType: string },
  ): Promise<string> {
    const data = this.#dataPath(key);
    const handle = await open(data, 'wx', 0o644);
    try {
      // Sized up front (sparse: no disk is used until parts arrive), so completing never
      // has to grow or copy it.
      await handle.truncate(options.size);
      await handle.sync();
    } finally {
      await handle.close();
    }
    const manifest: UploadManifest = {
      size: options.size,
      partSize: options.partSize,
      contentType: options.contentType,
    };
    await createLog(this.#logPath(key), manifest);
    await syncDirectory(dirname(data));
    this.#open.set(key, Promise.resolve({ manifest, parts: new Map() }));
    return key;
  }

  async signPart(
    upload: MultipartUpload,
    part: PartPlacement,
    expiresAt: number,
  ): Promise<SignedPart> {
    return this.signer.signedPart({
      uploadId: upload.key,
      partNumber: part.partNumber,
      size: part.size,
      type: upload.contentType,
      expiresAt,
      checksum: upload.checksum === 'sha256' ? 'sha256' : null,
    });
  }

  /** The upload's manifest, or null when there is no such multipart upload (any more). */
  async manifest(key: string): Promise<UploadManifest | null> {
    return (await this.#load(key))?.manifest ?? null;
  }

  async listParts(upload: MultipartUpload): Promise<HeldPart[]> {
    const open = await this.#load(upload.key);
    if (!open) throw new BlobNotFoundError(upload.key);
    return [...open.parts.values()].sort((a, b) => a.partNumber - b.partNumber);
  }

  /** The open upload under `key`, read from its log the first time it is asked for. */
  #load(key: string): Promise<UploadState | null> {
    const known = this.#open.get(key);
    if (known) return known;
    const loading = this.#read(key).then((open) => {
      // Nothing open is not remembered: ids are never reused, so it would only pile up.
      if (!open && this.#open.get(key) === loading) this.#open.delete(key);
      return open;
    });
    this.#open.set(key, loading);
    return loading;
  }

  async #read(key: string): Promise<UploadState | null> {
    const [log, data] = await Promise.all([
      readFile(this.#logPath(key), 'utf8').catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      }),
      statOrNull(this.#dataPath(key)),
    ]);
    // Without its data the upload was completed (or is being removed): none is open.
    return log === null || data === null ? null : replayLog(log);
  }

  /**
   * Writes one part (from the part route) durably and returns its ETag (quoted), which
   * differs from the ETag of any earlier write of that part. The caller guarantees `source`
   * yields exactly `part.size` bytes or fails; a failed write leaves the part not whole.
   */
  async writePart(
    key: string,
    part: PartPlacement,
    source: AsyncIterable<Buffer> | Readable,
  ): Promise<{ etag: string }> {
    for (;;) {
      const earlier = this.#writers.get(key)?.get(part.partNumber);
      if (!earlier) break;
      earlier.abort.abort(new PartReplacedError(part.partNumber));
      await earlier.done;
    }
    if (this.#sealed.has(key)) throw new BlobNotFoundError(key);
    if (this.#completing.has(key)) throw new BlobBusyError('The upload is being completed');
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
      const open = await this.#load(key);
      try {
        if (!open) throw new BlobNotFoundError(key);
        // The part stops counting as whole before its bytes start changing (a first write
        // of it has nothing to take back).
        if (open.parts.delete(part.partNumber)) {
          await appendLog(this.#logPath(key), { clear: part.partNumber });
        }
        // 'r+' never creates: a part for an upload that is gone fails with ENOENT.
        // Until closed: a write that failed may not touch the file after it says so.
        await pipeUntilClosed(
          untilAborted(source, writer.abort.signal),
          fileWriter(this.#dataPath(key), 'r+', part.offset),
          { signal: writer.abort.signal },
        );
        await syncFile(this.#dataPath(key));
        // The ETag names this write of the part, not its content: hashing every byte on
        // the event loop was half of its busy time in a profile of a 1 GiB upload, and
        // completion only needs to know that the part it holds is the one sent last.
        const etag = `"${randomBytes(16).toString('hex')}"`;
        const held = { partNumber: part.partNumber, size: part.size, etag, arrivedAt: Date.now() };
        await appendLog(this.#logPath(key), {
          part: held.partNumber,
          size: held.size,
          etag,
          at: held.arrivedAt,
        });
        open.parts.set(part.partNumber, held);
        return { etag };
      } catch (error) {
        // Stopped on purpose: say why (replaced by a newer write, or the upload aborted).
        if (writer.abort.signal.aborted) throw writer.abort.signal.reason;
        if (isMissing(error)) throw new BlobNotFoundError(key);
        throw error;
      }
    } finally {
      if (parts.get(part.partNumber) === writer) parts.delete(part.partNumber);
      if (parts.size === 0 && this.#writers.get(key) === parts) this.#writers.delete(key);
      finished();
    }
  }

  putPart(
    upload: MultipartUpload,
    part: PartPlacement,
    bytes: Buffer | AsyncIterable<Buffer>,
  ): Promise<{ etag: string }> {
    return this.writePart(
      upload.key,
      part,
      Buffer.isBuffer(bytes) ? Readable.from([bytes]) : bytes,
    );
  }

  completeMultipart(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
  ): Promise<void> {
    const { key } = upload;
    // A second completion while one runs (a client retrying) shares its outcome.
    const running = this.#completing.get(key);
    if (running) return running;
    if (this.#writers.get(key)?.size) {
      return Promise.reject(new BlobBusyError('A part is still being written'));
    }
    if (this.#sealed.has(key)) {
      return Promise.reject(new BlobBusyError('The upload is being aborted'));
    }
    const job = this.#complete(upload, parts).finally(() => this.#completing.delete(key));
    this.#completing.set(key, job);
    return job;
  }

  async #complete(
    upload: MultipartUpload,
    claimed: { partNumber: number; etag: string }[],
  ): Promise<void> {
    const { key } = upload;
    const target = this.#blobPath(key);
    const open = await this.#load(key);
    if (!open) {
      // Completed before (a retry after a lost answer, or a crash after the rename).
      if (await statOrNull(target)) {
        await rm(this.#logPath(key), { force: true });
        return;
      }
      throw new BlobNotFoundError(key);
    }
    const { manifest } = open;
    // As S3 does: the listed parts must be the ones held, and here (one pre-sized file)
    // they must also be all of them, in order.
    const expectedCount = Math.max(1, Math.ceil(manifest.size / manifest.partSize));
    const complete =
      claimed.length === expectedCount &&
      claimed.every(
        (part, index) =>
          part.partNumber === index + 1 && open.parts.get(part.partNumber)?.etag === part.etag,
      );
    if (!complete) {
      throw new Error(`The parts listed for ${key} are not the parts the store holds`);
    }
    await mkdir(dirname(target), { recursive: true });
    await rename(this.#dataPath(key), target);
    this.#open.delete(key);
    await syncDirectory(dirname(target));
    // A log left by a crash here describes no upload (its data is gone); recover() removes it.
    await rm(this.#logPath(key), { force: true });
  }

  async abortMultipart(upload: MultipartUpload): Promise<void> {
    const { key } = upload;
    this.#sealed.add(key);
    try {
      await this.#completing.get(key)?.catch(() => undefined);
      const parts = this.#writers.get(key);
      if (parts) {
        const running = [...parts.values()];
        for (const writer of running) writer.abort.abort(new BlobNotFoundError(key));
        await Promise.all(running.map((writer) => writer.done));
      }
      this.#open.delete(key);
      await rm(this.#dataPath(key), { force: true });
      await rm(this.#logPath(key), { force: true });
    } finally {
      this.#sealed.delete(key);
    }
  }

  #blobPath(key: string): string {
    assertKey(key);
    return join(this.#root, 'blobs', key.slice(0, 2), key);
  }

  #derivedDir(key: string): string {
    assertKey(key);
    return join(this.#root, 'derived', key.slice(0, 2), key);
  }

  #derivedPath(key: string, name: string): string {
    assertDerivedName(name);
    return join(this.#derivedDir(key), name);
  }

  #dataPath(key: string): string {
    assertKey(key);
    return join(this.#root, 'uploads', key);
  }

  #logPath(key: string): string {
    return `${this.#dataPath(key)}.log`;
  }
}

/** A part write stopped because a newer write of the same part started: the newer one wins. */
export class PartReplacedError extends BlobBusyError {
  constructor(partNumber: number) {
    super(`Part ${partNumber} was replaced by a newer write of it`);
    this.name = 'PartReplacedError';
  }
}

/** Keys are generated ids; this guard keeps a bug elsewhere from ever naming a path. */
export function isValidKey(key: string): boolean {
  return ID_PATTERN.test(key);
}

function assertKey(key: string): void {
  if (!isValidKey(key)) throw new TypeError(`Invalid blob key: ${JSON.stringify(key)}`);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function statOrNull(path: string) {
  return stat(path).catch((error: unknown) => {
    if (isMissing(error)) return null;
    throw error;
  });
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

/** A stream of the file at `path` (a range of it if given), or null if there is none. */
async function readFrom(path: string, range?: ByteRange): Promise<Readable | null> {
  const fd = await openOrNull(path);
  if (fd === null) return null;
  return createReadStream('', {
    fd,
    start: range?.start,
    end: range?.end,
    highWaterMark: READ_BUFFER,
  });
}

/** A descriptor of the file at `path` opened for reading, or null if there is none. */
async function openOrNull(path: string): Promise<number | null> {
  try {
    return await openFd(path, 'r');
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * Bytes `range` of the file at `path` in one buffer, or null if there is no file: an open,
 * reads until the buffer is full (one, but for a file being written, which a blob never
 * is) and a close, with callbacks rather than a stream or a FileHandle, whose promises and
 * buffers cost a small read more than the read itself.
 */
function readRangeFrom(path: string, range: ByteRange): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    openCallback(path, 'r', (openError, fd) => {
      if (openError) {
        if (isMissing(openError)) resolve(null);
        else reject(openError);
        return;
      }
      const bytes = Buffer.allocUnsafe(range.end - range.start + 1);
      const fill = (filled: number) =>
        read(fd, bytes, filled, bytes.length - filled, range.start + filled, (error, count) => {
          if (!error && count > 0 && filled + count < bytes.length) {
            fill(filled + count);
            return;
          }
          // Not waited for: nothing was written through this descriptor, so its close has
          // nothing to report, and the answer need not wait for it.
          close(fd, () => {});
          if (error) reject(error);
          else if (count === 0) reject(new Error(`${path} ends before byte ${range.end}`));
          else resolve(bytes);
        });
      fill(0);
    });
  });
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

/**
 * The source, ending with the signal's reason the moment it is aborted. A pipeline's own
 * signal cannot stop a source that is waiting for bytes (an async generator finishes its
 * pending await before it can return), so without this a replaced or cancelled part write
 * whose client holds its body open would hold up the write replacing it, or the DELETE,
 * until the idle timeout cut the client off.
 */
async function* untilAborted(
  source: AsyncIterable<Buffer>,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Not awaited: a source waiting for bytes that will not come would hold this up.
    iterator.return?.().catch(() => {});
  }
}
