import type { Body, Meta, Uppy, UppyFile } from '@uppy/core';
import { filterFilesToUpload } from '@uppy/core/utils';
import { concurrencyLimit } from '../../client/concurrency-limit.js';
import { loadChunk } from '../../client/missing-chunk.js';
import type { MultipartUploadOptions } from './multipart-sender.js';

export type { MultipartUploadOptions };

/** Fetches the part sender (an on-use chunk); at once too when a file that large is added. */
export function loadPartSender(): Promise<typeof import('./multipart-sender.js')> {
  return loadChunk(() => import('./multipart-sender.js'));
}

/**
 * Adds Uppy's uploader for files that sign into several parts: each sent by
 * `sendFileParts` (`multipart-sender.ts`, loaded on first use). Files with a single part are
 * skipped here and PUT by XHRUpload, added after it. A bare uploader, not a plugin: the
 * engine adds it once to each Uppy it makes, and nothing looks it up, configures or removes
 * it (Uppy's uploaders go with their Uppy).
 */
export function addMultipartUploader<M extends Meta, B extends Body>(
  uppy: Uppy<M, B>,
  options: MultipartUploadOptions,
): void {
  const limit = concurrencyLimit(options.limit ?? 4);
  const uploadFile = async (file: UppyFile<M, B>): Promise<void> => {
    // The attempt this run sends for: paused while the sender is fetched, it ends here (its
    // resume runs again, and sends every part itself).
    const attempt = options.signal(file.id);
    let sender: Awaited<ReturnType<typeof loadPartSender>>;
    try {
      sender = await loadPartSender();
    } catch (error) {
      // Not fetched: offline, the file fails as a lost connection would fail it; not
      // deployed, as a missing file (MissingChunkError, see causeOf).
      const current = uppy.getFile(file.id);
      if (current) uppy.emit('upload-error', current, error as Error, undefined);
      return;
    }
    if (!attempt?.aborted) await sender.sendFileParts(uppy, file, options, limit, attempt);
  };
  uppy.addUploader(async (fileIDs: string[]): Promise<void> => {
    const files = filterFilesToUpload(uppy.getFilesByIds(fileIDs)).filter(
      (file) => (options.getPlan(file.id)?.parts.length ?? 0) > 1,
    );
    if (files.length === 0) return;
    uppy.emit('upload-start', files);
    await Promise.allSettled(files.map(uploadFile));
  });
}
