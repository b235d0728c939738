import {
  BasePlugin,
  type Body,
  EventManager,
  type Meta,
  type PluginOpts,
  type Uppy,
  type UppyFile,
} from '@uppy/core';
import { fetcher, filterFilesToUpload, TaskQueue } from '@uppy/core/utils';
import { blobDigestHeader } from '../../client/part-digest.js';
import { putWithFreshUrl, SentBytes, xhrPartEtag } from '../../client/part-put.js';
import {
  missingParts,
  type PlannedPart,
  partStart,
  type UploadPlan,
} from '../../client/upload-plan.js';

export interface MultipartUploadOptions extends PluginOpts {
  /** The plan the sign step made for a file; files with one part are left to XHRUpload. */
  getPlan: (fileId: string) => UploadPlan | undefined;
  /** Fetches fresh part URLs (after `url_expired`); resolves with the updated plan. */
  refreshPlan: (fileId: string) => Promise<UploadPlan>;
  /** Ends a file's attempt (pause): the parts in flight stop, those sent stay in the plan. */
  signal: (fileId: string) => AbortSignal | undefined;
  /** Which failed part requests are worth another try (network, 408, 429, 5xx). */
  shouldRetry: (xhr: XMLHttpRequest) => boolean;
  /**
   * Parts in flight at once, across files. Default 4: fills a typical link while keeping
   * what a dropped connection loses small.
   */
  limit?: number;
}

/**
 * Uppy uploader for files that sign into several parts. Parts go out in parallel (each
 * PUT through Uppy's own XHR `fetcher`, so progress and per-request retries behave as in
 * XHRUpload), each part is retried on its own, progress is summed per file, and only the
 * parts the service does not yet hold are sent, which is what makes a retry a resume.
 * Files with a single part are skipped here and PUT by XHRUpload.
 */
export class MultipartUpload<M extends Meta, B extends Body> extends BasePlugin<
  MultipartUploadOptions,
  M,
  B
> {
  readonly #queue: TaskQueue;

  constructor(uppy: Uppy<M, B>, options: MultipartUploadOptions) {
    // Its options are typed and it is installed only by the engine: no checks at run time.
    super(uppy, options);
    this.id = options.id ?? 'MultipartUpload';
    this.type = 'uploader';
    this.#queue = new TaskQueue({ concurrency: options.limit ?? 4 });
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
    const sent = new SentBytes<number>();
    for (const p of plan.parts) sent.set(p.partNumber, p.etag ? p.size : 0);
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
    const missing = missingParts(plan);
    // An upload signed with checksums: each part's digest, hashed one part after another in
    // part order, ahead of the sending (part 2 is hashed while part 1 goes out), so hashing
    // holds one part's bytes at a time and overlaps the PUTs instead of adding to them.
    const digests = new Map<number, Promise<Record<string, string>>>();
    if (plan.checksum) {
      let ahead: Promise<unknown> = Promise.resolve();
      for (const part of missing) {
        const digest = ahead.then(() => {
          stop.throwIfAborted();
          return blobDigestHeader(plan.checksum, this.#bytesOf(file, plan, part));
        });
        // Awaited by the part's PUT; a part never sent (the file stopped) must not warn.
        digest.catch(() => {});
        digests.set(part.partNumber, digest);
        ahead = digest;
      }
    }
    try {
      // Every part settles before the file fails: a part still on its way when another
      // failed lands (and counts) instead of being sent again by the retry.
      const settled = await Promise.allSettled(
        missing.map((part) =>
          this.#queue.add(async (signal) =>
            this.#sendPart(
              file,
              part,
              plan,
              await digests.get(part.partNumber),
              sent,
              report,
              AbortSignal.any([signal, stop]),
            ),
          ),
        ),
      );
      for (const result of settled) if (result.status === 'rejected') throw result.reason;
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

  #bytesOf(file: UppyFile<M, B>, plan: UploadPlan, part: PlannedPart): Blob {
    const start = partStart(plan, part);
    return (file.data as Blob).slice(start, start + part.size);
  }

  async #sendPart(
    file: UppyFile<M, B>,
    part: PlannedPart,
    plan: UploadPlan,
    digest: Record<string, string> | undefined,
    sent: SentBytes<number>,
    report: () => void,
    signal: AbortSignal,
  ): Promise<void> {
    const body = this.#bytesOf(file, plan, part);
    const put = (target: PlannedPart) =>
      fetcher(target.url, {
        method: 'PUT',
        body,
        headers: { ...target.headers, ...digest },
        signal,
        shouldRetry: this.opts.shouldRetry,
        onUploadProgress: (event) => {
          sent.set(part.partNumber, event.loaded);
          report();
        },
      });
    const xhr = await putWithFreshUrl(part, {
      put,
      statusOf: (error) => (error as { request?: XMLHttpRequest }).request?.status,
      freshPart: async () => {
        const fresh = await this.opts.refreshPlan(file.id);
        sent.set(part.partNumber, 0);
        return fresh.parts.find((p) => p.partNumber === part.partNumber) ?? part;
      },
      state: { refreshed: false },
      signal,
    });
    part.etag = xhrPartEtag(xhr);
    sent.set(part.partNumber, part.size);
    report();
  }
}
