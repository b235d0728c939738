import type { Body, Meta, Uppy, UppyFile } from '@uppy/core';
import { EventManager } from '@uppy/core';
import { fetcher } from '@uppy/core/utils';
import type { UploadState } from '../../api/types.js';
import type { ConcurrencyLimit } from '../../client/concurrency-limit.js';
import { blobDigestHeader } from '../../client/part-digest.js';
import { xhrPartEtag } from '../../client/part-etag.js';
import { SentBytes } from '../../client/part-put.js';
import { type PartTransport, sendParts } from '../../client/part-sender.js';
import type { UploadPlan } from '../../client/upload-plan.js';
import { UploadRate } from './upload-rate.js';
import { fromXhrError, shouldRetryXhr } from './xhr-error.js';

/**
 * The sending of a file in several parts under Uppy (`addMultipartUploader` adds its uploader):
 * a chunk of its own, loaded when a file that large is added, so that a page whose files
 * all go in one request (every file up to the smallest part size) never loads it.
 */

export interface MultipartUploadOptions {
  /** The plan the sign step made for a file; files with one part are left to XHRUpload. */
  getPlan: (fileId: string) => UploadPlan | undefined;
  /** The upload as the service holds it now (fresh part URLs after a refused one). */
  uploadState: (fileId: string, signal?: AbortSignal) => Promise<UploadState>;
  /** Hears of each attempt's speed, measured as its parts go (see `UploadRate`). */
  measured: (fileId: string, rate: UploadRate) => void;
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
 * Sends one file's missing parts with `sendParts` (the typed client's own part sender),
 * Uppy's XHR as its transport, the file's bytes summed into Uppy's progress events; then
 * `upload-success` with its parts, or `upload-error`. Only the parts the service does not
 * yet hold are sent, which is what makes a retry a resume.
 */
export async function sendFileParts<M extends Meta, B extends Body>(
  uppy: Uppy<M, B>,
  file: UppyFile<M, B>,
  options: MultipartUploadOptions,
  limit: ConcurrencyLimit,
  /** The file's attempt as its send began (`options.signal` then). */
  attempt: AbortSignal | undefined,
): Promise<void> {
  const events = new EventManager(uppy);
  const controller = new AbortController();
  events.onFileRemove(file.id, () => controller.abort());
  events.onCancelAll(file.id, () => controller.abort());
  const stop = attempt ? AbortSignal.any([attempt, controller.signal]) : controller.signal;
  const plan = options.getPlan(file.id) as UploadPlan;
  const data = file.data as Blob;
  const sent = new SentBytes<number>();
  for (const part of plan.parts) sent.set(part.partNumber, 0);
  // Measured afresh each attempt: a resume starts where it stopped, not from nothing.
  const rate = new UploadRate();
  options.measured(file.id, rate);
  const report = () => {
    const current = uppy.getFile(file.id);
    if (!current) return;
    uppy.emit('upload-progress', current, {
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
      uploadState: (signal) => options.uploadState(file.id, signal),
      limit,
      // The transport retries each PUT; a part refused as damaged fails the file, whose
      // retry (at once: `fileRetryDelayMs`) sends that part again, and only it.
      retry: (attempt) => attempt(),
      signal: stop,
      onBytes: (partNumber, bytes) => {
        sent.set(partNumber, bytes);
        rate.sample(sent.total);
        report();
      },
    });
    const current = uppy.getFile(file.id);
    if (current) {
      uppy.emit('upload-success', current, {
        status: 200,
        body: {
          parts: plan.parts.map(({ partNumber, etag }) => ({ partNumber, etag })),
        } as unknown as B,
        uploadURL: undefined,
      });
    }
  } catch (error) {
    if (stop.aborted || (error as Error).name === 'AbortError') return;
    const current = uppy.getFile(file.id);
    if (current) {
      uppy.emit('upload-error', current, error as Error, undefined);
    }
  } finally {
    events.remove();
  }
}
