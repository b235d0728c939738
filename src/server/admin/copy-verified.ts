import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** What a copy wrote: its length and SHA-256 (hex), as read from the source. */
export interface CopiedBytes {
  size: number;
  sha256: string;
}

const CHUNK = 1024 * 1024;

/**
 * Copies `source` to a new file `target` (owner-only: a data dir holds secrets), hashing
 * the bytes as they pass. Answers null when `source` does not exist. Once the source is
 * open its bytes are this copy's to read whole even if it is removed meanwhile (a file
 * unlinked while open lives on until closed). Not flushed to disk: a copy of many files
 * flushes them all at the end (`syncTree`), which took a third of the time of an fsync
 * after each (new files in new directories each forced a journal commit of their own).
 */
export async function copyVerified(
  source: string,
  target: string,
  onBytes: (count: number) => void = () => {},
): Promise<CopiedBytes | null> {
  let input: FileHandle;
  try {
    input = await open(source, 'r');
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  try {
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    const output = await open(target, 'wx', 0o600);
    try {
      return await readThrough(input, async (chunk) => {
        for (let written = 0; written < chunk.length; ) {
          written += (await output.write(chunk, written, chunk.length - written)).bytesWritten;
        }
        onBytes(chunk.length);
      });
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/** The length and SHA-256 of the file at `path`. */
export async function hashFile(path: string): Promise<CopiedBytes> {
  const input = await open(path, 'r');
  try {
    return await readThrough(input, async () => {});
  } finally {
    await input.close();
  }
}

/** Reads `input` to its end, handing each chunk to `use`; answers its length and SHA-256. */
async function readThrough(
  input: FileHandle,
  use: (chunk: Buffer) => Promise<void>,
): Promise<CopiedBytes> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let size = 0;
  for (;;) {
    const { bytesRead } = await input.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) return { size, sha256: hash.digest('hex') };
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    await use(chunk);
    size += bytesRead;
  }
}

/**
 * Flushes every file and directory under `root` (and `root`) to disk, many at once: what
 * makes a copied tree durable before it is published by a rename.
 */
export async function syncTree(root: string): Promise<void> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile() || entry.isDirectory())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
  await eachAtOnce([...paths, root], SYNCS_AT_ONCE, syncPath);
}

/** fsyncs in flight at once: the disk takes them together, the journal commits once for many. */
const SYNCS_AT_ONCE = 16;

/** Flushes a file, or a directory's entries (a rename or a new file in it), to disk. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Runs `task` over `items`, `width` at a time: file copies and flushes overlap one
 * another's waits for the disk, without opening thousands of files at once. After a
 * failure no new task starts, and the first error is thrown once the running ones have
 * settled: a caller that then removes what they wrote must not race a copy still writing.
 */
export async function eachAtOnce<T>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}
