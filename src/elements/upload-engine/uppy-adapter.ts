import Uppy, { type Meta, type UppyFile } from '@uppy/core';
import XHRUpload from '@uppy/xhr-upload';
import type { UploadState } from '../../api/types.js';
import { xhrPartEtag } from '../../client/part-etag.js';
import type { FileUpload } from './file-state.js';
import type { UploaderSettings } from './file-view.js';
import { addMultipartUploader } from './multipart-upload.js';
import { shouldRetryXhr } from './xhr-error.js';

/**
 * The Uppy adapter of the upload engine: the one place that knows how Uppy is made and
 * wired (its restrictions, its pre-processor, the two uploaders, its events). The engine
 * tells it, through `UppyHooks`, what each step needs of a file (its plan, its signal, its
 * signed URL) and hears what happened to it; the engine's own state stays the engine's.
 */

export type UploadBody = Record<string, unknown>;
export type UFile = UppyFile<Meta, UploadBody>;
export type EngineUppy = Uppy<Meta, UploadBody>;

/**
 * Files up to this size are sent without upload progress events: at 1 Mbit/s one takes half
 * a second, and its bar goes from "uploading" to done. Two or more of them added together go
 * by the batch upload (`small-batches.ts`): no row of theirs shows progress either way. And
 * one such file has nothing to resume: it is never remembered across reloads.
 */
export const QUIET_UPLOAD_BYTES = 64 * 1024;

/** What the engine does at each of Uppy's steps, and hears of each file (`UploadRuns`). */
export interface UppyHooks {
  /** Uppy's pre-processing step of a run: signs each file (see `UploadEngine`). */
  prepare(fileIDs: string[]): Promise<void>;
  /** The URL XHRUpload sends a file of one part to, once it is signed. */
  partUrl(file: UFile): Promise<string>;
  /** The file's upload as the service holds it now (for a part sender's resume). */
  uploadState(id: string, signal?: AbortSignal): Promise<UploadState>;
  /** Every byte of a file is in (its one PUT answered, or its last part). */
  sent(file: UFile): void;
  progress(file: UFile, bytesUploaded: number, bytesTotal: number): void;
  failed(id: string, error: { name: string; message: string }): void;
  removed(id: string): void;
  /** Uppy's state changed (many times per file: progress above all). */
  changed(): void;
}

/** Uppy's restrictions, from the element's settings. */
export function restrictionsOf({ maxFileSize, maxFiles, accept }: UploaderSettings) {
  return {
    maxFileSize: maxFileSize ?? null,
    // Nothing to upload in an empty file; the service would refuse it anyway.
    minFileSize: 1,
    maxNumberOfFiles: maxFiles ?? null,
    allowedFileTypes: accept && accept.length > 0 ? accept : null,
  };
}

/**
 * The engine's Uppy: a pre-processor that signs, our multipart uploader for files of several
 * parts, XHRUpload for files of one, and the events the engine hears. Each file's plan,
 * signal and measured speed are read from and written to the engine's record of it
 * (`uploads`, by Uppy's file id).
 */
export function createUppy(
  settings: UploaderSettings,
  uploads: ReadonlyMap<string, FileUpload>,
  hooks: UppyHooks,
): EngineUppy {
  const uppy = new Uppy<Meta, UploadBody>({
    // Failures reach the page as `upload-error` events and on screen; Uppy need not also
    // print each one to the console.
    logger: { debug: quiet, warn: quiet, error: quiet },
    // Uppy's defaults, relied on: no autoProceed, and more than one upload run at a time.
    restrictions: restrictionsOf(settings),
  });
  uppy.addPreProcessor(hooks.prepare);
  // Several parts: ours, added first, so that XHRUpload finds those files done.
  addMultipartUploader(uppy, {
    getPlan: (id) => uploads.get(id)?.plan ?? undefined,
    signal: (id) => uploads.get(id)?.abort?.signal,
    uploadState: (id, signal) => hooks.uploadState(id, signal),
    measured: (id, rate) => {
      const upload = uploads.get(id);
      if (upload) upload.rate = rate;
    },
    limit: 4,
  });
  // Never `bundle: true`: each file is a PUT of its own bytes to its own signed URL.
  // A file of one part goes to its signed URL with its headers, read from our plan when
  // XHRUpload sends it: no per-file Uppy state (each change copies Uppy's whole file map).
  // XHRUpload asks for the URL when the file's turn comes, and waits for it: the first
  // files of a batch go out as soon as their own sign answers, not the whole batch's.
  uppy.use(XHRUpload, {
    endpoint: (file) => hooks.partUrl(file as UFile),
    onBeforeRequest: (xhr, _retry, files) => {
      const [file] = files;
      const headers = uploads.get(file?.id ?? '')?.plan?.parts[0]?.headers ?? {};
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      // A small file is sent without upload progress events (XHRUpload set its listener
      // just before this hook): no bar can show a person its progress, while each event
      // cost the browser a message between processes and Uppy a copy of its file map.
      if (file && sentQuietly(file)) xhr.upload.onprogress = null;
    },
    method: 'PUT',
    formData: false,
    // The browser sends 6 at a time to one host; the others wait in the browser, so a
    // connection that frees up starts the next PUT at once, even while the page's main
    // thread is busy (with 6 here connections sat idle: 16 took 0.9x the time). Not
    // more: sign and complete calls to the same host wait behind them.
    limit: 16,
    shouldRetry: shouldRetryXhr,
    // The local store answers JSON; S3 an empty body. Both send the ETag header.
    getResponseData: (xhr) => ({ etag: xhrPartEtag(xhr) ?? undefined }),
  });
  // Each file completes as soon as its own bytes are in, not when its run's last PUT is.
  uppy.on('upload-success', (file) => {
    if (!file) return;
    // A file sent quietly reports its bytes once, when they are all out.
    if (sentQuietly(file)) hooks.progress(file, file.size, file.size);
    hooks.sent(file);
  });
  // Uppy changes its state many times per file (progress above all); drawing once per
  // frame is all a person can see, and keeps 200 files from costing 200 redraws each.
  uppy.on('state-update', () => hooks.changed());
  uppy.on('upload-progress', (file, progress) => {
    if (file) hooks.progress(file, progress.bytesUploaded, progress.bytesTotal ?? file.size ?? 0);
  });
  uppy.on('upload-error', (file, error) => {
    if (file) hooks.failed(file.id, error);
  });
  uppy.on('file-removed', (file) => hooks.removed(file.id));
  return uppy;
}

/** Whether a file goes without upload progress events (see QUIET_UPLOAD_BYTES). */
function sentQuietly(file: UFile): file is UFile & { size: number } {
  return file.size !== null && file.size <= QUIET_UPLOAD_BYTES;
}

/** Where a file sits in a dropped folder (Uppy's reader) or a picked one (the browser's). */
export function relativePathOf(file: File): string | null {
  const dropped = (file as File & { relativePath?: string | null }).relativePath;
  return dropped || file.webkitRelativePath || null;
}

function quiet(): void {}
