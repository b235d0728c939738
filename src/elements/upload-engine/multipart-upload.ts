import { BasePlugin, type Body, type Meta, type Uppy, type UppyFile } from '@uppy/core';
import { filterFilesToUpload } from '@uppy/core/utils';
import { type ConcurrencyLimit, concurrencyLimit } from '../../client/concurrency-limit.js';
import { loadChunk } from '../../client/missing-chunk.js';
import type { MultipartUploadOptions } from './multipart-sender.js';

export type { MultipartUploadOptions };

/** Fetches the part sender (an on-use chunk); at once too when a file that large is added. */
export function loadPartSender(): Promise<typeof import('./multipart-sender.js')> {
  return loadChunk(() => import('./multipart-sender.js'));
}

/**
 * Uppy uploader for files that sign into several parts: each sent by `sendFileParts`
 * (`multipart-sender.ts`, loaded on first use). Files with a single part are skipped here
 * and PUT by XHRUpload.
 */
export class MultipartUpload<M extends Meta, B extends Body> extends BasePlugin<
  MultipartUploadOptions,
  M,
  B
> {
  readonly #limit: ConcurrencyLimit;

  constructor(uppy: Uppy<M, B>, options: MultipartUploadOptions) {
    // Its options are typed and it is installed only by the engine: no checks at run time.
    super(uppy, options);
    this.id = options.id ?? 'MultipartUpload';
    this.type = 'uploader';
    this.#limit = concurrencyLimit(options.limit ?? 4);
  }

  override install(): void {
    this.uppy.addUploader(this.#upload);
  }

  override uninstall(): void {
    this.uppy.removeUploader(this.#upload);
  }

  #upload = async (fileIDs: string[]): Promise<void> => {
    const files = filterFilesToUpload(this.uppy.getFilesByIds(fileIDs)).filter(
      (file) => (this.opts.getPlan(file.id)?.parts.length ?? 0) > 1,
    );
    if (files.length === 0) return;
    this.uppy.emit('upload-start', files);
    await Promise.allSettled(files.map((file) => this.#uploadFile(file)));
  };

  async #uploadFile(file: UppyFile<M, B>): Promise<void> {
    let sender: Awaited<ReturnType<typeof loadPartSender>>;
    try {
      sender = await loadPartSender();
    } catch (error) {
      // Not fetched: offline, the file fails as a lost connection would fail it; not
      // deployed, as a missing file (MissingChunkError, see causeOf).
      const current = this.uppy.getFile(file.id);
      if (current) this.uppy.emit('upload-error', current, error as Error, undefined);
      return;
    }
    await sender.sendFileParts(this.uppy, file, this.opts, this.#limit);
  }
}
