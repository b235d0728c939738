import {
  BasePlugin,
  type Body,
  EventManager,
  type Meta,
  type PluginOpts,
  type Uppy,
  type UppyFile,
} from '@uppy/core';
import { fetcher, filterFilesToUpload } from '@uppy/core/utils';
import type { UploadState } from '../../api/types.js';
import { type ConcurrencyLimit, concurrencyLimit } from '../../client/concurrency-limit.js';
import { blobDigestHeader } from '../../client/part-digest.js';
import { SentBytes, xhrPartEtag } from '../../client/part-put.js';
import { type PartTransport, sendParts } from '../../client/part-sender.js';
import type { UploadPlan } from '../../client/upload-plan.js';
import { fromXhrError, shouldRetryXhr } from './xhr-error.js';

export interface MultipartUploadOptions extends PluginOpts {
  /** The plan the sign step made for a file; files with one part are left to XHRUpload. */
  getPlan: (fileId: string) => UploadPlan | undefined;
  /** The upload as the service holds it now (fresh part URLs after a refused one). */
  uploadState: (fileId: string, signal?: AbortSignal) => Promise<UploadState>;
  /** Ends a file's attempt (pause): the parts in flight stop, those sent stay in the plan. */
  signal: (fileId: string) => AbortSignal | undefined;
  /**
   * Parts in flight at once, across files. Default 4: fills a typical link while keeping
   * what a dropped connection loses small.
   */
  limit?: number;
}

/**
 * Uppy's XHR `fetcher` as the part sender's transport: the browser's upload progress, each
 * PUT retried as XHRUpload retries a file's (network, 408, 429, 5xx: `shouldRetry`), and
 * its failures as `ApiError`s (S3's refusals in the API's words).
 */
const xhrTransport: PartTransport<Blob> = async ({ url, headers, body, signal, onProgress }) => {
  try {
    const xhr = await fetcher(url, {
      method: 'PUT',
      body,
      headers,
      signal,
      shouldRetry: shouldRetryXhr,
      onUploadProgress: (event) => onProgress(event.loaded),
    });
    return xhrPartEtag(xhr);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw fromXhrError(error);
  }
};

/**
 * Uppy uploader for files that sign into several parts: `sendParts` (the typed client's
 * own part sender) with Uppy's XHR as its transport, each file's bytes summed into Uppy's
 * progress events. Only the parts the service does not yet hold are sent, which is what
 * makes a retry a resume. Files with a single part are skipped here and PUT by XHRUpload.
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
    const events = new EventManager(this.uppy);
    const controller = new AbortController();
    events.onFileRemove(file.id, () => controller.abort());
    events.onCancelAll(file.id, () => controller.abort());
    const attempt = this.opts.signal(file.id);
    const stop = attempt ? AbortSignal.any([attempt, controller.signal]) : controller.signal;
    const plan = this.opts.getPlan(file.id) as UploadPlan;
    const data = file.data as Blob;
    const sent = new SentBytes<number>();
    for (const part of plan.parts) sent.set(part.partNumber, 0);
    const report = () => {
      const current = this.uppy.getFile(file.id);
      if (!current) return;
      this.uppy.emit('upload-progress', current, {
        uploadStarted: current.progress.uploadStarted ?? Date.now(),
        bytesUploaded: sent.total,
        bytesTotal: file.size,
      });
    };
    report();
    try {
      await sendParts(plan, {
        transport: xhrTransport,
        digest: blobDigestHeader,
        read: (start, end) => data.slice(start, end),
        uploadState: (signal) => this.opts.uploadState(file.id, signal),
        limit: this.#limit,
        // The transport retries each PUT; a part refused as damaged fails the file, whose
        // retry (at once: `fileRetryDelayMs`) sends that part again, and only it.
        retry: (attempt) => attempt(),
        signal: stop,
        onBytes: (partNumber, bytes) => {
          sent.set(partNumber, bytes);
          report();
        },
      });
      const current = this.uppy.getFile(file.id);
      if (current) {
        this.uppy.emit('upload-success', current, {
          status: 200,
          body: {
            parts: plan.parts.map(({ partNumber, etag }) => ({ partNumber, etag })),
          } as unknown as B,
          uploadURL: undefined,
        });
      }
    } catch (error) {
      if (stop.aborted || (error as Error).name === 'AbortError') return;
      const current = this.uppy.getFile(file.id);
      if (current) {
        this.uppy.emit('upload-error', current, error as Error, undefined);
      }
    } finally {
      events.remove();
    }
  }
}
