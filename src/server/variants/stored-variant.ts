import { buffer } from 'node:stream/consumers';
import type { FastifyBaseLogger } from 'fastify';
import type { FileRow, MetadataStore } from '../db/metadata-store.js';
import { ServiceError } from '../ground/errors.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { ImageHeader, VariantEncoder } from './variant-encoder.js';
import { contentTypeOf, type OutputFormat, type VariantSpec, variantName } from './variant-key.js';
import { openOriginal } from './variant-source.js';

/**
 * How much of an original is read to check its header before anything else: enough for
 * the header of every format sharp reads, a JPEG's included (its size comes after its
 * metadata segments: EXIF with a thumbnail, ICC profile, XMP, each up to 64 KiB).
 */
export const HEADER_BYTES = 512 * 1024;

/** Variants kept per file (decisions.md); past that the least recently served goes. */
export const MAX_VARIANTS_PER_FILE = 64;

/**
 * How often a variant's last serving is written down, at most: a write per serving would
 * cost more than the serving, and "least recently served" needs no finer clock.
 */
export const TOUCH_INTERVAL_MS = 60_000;

/** The largest default budget of a project's stored variants (decisions.md, round two). */
export const MAX_DEFAULT_VARIANT_BUDGET = 2 * 1024 ** 3;

/** The default largest original made into variants (imgproxy's `IMGPROXY_MAX_SRC_FILE_SIZE`). */
export const DEFAULT_MAX_SOURCE_BYTES = 50 * 1024 * 1024;

/**
 * A variant more than this many times its original's size is served but not stored: a PNG
 * of a photo's noise is ten times the JPEG it came from, so a handful of URLs would
 * otherwise store many times what the owner uploaded.
 */
export const MAX_VARIANT_GROWTH = 4;

/**
 * The bytes of stored variants a project may hold: `configured` (`FILEHOST_VARIANT_CACHE_BYTES`)
 * where set, else a tenth of its storage quota, at most 2 GiB (2 GiB for a project without a
 * quota).
 */
export function variantBudget(storageQuota: number | null, configured: number | undefined): number {
  if (configured !== undefined) return configured;
  if (storageQuota === null) return MAX_DEFAULT_VARIANT_BUDGET;
  return Math.min(Math.floor(storageQuota / 10), MAX_DEFAULT_VARIANT_BUDGET);
}

/** What variants may cost: the service's settings. */
export interface VariantLimits {
  /** `FILEHOST_VARIANT_CACHE_BYTES`; undefined: each project's default (`variantBudget`). */
  cacheBytes: number | undefined;
  /** `FILEHOST_VARIANT_MAX_SOURCE_BYTES`. */
  maxSourceBytes: number;
}

/** Entries of each in-memory map (sizes, headers, touches): immutable facts, bounded. */
const KNOWN_ENTRIES = 10_000;

export interface StoredVariant {
  /** Its name among the file's derived objects. */
  name: string;
  size: number;
  /** Its bytes, when this very lookup made it (the answer need not read them back). */
  bytes?: Buffer;
  /**
   * False for a variant made but not kept (over `MAX_VARIANT_GROWTH` times its original, or
   * over its project's whole budget): it is served from `bytes`, never read from the store.
   */
  stored: boolean;
}

type VariantBooks = Pick<
  MetadataStore,
  | 'getLiveFile'
  | 'getProject'
  | 'getVariant'
  | 'recordVariant'
  | 'touchVariant'
  | 'variantsBeyond'
  | 'removeVariant'
>;

/**
 * Variants stored beside their originals (`BlobStore.putDerived`), with their bookkeeping
 * in the metadata store (which every instance shares): found there, or made once. Requests
 * for a variant that is being made wait for that making instead of starting another (per
 * process; two instances making the same variant at once both write the same bytes, which
 * is harmless). At most `MAX_VARIANTS_PER_FILE` are kept per file, and a project's variants
 * hold at most its budget (`variantBudget`), the least recently served removed first: they
 * are a cache, remade when asked again, so no number of URLs fills the disk.
 */
export class ImageVariants {
  readonly encoder: VariantEncoder;
  readonly limits: Readonly<VariantLimits>;
  /** Tests shorten it to see the order of servings at once. */
  touchIntervalMs = TOUCH_INTERVAL_MS;
  readonly #blobs: BlobStore;
  readonly #db: VariantBooks;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger | undefined;
  /**
   * Whether this process sees every change of the variants (the embedded deployment): then
   * what it remembers of them is true until it changes them itself. Instances that share
   * their stores ask the metadata store at every request instead.
   */
  readonly #trustMemory: boolean;
  readonly #making = new Map<string, Promise<StoredVariant | null>>();
  /** `<id>/<name>` -> size, least recently used first. */
  readonly #sizes = new Map<string, number>();
  /** `<id>/<name>` -> when this process last wrote its serving down. */
  readonly #touched = new Map<string, number>();
  /** File id -> its header (files are immutable). */
  readonly #headers = new Map<string, ImageHeader>();

  constructor(options: {
    blobs: BlobStore;
    db: VariantBooks;
    encoder: VariantEncoder;
    trustMemory: boolean;
    limits?: Partial<VariantLimits>;
    now?: () => number;
    log?: FastifyBaseLogger;
  }) {
    this.limits = {
      cacheBytes: options.limits?.cacheBytes,
      maxSourceBytes: options.limits?.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES,
    };
    this.#blobs = options.blobs;
    this.#db = options.db;
    this.encoder = options.encoder;
    this.#trustMemory = options.trustMemory;
    this.#now = options.now ?? Date.now;
    this.#log = options.log;
  }

  /**
   * The header of the ready image `row` (its size as shown), checked as `source`: from
   * memory, else from its first bytes, else from all of them in a turn of the encoder.
   * Null when the file went away. Throws `400 invalid_request` for an image too large (its
   * file, before a byte of it is read, or its pixels) or bytes that are not what they were
   * recognised as.
   */
  async header(row: FileRow, source: OutputFormat): Promise<ImageHeader | null> {
    this.#checkSourceSize(row);
    const known = this.#headers.get(row.id);
    if (known) return known;
    const headSize = Math.min(row.size, HEADER_BYTES);
    if (headSize === 0) return this.encoder.inspect(Buffer.alloc(0), true, source);
    const head = await this.#blobs.get(row.id, { start: 0, end: headSize - 1 });
    if (!head) return null;
    const header =
      (await this.encoder.inspect(await buffer(head), row.size <= HEADER_BYTES, source)) ??
      (await this.encoder.inspectWhole(() => openOriginal(this.#blobs, row), source));
    if (header) remember(this.#headers, row.id, header);
    return header;
  }

  /**
   * The stored variant `spec` of the ready file `row` (an image of type `source`), made
   * now if it is not stored yet. Null when the file went away meanwhile. Throws
   * `400 invalid_request` for an image that does not decode, `503 unavailable` when it
   * could not be made within the encoder's budget.
   */
  async find(row: FileRow, spec: VariantSpec, source: OutputFormat): Promise<StoredVariant | null> {
    this.#checkSourceSize(row);
    const name = variantName(spec);
    const key = `${row.id}/${name}`;
    const known = this.#trustMemory ? this.#sizes.get(key) : undefined;
    if (known !== undefined) {
      remember(this.#sizes, key, known);
      await this.#touch(row.id, name, 0);
      return { name, size: known, stored: true };
    }
    const making = this.#making.get(key);
    if (making) return making;
    const job = this.#findOrMake(row, spec, source, name).finally(() => this.#making.delete(key));
    this.#making.set(key, job);
    const found = await job;
    if (found?.stored && this.#trustMemory) remember(this.#sizes, key, found.size);
    return found;
  }

  /**
   * A variant was served from memory (`ServingCache`): written down as `find` would. On the
   * CDN's hottest path, so the usual case (written down less than a while ago) is one lookup.
   */
  served(fileId: string, name: string): void {
    const last = this.#touched.get(`${fileId}/${name}`) ?? 0;
    if (this.#now() - last < this.touchIntervalMs) return;
    void this.#touch(fileId, name, 0);
  }

  /**
   * A variant `find` gave was not in the store when it was read (another instance removed
   * it as the least recently served, just then): forgotten, so the next request makes it.
   * Whether its file is still ready (false: it was deleted, and the answer is 404).
   */
  async lost(fileId: string, name: string): Promise<boolean> {
    this.#sizes.delete(`${fileId}/${name}`);
    await this.#db.removeVariant(fileId, name);
    return (await this.#db.getLiveFile(fileId))?.status === 'ready';
  }

  async #findOrMake(
    row: FileRow,
    spec: VariantSpec,
    source: OutputFormat,
    name: string,
  ): Promise<StoredVariant | null> {
    const recorded = await this.#db.getVariant(row.id, name);
    if (recorded) {
      await this.#touch(row.id, name, recorded.servedAt);
      return { name, size: recorded.size, stored: true };
    }
    const budget = await this.#budgetOf(row);
    // Stored but not recorded: made before variants were counted, or by a process that
    // stopped between storing and recording it. Kept if it would be kept when made now.
    const stored = await this.#blobs.headDerived(row.id, name);
    if (stored && this.#keepable(row, stored.size, budget)) {
      return this.#keep(row, name, stored.size, budget);
    }
    if (stored) await this.#blobs.deleteDerivedObject(row.id, name);

    const bytes = await this.encoder.encode(() => openOriginal(this.#blobs, row), spec, source);
    if (!bytes) return null;
    if (!this.#keepable(row, bytes.length, budget)) {
      return { name, size: bytes.length, bytes, stored: false };
    }
    await this.#blobs.putDerived(row.id, name, bytes, { contentType: contentTypeOf(spec.format) });
    const kept = await this.#keep(row, name, bytes.length, budget);
    return kept && { ...kept, bytes };
  }

  /** Whether a variant of `size` bytes is stored: at most 4 times its original, within budget. */
  #keepable(row: FileRow, size: number, budget: number): boolean {
    return size <= MAX_VARIANT_GROWTH * row.size && size <= budget;
  }

  /** The variant budget of `row`'s project (its quota's tenth by default). */
  async #budgetOf(row: FileRow): Promise<number> {
    const { cacheBytes } = this.limits;
    if (cacheBytes !== undefined) return cacheBytes;
    const project = await this.#db.getProject(row.projectId);
    return variantBudget(project?.storageQuota ?? null, undefined);
  }

  /** An original over `maxSourceBytes` is refused from its record, before any byte is read. */
  #checkSourceSize(row: FileRow): void {
    const limit = this.limits.maxSourceBytes;
    if (row.size <= limit) return;
    throw new ServiceError(
      'invalid_request',
      `The image is ${row.size} bytes: images over ${limit} bytes (FILEHOST_VARIANT_MAX_SOURCE_BYTES) are not transformed.`,
    );
  }

  /**
   * Records a stored variant within its project's budget, removing the objects of the
   * variants that made room for it (the project's least recently served), then the file's
   * least recently served past `MAX_VARIANTS_PER_FILE`. Null when the file was deleted
   * meanwhile: its purge may have run before the variant was stored, so its variants go
   * now (a delete of a file still live would).
   */
  async #keep(
    row: FileRow,
    name: string,
    size: number,
    budget: number,
  ): Promise<StoredVariant | null> {
    const now = this.#now();
    const { recorded, evicted } = await this.#db.recordVariant(
      { fileId: row.id, name, size, servedAt: now },
      row.projectId,
      budget,
    );
    await this.#removeObjects(evicted);
    if (!recorded) {
      await this.#blobs.deleteDerived(row.id);
      return null;
    }
    remember(this.#touched, `${row.id}/${name}`, now);
    try {
      for (const other of await this.#db.variantsBeyond(row.id, MAX_VARIANTS_PER_FILE)) {
        // Only the caller that removed the row removes the object (instances evict at once).
        if (!(await this.#db.removeVariant(row.id, other))) continue;
        this.#sizes.delete(`${row.id}/${other}`);
        await this.#blobs.deleteDerivedObject(row.id, other);
      }
    } catch (error) {
      // The variant itself is stored and recorded; the next one made evicts again.
      this.#log?.warn({ err: error, id: row.id }, 'could not remove old image variants');
    }
    return { name, size, stored: true };
  }

  /**
   * Removes the objects of variants no longer recorded (their rows went in the recording
   * that evicted them, so no other caller removes them).
   */
  async #removeObjects(evicted: Array<{ fileId: string; name: string }>): Promise<void> {
    for (const { fileId, name } of evicted) {
      this.#sizes.delete(`${fileId}/${name}`);
      try {
        await this.#blobs.deleteDerivedObject(fileId, name);
      } catch (error) {
        // Unrecorded, it is no longer counted; the file's purge removes it at the latest.
        this.#log?.warn({ err: error, id: fileId }, 'could not remove an evicted image variant');
      }
    }
  }

  /** Writes down that a variant was served now, at most once per `touchIntervalMs`. */
  async #touch(fileId: string, name: string, recordedAt: number): Promise<void> {
    const key = `${fileId}/${name}`;
    const now = this.#now();
    const last = Math.max(this.#touched.get(key) ?? 0, recordedAt);
    if (now - last < this.touchIntervalMs) return;
    remember(this.#touched, key, now);
    try {
      await this.#db.touchVariant(fileId, name, now, now - this.touchIntervalMs + 1);
    } catch (error) {
      // Serving does not depend on it: at worst this variant is removed a little early.
      this.#log?.warn({ err: error, id: fileId }, 'could not record an image variant served');
    }
  }
}

/** Sets `key` as the most recently used entry of `map`, dropping the least recently used past the bound. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > KNOWN_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
