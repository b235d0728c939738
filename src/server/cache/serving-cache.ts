import type { FileRow } from '../db/metadata-store.js';

/** What the CDN keeps of a ready file between requests. */
export interface ServedFile {
  row: FileRow;
  /** The response headers that depend only on the file (all of them, for an immutable file). */
  headers: Record<string, string>;
  /** The whole file, for small files; null when it is read from the store each time. */
  bytes: Buffer | null;
  /**
   * With `bytes`: the headers of a 200 carrying them (`headers` and the length), made once,
   * for the CDN's memory path, as the list it sends (`cdn/answer-head.ts`). (Made per
   * request they cost a fifth of its rate.)
   */
  wholeHead: string[] | null;
  /**
   * Told each time the entry answers a request (an image variant: its last serving is
   * written down, so the least recently served goes first, `variants/stored-variant.ts`).
   */
  served?: () => void;
}

export interface ServingCacheOptions {
  /** Memory the cache may hold, bytes (files and an estimate of each entry's own cost). */
  maxBytes: number;
  /** Files up to this size keep their bytes in memory; larger ones keep only their record. */
  maxFileBytes: number;
  /**
   * Whether a cached entry may answer without asking the database. Only when this process
   * sees every delete (the embedded deployment): instances that share a database cannot
   * hear of another's delete, so there every request checks the row, and only what can
   * never change (the bytes and headers of an id, never reused) comes from memory.
   */
  trustRecords: boolean;
}

/**
 * Files up to this size are served from memory once read. Streamed from disk, a 1 MiB file
 * spends most of the process's time opening, reading and closing the file and collecting
 * its read buffers, not sending it (a CPU profile under `bench:serving`, test/bench/README.md);
 * from memory it goes at the rate plain `node:http` sends the same bytes. Past this size
 * the stream's own costs are a small share of the send, and a few files would fill the
 * cache that thousands of small ones share.
 */
export const CDN_CACHED_FILE_BYTES = 1024 * 1024;

/**
 * The cache keeps a file's bytes only when it has room for this many files of its size:
 * with a small `FILEHOST_CDN_CACHE_MB` the size limit shrinks with it (and with the cache
 * off no file is read whole only to be dropped), so that one large file never evicts the
 * many small ones the cache is for.
 */
const FILES_AT_THE_LIMIT = 16;

/** The size up to which a cache of `maxBytes` keeps files' bytes. */
export function cachedFileBytes(maxBytes: number): number {
  return Math.min(CDN_CACHED_FILE_BYTES, Math.floor(maxBytes / FILES_AT_THE_LIMIT));
}

/** Rough cost of an entry beside its bytes: the row, the header strings, the map's slot. */
const ENTRY_OVERHEAD_BYTES = 1024;

interface CacheEntry {
  file: ServedFile;
  cost: number;
  /** The file a derived entry (a variant) was made from. */
  owner?: string;
  used: boolean;
}

/**
 * A bounded LRU of what serving a file needs: files are immutable and ids never reused,
 * so an entry is right until its file is deleted. A delete calls `forget`, which also moves
 * the epoch on: a lookup that began before the delete and finishes after it (it read the
 * row while it was still ready) then cannot put the deleted file back.
 */
export class ServingCache {
  readonly options: ServingCacheOptions;
  /**
   * Oldest first (a Map keeps insertion order). `used`: read since it was put or last
   * passed over, so the eviction gives it a second chance (CLOCK, an LRU that costs a
   * read one flag instead of moving the entry: at 1 KiB from memory the move was a fiftieth
   * of a request's CPU time).
   */
  readonly #entries = new Map<string, CacheEntry>();
  /** A file's id -> the keys of what was made from it (its variants' URLs), dropped with it. */
  readonly #derived = new Map<string, Set<string>>();
  #bytes = 0;
  #epoch = 0;
  /**
   * Bodies read from the store since start (a file's, whole or a range; not a variant's):
   * beside the requests a site counts, what share its cache answered (`bench:serving`'s
   * mix). Counted where the store is read, so answers from memory cost nothing more.
   */
  storeReads = 0;

  constructor(options: ServingCacheOptions) {
    this.options = options;
  }

  /** Taken before a lookup whose result may be put. */
  get epoch(): number {
    return this.#epoch;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  get(id: string): ServedFile | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    entry.used = true;
    return entry.file;
  }

  /** Keeps a file unless a delete happened since `epoch`, evicting the least recently used. */
  put(id: string, file: ServedFile, epoch: number): void {
    this.#put(id, file, epoch);
  }

  /**
   * Keeps what was made from the file `owner` (an image variant) under a key of its own (the
   * URL that asks for it), as `put` does; `forget(owner)` drops it with the file.
   */
  putDerived(owner: string, key: string, file: ServedFile, epoch: number): void {
    if (!this.#put(key, file, epoch, owner)) return;
    const keys = this.#derived.get(owner) ?? new Set<string>();
    keys.add(key);
    this.#derived.set(owner, keys);
  }

  #put(key: string, file: ServedFile, epoch: number, owner?: string): boolean {
    if (epoch !== this.#epoch || this.options.maxBytes <= 0) return false;
    const cost = (file.bytes?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
    if (cost > this.options.maxBytes) return false;
    this.#remove(key);
    this.#entries.set(
      key,
      owner === undefined ? { file, cost, used: false } : { file, cost, owner, used: false },
    );
    this.#bytes += cost;
    while (this.#bytes > this.options.maxBytes) {
      const [oldest, entry] = this.#entries.entries().next().value as [string, CacheEntry];
      if (entry.used && oldest !== key) {
        // Read since it was last passed over: to the back of the line, once.
        entry.used = false;
        this.#entries.delete(oldest);
        this.#entries.set(oldest, entry);
        continue;
      }
      this.#remove(oldest);
    }
    return this.#entries.has(key);
  }

  /** Drops a deleted file, and what was made from it. */
  forget(id: string): void {
    this.#epoch++;
    this.#remove(id);
    for (const key of this.#derived.get(id) ?? []) this.#remove(key);
    this.#derived.delete(id);
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.cost;
    if (entry.owner !== undefined) {
      const keys = this.#derived.get(entry.owner);
      keys?.delete(key);
      if (keys?.size === 0) this.#derived.delete(entry.owner);
    }
  }
}
