import type { ReactiveControllerHost } from 'lit';
import { cleanName } from '../../api/names.js';
import type { FileMetadata, FileRecord, Visibility } from '../../api/types.js';
import type { UploadTokenProvider } from '../../client/upload-token.js';
import type { ImageOptions } from '../shared/image-shrink.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import type { UploadFailure } from './failure.js';

/**
 * What `<file-uploader>` and its upload engine share: the settings the engine runs with,
 * the view of each file the element renders, and the callbacks through which the engine
 * tells the element what happened. Types and two small helpers only, so the element's
 * first load carries none of the engine.
 */

export interface UploaderSettings {
  endpoint: string;
  apiKey: string;
  metadata: FileMetadata;
  /** What the files are signed as (the `visibility` attribute); unset: public. */
  visibility: Visibility | undefined;
  maxFileSize: number | null;
  maxFiles: number | null;
  /** The `accept` list: extensions (`.pdf`) and media types (`image/*`). */
  accept: string[] | null;
  autoUpload: boolean;
  /** How images are made smaller before they are sent; null: sent as they are. */
  image: ImageOptions | null;
  /**
   * Remember unfinished uploads across reloads (IndexedDB), keeping files up to
   * `keepFilesUpTo` bytes themselves; false with `no-resume`.
   */
  rememberUploads: boolean;
  keepFilesUpTo: number;
  /** Which files are sent with part checksums (the `checksum` attribute). */
  checksum: ChecksumChoice;
  /** The element's `upload-token`: sent instead of the key on upload calls. */
  uploadToken?: string;
  /** The page's `tokenProvider`: asked for a token when there is none, or it expired. */
  tokenProvider?: UploadTokenProvider;
}

/** `small`: files of one part (up to 5 MiB); `all`: every part of every file; `off`: none. */
export type ChecksumChoice = 'small' | 'all' | 'off';

export type FileStatus =
  | 'queued'
  | 'preparing'
  | 'uploading'
  | 'finishing'
  | 'done'
  | 'failed'
  | 'retrying'
  | 'paused'
  | 'rejected'
  | 'interrupted'
  /** An image waiting for Edit or Upload (`image-editor`): not on its way yet. */
  | 'waiting';

/** What the element renders for one file: derived from Uppy's state each time. */
export interface FileView {
  id: string;
  name: string;
  size: number;
  type: string;
  thumbnail: string | null;
  status: FileStatus;
  bytesUploaded: number;
  /** 0 to 1. */
  fraction: number;
  failure: UploadFailure | null;
  record: FileRecord | null;
  retryAt: number | null;
  /** While a large file uploads, once measured: "12 MB/s · 2 minutes left", worded. */
  pace?: string | null;
  /** Failed because the service refuses the file as it is: a retry would fail again. */
  refused?: boolean;
}

/** The file as events describe it. */
export interface FileSummary {
  id: string;
  name: string;
  size: number;
  type: string;
}

export interface UploadCallbacks {
  added(files: FileSummary[]): void;
  started(file: FileSummary): void;
  progress(file: FileSummary, bytesUploaded: number, bytesTotal: number): void;
  succeeded(file: FileSummary, record: FileRecord): void;
  failed(file: FileSummary, failure: UploadFailure): void;
  allDone(result: {
    successful: FileRecord[];
    failed: { file: FileSummary; failure: UploadFailure }[];
  }): void;
}

/**
 * What the controller needs of its element: texts and language for the messages it writes,
 * and a redraw. Everything it uploads with comes down in `UploaderSettings`.
 */
export interface UploadHost extends ReactiveControllerHost, HTMLElement {
  readonly texts: FileUploaderStrings;
  readonly locale: string;
}

/** Whether any of these files is still on its way (the form must wait). */
export function isBusy(files: readonly FileView[]): boolean {
  return files.some((file) =>
    ['queued', 'preparing', 'uploading', 'finishing', 'retrying', 'paused'].includes(file.status),
  );
}

/** The records of the uploaded ones among these files, in order. */
export function recordsOf(files: readonly FileView[]): FileRecord[] {
  return files.flatMap((file) => (file.record ? [file.record] : []));
}

/**
 * The view of a file the upload engine does not hold: one added before the engine was
 * loaded (`preparing`, or `failed` when the engine could not be fetched), or one its rules
 * refused (`rejected`), or one cut off before the page was loaded (`interrupted`). Its name
 * is made safe to show, as every name in the list is.
 */
export function unsentFileView(
  id: string,
  file: { name: string; size: number; type?: string },
  status: 'preparing' | 'failed' | 'rejected' | 'interrupted',
  failure: UploadFailure | null,
): FileView {
  return {
    id,
    name: cleanName(file.name) || 'upload',
    size: file.size,
    type: file.type ?? '',
    thumbnail: null,
    status,
    bytesUploaded: 0,
    fraction: 0,
    failure,
    record: null,
    retryAt: null,
  };
}
