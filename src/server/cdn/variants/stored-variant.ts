import { buffer } from 'node:stream/consumers';
import type { FileRow, MetadataStore } from '../../db/metadata-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { VariantEncoder } from './variant-encoder.js';
import { contentTypeOf, type VariantSpec, variantName } from './variant-key.js';

/**
 * How much of an original is read to check its header before anything else: enough for
 * the header of every format sharp reads, a JPEG's included (its size comes after its
 * metadata segments: EXIF with a thumbnail, ICC profile, XMP, each up to 64 KiB).
 */
export const HEADER_BYTES = 512 * 1024;

/** Variant sizes kept in memory, so serving a made variant costs no lookup in the store. */
const KNOWN_SIZES = 10_000;

export interface StoredVariant {
  /** Its name among the file's derived objects. */
  name: string;
  size: number;
}

/**
 * Variants stored beside their originals (`BlobStore.putDerived`): found there, or made
 * once. Requests for a variant that is being made wait for that making instead of starting
 * another (per process; two instances making the same variant at once both write the
 * same bytes, which is harmless).
 */
export class ImageVariants {
  readonly encoder: VariantEncoder;
  readonly #blobs: BlobStore;
  readonly #db: Pick<MetadataStore, 'getLiveFile'>;
  readonly #making = new Map<string, Promise<StoredVariant | null>>();
  /** `<id>/<name>` -> size, least recently used first. Immutable once made. */
  readonly #sizes = new Map<string, number>();

  constructor(options: {
    blobs: BlobStore;
    db: Pick<MetadataStore, 'getLiveFile'>;
    encoder: VariantEncoder;
  }) {
    this.#blobs = options.blobs;
    this.#db = options.db;
    this.encoder = options.encoder;
  }

  /**
   * The stored variant `spec` of the ready file `row`, made now if it is not stored yet.
   * Null when the file went away meanwhile. Throws `400 invalid_request` for an image that
   * is too large or does not decode.
   */
  async find(row: FileRow, spec: VariantSpec): Promise<StoredVariant | null> {
    const name = variantName(spec);
    const key = `${row.id}/${name}`;
    const known = this.#sizes.get(key);
    if (known !== undefined) {
      this.#remember(key, known);
      return { name, size: known };
    }
    const making = this.#making.get(key);
    if (making) return making;
    const job = this.#findOrMake(row, spec, name).finally(() => this.#making.delete(key));
    this.#making.set(key, job);
    const found = await job;
    if (found) this.#remember(key, found.size);
    return found;
  }

  async #findOrMake(row: FileRow, spec: VariantSpec, name: string): Promise<StoredVariant | null> {
    const stored = await this.#blobs.headDerived(row.id, name);
    if (stored) return { name, size: stored.size };

    const headSize = Math.min(row.size, HEADER_BYTES);
    if (headSize === 0) {
      await this.encoder.inspect(Buffer.alloc(0), true);
      return null;
    }
    const head = await this.#blobs.get(row.id, { start: 0, end: headSize - 1 });
    if (!head) return null;
    await this.encoder.inspect(await buffer(head), row.size <= HEADER_BYTES);

    const bytes = await this.encoder.encode(() => this.#readWhole(row), spec);
    if (!bytes) return null;
    await this.#blobs.putDerived(row.id, name, bytes, { contentType: contentTypeOf(spec.format) });
    // Deleted while this was made: its purge may have run before the variant was stored,
    // so the variant goes now (the delete of a file that is still live later removes it).
    if ((await this.#db.getLiveFile(row.id))?.status !== 'ready') {
      await this.#blobs.deleteDerived(row.id);
      return null;
    }
    return { name, size: bytes.length };
  }

  async #readWhole(row: FileRow): Promise<Buffer | null> {
    const stream = await this.#blobs.get(row.id);
    if (!stream) return null;
    const bytes = await buffer(stream);
    if (bytes.length !== row.size) {
      throw new Error(`The store gave ${bytes.length} bytes of a ${row.size}-byte file.`);
    }
    return bytes;
  }

  #remember(key: string, size: number): void {
    this.#sizes.delete(key);
    this.#sizes.set(key, size);
    if (this.#sizes.size > KNOWN_SIZES) {
      const oldest = this.#sizes.keys().next().value;
      if (oldest !== undefined) this.#sizes.delete(oldest);
    }
  }
}
