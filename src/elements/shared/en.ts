import type {
  CameraText,
  EditorText,
  EngineOnlyText,
  FailureTexts,
  LinkFailure,
  LinkText,
  ServiceAnswerFailure,
  Translation,
  UploaderTexts,
  UploadOnlyFailure,
} from './translation.js';

/**
 * The failures a page can meet before the upload engine is in, or without an answer of the
 * service; those only the engine words (a refused file, an expired upload) arrive with it
 * (`upload-engine/en-engine.ts`), and the words of the service's answers with the first of
 * them (`en-service.ts`).
 */
const errors: Omit<FailureTexts, UploadOnlyFailure | LinkFailure | ServiceAnswerFailure> = {
  missing_auth: () => 'No key is set. Give it a publishable key (api-key).',
  secret_key: () =>
    'This is a secret key, which must never be in a web page. Use the publishable key (pk_live_…).',
  no_endpoint: () => 'No address is set. Give it the API address (endpoint).',
  network_error: () => 'The connection was lost. Try again once it is back.',
  script_missing: () =>
    "A file this uploader needs is missing. The page needs fixing: please tell the site's owner.",
  unexpected: ({ code, message }) =>
    `Something went wrong (${code}).${message ? ` ${message}` : ''} Retry, or try again later.`,
};

/** `<file-uploader>`'s English; what only its upload engine can show arrives with it. */
const uploader: Omit<UploaderTexts, CameraText | EngineOnlyText | LinkText | EditorText> = {
  dropzone: 'Drag files here, or',
  dropzoneFolders: 'Drag files or folders here, or',
  browse: 'choose files',
  or: 'or',
  browseFolder: 'choose a folder',
  dropHere: 'Drop the files to upload them',
  hintTypes: (types) => `Accepted: ${types}.`,
  hintMaxSize: (size) => `Up to ${size} each.`,
  hintMaxFiles: (count) => `At most ${count} files.`,
  hintPaste: 'You can also paste files.',
  preparing: 'Preparing…',
  retry: 'Retry',
  cancel: 'Cancel',
  remove: 'Remove',
  cancelAll: 'Cancel all',
  retryLabel: (name) => `Retry uploading ${name}`,
  cancelLabel: (name) => `Cancel uploading ${name}`,
  removeLabel: (name) => `Remove ${name}`,
  fileListLabel: 'Files',
  total: (done, count, percent) => `${done} of ${count} uploaded · ${percent}`,
  announceFailed: (name, reason) => `${name} was not uploaded: ${reason}`,
  formUploading: 'Please wait until the uploads have finished.',
  formRequired: 'Please upload at least one file.',
};

/**
 * English: the language every element starts in and falls back to, so it is part of the
 * first load (a page in another language shows it until its own words arrive), but for the
 * words only the upload engine's files can show, which `en-engine.ts` adds as it loads.
 */
export const en: Translation = {
  $code: 'en',
  $dir: 'ltr',
  uploader: uploader as UploaderTexts,
  list: {
    listLabel: 'Uploaded files',
    loading: 'Loading files…',
    empty: 'No files yet.',
    emptyHint: 'Files you upload appear here, newest first.',
    loadMore: 'Load more',
    loadingMore: 'Loading more…',
    end: (count, form) =>
      form === 'one' ? 'That is the only file.' : `That is all ${count} files.`,
    retry: 'Try again',
    copyLink: 'Copy link',
    copyLinkTarget: (name) => `: ${name}`,
    copied: 'Copied',
    copyFailed: 'Copy failed',
    pending: 'Uploading…',
    openFile: (name) => `${name} (opens in a new tab)`,
    uploadedAt: (when) => `Uploaded ${when}`,
    announceLoaded: (count, form) => `${count} ${form === 'one' ? 'file' : 'files'} shown.`,
    announceAdded: (name) => `${name} added to the list.`,
    announceCopied: (name) => `Link to ${name} copied.`,
    errorTitle: 'The files could not be loaded.',
  },
  errors: errors as FailureTexts,
};
