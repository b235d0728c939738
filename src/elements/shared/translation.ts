/**
 * The one shape of every text both elements show or announce, as Shoelace has one
 * `Translation` for all its components: the uploader's words, the list's and the failure
 * wording they share (each error code worded once). A language ships as one object of this
 * shape (`src/locales/<tag>.ts`); a page may still lay its own words over an element's with
 * `strings`.
 *
 * Numbers, sizes and dates arrive formatted for the language (`Intl`). Where a word agrees
 * with a count, the text is also given the count's plural category (`Intl.PluralRules`:
 * `zero`, `one`, `two`, `few`, `many`, `other`), so Arabic's six forms and Polish's four
 * are written by the translation, not guessed by the code.
 */

/** A count's plural category in the element's language. */
export type PluralForm = Intl.LDMLPluralRule;

/** What a failure message may mention, already formatted for the page's language. */
export interface FailureContext {
  /** The page's origin (origin_not_allowed). */
  origin: string;
  /** A size limit, e.g. "100 MB" (too_large, import_too_large; empty when not known). */
  limit: string;
  /** Seconds until a retry may work (rate_limited). */
  seconds: string;
  /** The accepted types (type_not_allowed). */
  accept: string;
  /** The maximum number of files (too_many_files). */
  max: string;
  /** The plural category of the one count the message mentions (`seconds` or `max`). */
  form: PluralForm;
  /** The machine code and the service's own sentence, for the unexpected. */
  code: string;
  message: string;
}

/** One failure's wording. */
export type FailureText = (context: FailureContext) => string;

/**
 * The failures the elements word, each once: a code of its own, or several codes that mean
 * the same to a person (`failure-text.ts` says which code takes which words); any other code
 * (a newer service's) is worded by `unexpected`.
 */
export type FailureCodeText =
  | 'origin_not_allowed'
  | 'invalid_key'
  | 'missing_auth'
  | 'secret_key'
  | 'no_endpoint'
  | 'too_large'
  | 'rate_limited'
  | 'empty_body'
  | 'network_error'
  /** A file of the script-tag bundle not deployed beside `filehost.js` (named in the console). */
  | 'script_missing'
  | 'type_not_allowed'
  | 'too_many_files'
  | 'duplicate_file'
  | 'upload_expired'
  /** A request the page should not have sent (malformed, too long, a secret key's call). */
  | 'refused'
  | 'not_found'
  | 'internal_error'
  | 'unavailable'
  | 'quota_exceeded'
  /** Bytes that arrived damaged or short (checksum, size, or parts missing at complete). */
  | 'damaged'
  /** A signed part URL altered or past its time. */
  | 'link_expired'
  /** An upload already completed (with other parts, or at all), from another tab say. */
  | 'upload_conflict'
  | 'insufficient_storage'
  /** The page's upload token ran out and no `tokenProvider` could renew it. */
  | 'token_expired'
  /** The page's `tokenProvider` threw or answered no token (its error is in the console). */
  | 'token_provider_failed'
  /** The upload token's limit on files or bytes is reached. */
  | 'token_exhausted'
  /** The site accepts uploads only with a token, and the page gave none. */
  | 'upload_token_required'
  /** The service's scanner found malware; nothing was kept. */
  | 'infected'
  /** The service could not remove a photo's location; nothing was kept. */
  | 'metadata_unreadable'
  /** The service's scanner could not finish checking the file; nothing was kept. */
  | 'unscannable'
  /** An import's failures (the Link source, `link-source.ts`): the decided import codes. */
  | 'import_refused_target'
  | 'import_http_error'
  | 'import_timeout'
  | 'import_failed'
  /** An import's `too_large` (naming the limit, when the service gives it) and `unsupported_type`. */
  | 'import_too_large'
  | 'import_unsupported_type'
  | 'unexpected';

export type FailureTexts = Record<FailureCodeText, FailureText>;

/**
 * The failures only `<file-uploader>`'s upload engine words: a refused file, and what can
 * go wrong only once a file is on its way.
 */
export type UploadOnlyFailure =
  | 'too_large'
  | 'empty_body'
  | 'type_not_allowed'
  | 'too_many_files'
  | 'duplicate_file'
  | 'upload_expired'
  | 'quota_exceeded'
  | 'damaged'
  | 'link_expired'
  | 'upload_conflict'
  | 'insufficient_storage'
  | 'token_expired'
  | 'token_provider_failed'
  | 'token_exhausted'
  | 'upload_token_required';

/**
 * The failures worded only after an answer of the service (`en-service.ts`, fetched with
 * the first such answer).
 */
export type ServiceAnswerFailure =
  | 'origin_not_allowed'
  | 'invalid_key'
  | 'rate_limited'
  | 'refused'
  | 'not_found'
  | 'internal_error'
  | 'unavailable'
  | 'infected'
  | 'unscannable'
  | 'metadata_unreadable';

/** `<file-uploader>`'s own words. */
export interface UploaderTexts {
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
  hintMaxFiles: (count: string, form: PluralForm) => string;
  /** An upload token's files still allowed (its `maxFiles` less those uploaded with it). */
  hintFilesLeft: (count: string, form: PluralForm) => string;
  /** An upload token's bytes still allowed in all (its `maxBytes` less those uploaded). */
  hintBytesLeft: (size: string) => string;
  hintPaste: string;
  queued: string;
  preparing: string;
  uploading: (percent: string) => string;
  /** After the speed of a large file's upload: `duration` is "2 minutes", in `form`. */
  timeLeft: (duration: string, form: PluralForm) => string;
  finishing: string;
  done: string;
  retrying: (seconds: string, form: PluralForm) => string;
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
  announceAdded: (count: string, form: PluralForm) => string;
  announceDone: (name: string) => string;
  announceFailed: (name: string, reason: string) => string;
  announceAllDone: (succeeded: string, failed: string) => string;
  /** An upload cut off before the page was loaded, whose file must be chosen again. */
  interrupted: string;
  formUploading: string;
  formRequired: string;
  /** The Link source (`sources="link"`): the URL field's label, its button, a bad link. */
  linkLabel: string;
  linkImport: string;
  linkInvalid: string;
  /** An imported file's row while the service fetches it. */
  importing: (percent: string) => string;
  /**
   * The image editor (`image-editor`): an image's row while it waits (its state, its Edit
   * and Upload buttons and what they say to a screen reader).
   */
  editorWaiting: string;
  editorEdit: string;
  editorEditLabel: (name: string) => string;
  editorUpload: string;
  editorUploadLabel: (name: string) => string;
  /** The editor's dialog: its title, how to use it from the keyboard, the crop box's name. */
  editorTitle: (name: string) => string;
  editorHelp: string;
  editorCropArea: string;
  /** The choice of shapes (`crop-aspect` with several); `free` is any shape. */
  editorAspect: string;
  editorFree: string;
  editorRotateLeft: string;
  editorRotateRight: string;
  editorFlipX: string;
  editorFlipY: string;
  editorZoomIn: string;
  editorZoomOut: string;
  editorReset: string;
  editorSave: string;
  /** Said after each change: the turn in degrees and the crop's size in the image's pixels. */
  editorAnnounce: (degrees: string, width: string, height: string) => string;
  /** A form sent while images still wait for Edit or Upload (its validation message). */
  formHeld: string;
  /** An image the browser could not open in the editor (it stays, to upload as it is). */
  editorUnreadable: (name: string) => string;
}

/** `<file-list>`'s own words. */
export interface ListTexts {
  listLabel: string;
  loading: string;
  empty: string;
  emptyHint: string;
  loadMore: string;
  loadingMore: string;
  end: (count: string, form: PluralForm) => string;
  retry: string;
  copyLink: string;
  /** Read after the button's text by screen readers (hidden on screen): which file. */
  copyLinkTarget: (name: string) => string;
  copied: string;
  copyFailed: string;
  pending: string;
  openFile: (name: string) => string;
  uploadedAt: (when: string) => string;
  announceLoaded: (count: string, form: PluralForm) => string;
  announceAdded: (name: string) => string;
  announceCopied: (name: string) => string;
  errorTitle: string;
}

/**
 * The drop zone's words of a provided token's limits, which the token chunk words
 * (`upload-engine/token-hint.ts`, English in `en-refusals.ts`).
 */
export type TokenHintText = 'hintFilesLeft' | 'hintBytesLeft';

/**
 * The word of an upload cut off by a reload, which the memory's chunk words
 * (`upload-engine/en-memory.ts`).
 */
export type MemoryText = 'interrupted';

/** `<file-uploader>`'s words that only files its upload engine holds can show. */
export type EngineOnlyText =
  /** A token's limits are known once the engine asked its provider. */
  | 'hintFilesLeft'
  | 'hintBytesLeft'
  | 'queued'
  | 'timeLeft'
  | 'uploading'
  | 'finishing'
  | 'done'
  | 'retrying'
  | 'paused'
  | 'interrupted'
  | 'upload'
  | 'pauseUpload'
  | 'resumeUpload'
  | 'pauseAllUploads'
  | 'resumeAllUploads'
  | 'pauseLabel'
  | 'resumeLabel'
  | 'openFile'
  /** Files are added to the list by the engine only (those added earlier wait for it). */
  | 'announceAdded'
  | 'announceDone'
  | 'announceAllDone';

/** `<file-uploader>`'s words of the Link source, which English adds as it loads (`fillLink`). */
export type LinkText = 'linkLabel' | 'linkImport' | 'linkInvalid' | 'importing';

/** `<file-uploader>`'s camera button, which English adds with the camera check (`camera.ts`). */
export type CameraText = 'takePhoto';

/** `<file-uploader>`'s words of the image editor, which English adds as it loads (`fillEditor`). */
export type EditorText =
  | 'editorWaiting'
  | 'editorEdit'
  | 'editorEditLabel'
  | 'editorUpload'
  | 'editorUploadLabel'
  | 'editorTitle'
  | 'editorHelp'
  | 'editorCropArea'
  | 'editorAspect'
  | 'editorFree'
  | 'editorRotateLeft'
  | 'editorRotateRight'
  | 'editorFlipX'
  | 'editorFlipY'
  | 'editorZoomIn'
  | 'editorZoomOut'
  | 'editorReset'
  | 'editorSave'
  | 'editorAnnounce'
  | 'formHeld'
  | 'editorUnreadable';

/** The import failures the Link source words (English: with it, in `link-source.ts`). */
export type LinkFailure =
  | 'import_refused_target'
  | 'import_http_error'
  | 'import_timeout'
  | 'import_failed'
  | 'import_too_large'
  | 'import_unsupported_type';

/** One language: every text of both elements. */
export interface Translation {
  /** Its BCP 47 tag, e.g. `de`, `pt-BR`. */
  $code: string;
  /** Which way its script runs: Arabic and Hebrew right to left. */
  $dir: 'ltr' | 'rtl';
  uploader: UploaderTexts;
  list: ListTexts;
  errors: FailureTexts;
}
