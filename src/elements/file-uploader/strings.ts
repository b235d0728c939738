import type { FailureText } from '../shared/failure-text.js';

export type { FailureContext } from '../shared/failure-text.js';

/**
 * Every text the uploader shows or announces. Set the `strings` property to replace any
 * of them (for another language, or other words); numbers and sizes arrive formatted.
 */
export interface FileUploaderStrings {
  dropzone: string;
  /** The prompt with `directory`: folders may be dropped too. */
  dropzoneFolders: string;
  browse: string;
  or: string;
  browseFolder: string;
  takePhoto: string;
  dropHere: string;
  hintTypes: (types: string) => string;
  hintMaxSize: (size: string) => string;
  hintMaxFiles: (count: string) => string;
  hintPaste: string;
  queued: string;
  preparing: string;
  uploading: (percent: string) => string;
  finishing: string;
  done: string;
  retrying: (seconds: string) => string;
  paused: string;
  upload: string;
  retry: string;
  cancel: string;
  remove: string;
  cancelAll: string;
  pauseUpload: string;
  resumeUpload: string;
  pauseAllUploads: string;
  resumeAllUploads: string;
  pauseLabel: (name: string) => string;
  resumeLabel: (name: string) => string;
  retryLabel: (name: string) => string;
  cancelLabel: (name: string) => string;
  removeLabel: (name: string) => string;
  fileListLabel: string;
  openFile: (name: string) => string;
  total: (done: string, count: string, percent: string) => string;
  announceAdded: (count: string) => string;
  announceDone: (name: string) => string;
  announceFailed: (name: string, reason: string) => string;
  announceAllDone: (succeeded: string, failed: string) => string;
  /** An upload cut off before the page was loaded, whose file must be chosen again. */
  interrupted: string;
  formUploading: string;
  formRequired: string;
  errors: Record<
    | 'origin_not_allowed'
    | 'invalid_key'
    | 'missing_auth'
    | 'secret_key'
    | 'no_endpoint'
    | 'too_large'
    | 'rate_limited'
    | 'empty_body'
    | 'network_error'
    | 'type_not_allowed'
    | 'too_many_files'
    | 'duplicate_file'
    | 'upload_expired'
    | 'unexpected',
    FailureText
  >;
}

export const defaultStrings: FileUploaderStrings = {
  dropzone: 'Drag files here, or',
  dropzoneFolders: 'Drag files or folders here, or',
  browse: 'choose files',
  or: 'or',
  browseFolder: 'choose a folder',
  takePhoto: 'Take a photo',
  dropHere: 'Drop the files to upload them',
  hintTypes: (types) => `Accepted: ${types}.`,
  hintMaxSize: (size) => `Up to ${size} each.`,
  hintMaxFiles: (count) => `At most ${count} files.`,
  hintPaste: 'You can also paste files.',
  queued: 'Waiting to upload',
  preparing: 'Preparing…',
  uploading: (percent) => `Uploading… ${percent}`,
  finishing: 'Finishing…',
  done: 'Uploaded',
  retrying: (seconds) => `Trying again in ${seconds} s…`,
  paused: 'Paused',
  upload: 'Upload',
  retry: 'Retry',
  cancel: 'Cancel',
  remove: 'Remove',
  cancelAll: 'Cancel all',
  pauseUpload: 'Pause',
  resumeUpload: 'Resume',
  pauseAllUploads: 'Pause all',
  resumeAllUploads: 'Resume all',
  pauseLabel: (name) => `Pause uploading ${name}`,
  resumeLabel: (name) => `Resume uploading ${name}`,
  retryLabel: (name) => `Retry uploading ${name}`,
  cancelLabel: (name) => `Cancel uploading ${name}`,
  removeLabel: (name) => `Remove ${name}`,
  fileListLabel: 'Files',
  openFile: (name) => `Open ${name} (opens in a new tab)`,
  total: (done, count, percent) => `${done} of ${count} uploaded · ${percent}`,
  announceAdded: (count) => (count === '1' ? '1 file added.' : `${count} files added.`),
  announceDone: (name) => `${name} uploaded.`,
  announceFailed: (name, reason) => `${name} was not uploaded: ${reason}`,
  announceAllDone: (succeeded, failed) =>
    failed === '0'
      ? `All uploads finished: ${succeeded} uploaded.`
      : `Uploads finished: ${succeeded} uploaded, ${failed} failed.`,
  interrupted: 'Interrupted. Choose this file again to carry on where it stopped.',
  formUploading: 'Please wait until the uploads have finished.',
  formRequired: 'Please upload at least one file.',
  errors: {
    origin_not_allowed: ({ origin }) =>
      `This page (${origin}) may not upload with this key. The key's list of allowed origins must include ${origin}.`,
    invalid_key: () =>
      'The upload key was not recognized. Check the api-key setting of this uploader.',
    missing_auth: () => 'No upload key is set. Give the uploader a publishable key (api-key).',
    secret_key: () =>
      'This uploader was given a secret key, which must never be in a web page. Use the publishable key (pk_live_…).',
    no_endpoint: () => 'No upload address is set. Give the uploader the API address (endpoint).',
    too_large: ({ limit }) => `This file is too large. The limit is ${limit}.`,
    rate_limited: ({ seconds }) =>
      `Too many uploads in a short time. Try again in ${seconds} seconds.`,
    empty_body: () => 'This file is empty, so there is nothing to upload.',
    network_error: () =>
      'The connection was lost. The upload picks up where it stopped when you are back online.',
    type_not_allowed: ({ accept }) =>
      `This type of file is not accepted here. Accepted: ${accept}.`,
    too_many_files: ({ max }) => `You can add at most ${max} files.`,
    duplicate_file: () => 'This file is already in the list.',
    upload_expired: () => 'This upload expired before it finished. Retry to start it again.',
    unexpected: ({ code, message }) =>
      `Something went wrong (${code}).${message ? ` ${message}` : ''} Retry, or try again later.`,
  },
};

export function mergeStrings(
  overrides: Partial<FileUploaderStrings> | undefined,
): FileUploaderStrings {
  if (!overrides) return defaultStrings;
  return {
    ...defaultStrings,
    ...overrides,
    errors: { ...defaultStrings.errors, ...overrides.errors },
  };
}
