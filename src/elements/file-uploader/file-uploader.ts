import { html, LitElement, nothing, type PropertyValues, svg } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { FileMetadata, FileRecord, Visibility } from '../../api/types.js';
import { loadChunk } from '../../client/missing-chunk.js';
import type { UploadTokenProvider } from '../../client/upload-token.js';
import { Announcer } from '../shared/announcer.js';
import { emit } from '../shared/events.js';
import { formatBytes, formatCount, localeOf, pluralForm } from '../shared/format.js';
import { followLang, textsWith, translationFor } from '../shared/localize.js';
import { sharedStyles } from '../shared/styles.js';
import type { FileUploaderOverrides, FileUploaderStrings } from '../shared/uploader-strings.js';
import type { UploadFailure } from '../upload-engine/failure.js';
import {
  type ChecksumChoice,
  type FileSummary,
  type FileView,
  isBusy,
  recordsOf,
} from '../upload-engine/file-view.js';
import { takeDrop } from './dropped.js';
import { isPausable, renderFile, renderSummary } from './file-rows.js';
import { styles } from './file-uploader.styles.js';
import { syncForm } from './form-association.js';
import { UploadController } from './upload-controller.js';

export type { UploadTokenGrant, UploadTokenProvider } from '../../client/upload-token.js';
export type { FileUploaderOverrides, FileUploaderStrings } from '../shared/uploader-strings.js';
export type { FailureCode, FailureStep, UploadFailure } from '../upload-engine/failure.js';
export type { ChecksumChoice, FileSummary, FileView } from '../upload-engine/file-view.js';

export interface FileUploaderEventMap {
  /** Files were added by the user (picked, dropped or pasted) and passed the checks. */
  'file-add': CustomEvent<{ files: FileSummary[] }>;
  /** A file's upload started (sign, then bytes). */
  'upload-start': CustomEvent<{ file: FileSummary }>;
  /** Bytes of a file went out. */
  'upload-progress': CustomEvent<{ file: FileSummary; bytesUploaded: number; bytesTotal: number }>;
  /** A file is uploaded: the service answered `ready`; `record.url` is live on the CDN. */
  'upload-success': CustomEvent<{ file: FileSummary; record: FileRecord }>;
  /** A file failed for good (after any automatic retries), or was refused before upload. */
  'upload-error': CustomEvent<{ file: FileSummary } & UploadFailure>;
  /** Nothing is uploading any more: what succeeded and what failed since the last time. */
  'upload-complete': CustomEvent<{
    successful: FileRecord[];
    failed: { file: FileSummary; failure: UploadFailure }[];
  }>;
  /**
   * An image was edited and saved (`image-editor`): the edited image (what is uploaded),
   * the pixels kept of the image flipped (`flipX`: left to right, `flipY`: top to bottom)
   * and then turned clockwise by `rotate` degrees (0, 90, 180, 270).
   */
  'image-edit': CustomEvent<{
    file: File;
    crop: { x: number; y: number; width: number; height: number };
    rotate: number;
    flipX: boolean;
    flipY: boolean;
  }>;
}

declare global {
  interface HTMLElementEventMap extends FileUploaderEventMap {}
  interface HTMLElementTagNameMap {
    'file-uploader': FileUploaderElement;
  }
}

const jsonConverter = {
  fromAttribute(value: string | null): FileMetadata {
    if (!value) return {};
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as FileMetadata;
    } catch {
      // Reported below, where the element can say which attribute is wrong.
    }
    console.warn('<file-uploader>: metadata must be a JSON object of strings.');
    return {};
  },
  // No `toAttribute`: Lit writes an attribute only for a property that reflects, and none
  // with these converters does (their bytes would be first-load bytes for nothing).
};

const optionalNumber = {
  fromAttribute(value: string | null): number | null {
    // No attribute (null) and a blank one ('', '  ') are both the number 0: not a limit.
    const number = Number(value);
    return Number.isFinite(number) && number > 0 ? number : null;
  },
};

/**
 * File uploads for any page: pick, drop or paste files and they are uploaded to filehost
 * with a publishable key, with progress, retries and errors in plain words.
 *
 * @tagname file-uploader
 * @summary Uploads files to filehost (sign, PUT the bytes, complete) through Uppy.
 *
 * @fires file-add - Files were added and passed the checks. `detail.files`.
 * @fires upload-start - A file's upload started. `detail.file`.
 * @fires upload-progress - Bytes went out (a file of 64 KiB or less reports them once, when all are out). `detail.file`, `detail.bytesUploaded`, `detail.bytesTotal`.
 * @fires upload-success - A file is ready on the CDN. `detail.file`, `detail.record` (with `url`; `null` for a private file).
 * @fires upload-error - A file failed or was refused. `detail.code`, `detail.status`, `detail.message`, `detail.step`.
 * @fires upload-complete - Nothing is uploading any more. `detail.successful`, `detail.failed`.
 * @fires image-edit - An image was edited and saved (with `image-editor`). `detail.file` (the edited image), `detail.crop` (`x`, `y`, `width`, `height` in its pixels), `detail.rotate`, `detail.flipX`, `detail.flipY`.
 *
 * @attr crop-aspect - The crop's shape in the image editor (`image-editor`): `free` (the default) or `width:height`, e.g. `1:1` for a square avatar; several, space-separated (`free 1:1 4:3 16:9`), let the person choose, the first chosen at first. Read as the editor opens (an attribute only: no first-load bytes for a property).
 *
 * @csspart base - The wrapper of everything.
 * @csspart dropzone - The area files are dropped on.
 * @csspart browse-button - The button that opens the file picker.
 * @csspart hint - The line about accepted files.
 * @csspart total - The summary of all files with the total progress.
 * @csspart list - The list of files.
 * @csspart file - One file in the list.
 * @csspart thumbnail - A file's preview or icon.
 * @csspart name - A file's name (a link once uploaded).
 * @csspart progress - A progress bar.
 * @csspart error - A file's error message.
 * @csspart action - A button of a file (retry, cancel, remove) or of the summary.
 *
 * @cssprop --file-uploader-accent - Buttons, links, progress. Default #2563eb (dark: #60a5fa).
 * @cssprop --file-uploader-on-accent - Text on the accent color.
 * @cssprop --file-uploader-text - Text color.
 * @cssprop --file-uploader-muted - Secondary text.
 * @cssprop --file-uploader-background - Background of file rows.
 * @cssprop --file-uploader-surface - Background of the drop zone.
 * @cssprop --file-uploader-border - Borders.
 * @cssprop --file-uploader-error - Error text and bars.
 * @cssprop --file-uploader-success - Finished files.
 * @cssprop --file-uploader-radius - Corner radius. Default 0.75rem.
 * @cssprop --file-uploader-gap - Space between the parts. Default 0.75rem.
 * @cssprop --file-uploader-font - Font shorthand. Default inherit.
 * @cssprop --file-uploader-focus-ring - The focus indicator (a box-shadow).
 * @cssprop --filehost-accent - Shared by both elements (each element's own property wins): accent. Default #2563eb (dark: #60a5fa).
 * @cssprop --filehost-on-accent - Shared: text on the accent color.
 * @cssprop --filehost-text - Shared: text color.
 * @cssprop --filehost-muted - Shared: secondary text.
 * @cssprop --filehost-background - Shared: background.
 * @cssprop --filehost-surface - Shared: raised surfaces.
 * @cssprop --filehost-border - Shared: borders. Default #cbd5e1 (dark: #334155).
 * @cssprop --filehost-error - Shared: errors.
 * @cssprop --filehost-success - Shared: finished files.
 * @cssprop --filehost-radius - Shared: corner radius. Default 0.75rem.
 * @cssprop --filehost-font - Shared: font shorthand. Default inherit.
 * @cssprop --filehost-focus-ring - Shared: the focus indicator (a box-shadow).
 */
export class FileUploaderElement extends LitElement {
  static override styles = [sharedStyles, styles];
  static formAssociated = true;
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true };

  // Strings without `type: String`: it is Lit's default, and would only cost the first load bytes.
  static override properties = {
    endpoint: { type: String },
    apiKey: { type: String, attribute: 'api-key' },
    uploadToken: { attribute: 'upload-token' },
    // A property (not a field): React 19 sets it as one only when it is on the element.
    tokenProvider: { attribute: false },
    multiple: { type: Boolean, reflect: true },
    directory: { type: Boolean },
    capture: { type: String },
    // A string (Lit's default): `type` would only cost the first load bytes.
    sources: {},
    accept: { type: String },
    maxFileSize: { attribute: 'max-file-size', converter: optionalNumber },
    maxFiles: { attribute: 'max-files', converter: optionalNumber },
    maxImageWidth: { attribute: 'max-image-width', converter: optionalNumber },
    maxImageHeight: { attribute: 'max-image-height', converter: optionalNumber },
    imageQuality: { attribute: 'image-quality', converter: optionalNumber },
    imageType: { type: String, attribute: 'image-type' },
    imageEditor: { type: Boolean, attribute: 'image-editor' },
    noResume: { type: Boolean, attribute: 'no-resume' },
    resumeMaxSize: { attribute: 'resume-max-size', converter: optionalNumber },
    checksum: { type: String },
    metadata: { converter: jsonConverter },
    visibility: { type: String },
    disabled: { type: Boolean, reflect: true },
    noAutoUpload: { type: Boolean, attribute: 'no-auto-upload' },
    name: { type: String, reflect: true },
    required: { type: Boolean, reflect: true },
    formValue: { type: String, attribute: 'form-value' },
    strings: { attribute: false },
    uploading: { type: Boolean, reflect: true },
    dragging: { type: Boolean, reflect: true },
  };

  /** Base URL of the filehost API, e.g. `http://localhost:8787`. */
  declare endpoint: string;
  /** The publishable key (`pk_live_…`). A secret key is refused: it must never be in a page. */
  declare apiKey: string;
  /**
   * An upload token (`upt_…`) the page's backend minted for its user: sent instead of the
   * publishable key on upload calls (Authorization: Bearer upt_…), so that the backend
   * decides who uploads what (how many files, how large, which types, the metadata they
   * carry). `api-key` may then be left out. Read as each file starts.
   */
  declare uploadToken: string | undefined;
  /**
   * An async function that asks the page's backend for an upload token: called when the
   * element is first drawn with it (once the upload engine is in) when there is no
   * `upload-token`, and again when the service answers that the token expired; the refused
   * step is then made again with the new token, and no file is lost. It may answer the
   * token, or the answer of `POST /v1/upload-tokens` as it is (then the token is renewed
   * 30 s before it expires, not after a refusal, and the drop zone shows its limits). One
   * that throws or answers no token fails the files as `token_provider_failed` (its error in
   * the console). Property only.
   */
  declare tokenProvider: UploadTokenProvider | undefined;
  /** Accept several files. Default false: one file, and a new one replaces it. */
  declare multiple: boolean;
  /**
   * Offer "choose a folder" beside "choose files": every file in the folder (and below) is
   * added, each with its path in the folder as the `relativePath` metadata. (A dropped
   * folder is always read whole.)
   */
  declare directory: boolean;
  /**
   * Offer "Take a photo" on devices with a camera (phones, tablets): `environment` (the back
   * camera) or `user` (the front one), passed to the picker as its `capture`.
   */
  declare capture: '' | 'user' | 'environment';
  /**
   * Where files may come from besides the picker, space-separated: `link` adds a URL field
   * and an Import button (the service fetches the file, `POST /v1/uploads/import`), e.g.
   * `sources="files link"`. Off by default; its code is fetched only when it is set. An
   * imported file has a row of its own (below the field) with the import's progress, and
   * fires `upload-start`, `upload-progress`, `upload-success` and `upload-error` as an
   * uploaded one does (`step` is `upload`; `bytesTotal` is 0 while the remote size is not
   * known); it is not counted in the summary, `upload-complete`, `value` or the form.
   */
  declare sources: string | undefined;
  /** Like `<input accept>`: extensions and media types, comma-separated. */
  declare accept: string;
  /** Largest file accepted, in bytes; checked before anything is sent. */
  declare maxFileSize: number | null;
  /** Most files accepted (with `multiple`). */
  declare maxFiles: number | null;
  /**
   * Images wider than this (in pixels, once turned upright) are made smaller before they
   * are sent, in a worker; so are images taller than `max-image-height`. Setting any of the
   * four image options also re-encodes images (JPEG, PNG, WebP, BMP) that already fit,
   * which drops their metadata (EXIF, GPS); an image is sent as it is when that would not
   * make it smaller. The record's `size` is what was sent.
   */
  declare maxImageWidth: number | null;
  /** Images taller than this (pixels) are made smaller before they are sent. */
  declare maxImageHeight: number | null;
  /** Quality of re-encoded JPEG and WebP images, 0 to 1. Default 0.85. */
  declare imageQuality: number | null;
  /** Media type images are re-encoded to, e.g. `image/webp`. Default: the image's own type. */
  declare imageType: string;
  /**
   * Do not remember unfinished uploads across reloads. By default each upload still on its
   * way after a second is remembered in this browser (IndexedDB) until it is done or
   * removed, so that the next visit of the page carries on with it.
   */
  declare noResume: boolean;
  /**
   * Files up to this many bytes are remembered whole and resume after a reload by
   * themselves; larger ones resume when the user chooses the same file again. Default 10 MB.
   */
  declare resumeMaxSize: number | null;
  /**
   * Which files carry a checksum of each part, so that the storage refuses bytes damaged on
   * the way and they are sent again: `all` (the default) every part of every file, each part
   * hashed while the one before it is on the wire (measured free at 100 Mbit/s and 1 Gbit/s;
   * 1.29x the time on loopback, where nothing else binds); `small` files of one part, up to
   * 5 MiB; `off` none.
   */
  declare checksum: ChecksumChoice;
  /** Metadata stored with every file (JSON object of strings in the attribute). */
  declare metadata: FileMetadata;
  /**
   * `private`: the files are stored private. The CDN serves them only through signed links,
   * which the page's backend asks for with the secret key; their records have no `url`, so
   * the uploaded file's name is shown without a link, and a form gets its id. Unset (the
   * default) or `public`: public. Any other value is sent as it is, and the service refuses
   * it. (No default value is set: the script-tag bundle is held to its size budget.)
   */
  declare visibility: Visibility | undefined;
  declare disabled: boolean;
  /** Do not start uploading as soon as files are chosen; an Upload button starts them. */
  declare noAutoUpload: boolean;
  /** Form field name: the form gets one entry per uploaded file. */
  declare name: string;
  /** The form cannot be submitted until at least one file is uploaded. */
  declare required: boolean;
  /** What the form gets per file: `url` (default) or `id`. */
  declare formValue: 'url' | 'id';
  /** Replaces any of the texts (see `FileUploaderStrings`). */
  declare strings: FileUploaderOverrides;
  /**
   * Lets people edit images before they are sent: crop, rotate, flip, zoom, from the mouse,
   * touch or keyboard. Images the browser can decode (JPEG, PNG, WebP, AVIF, GIF's first
   * frame) wait on their row with Edit and Upload instead of uploading at once; other files
   * upload as usual; when a single image is added, the editor opens by itself. A saved edit
   * is encoded in the image's own type (JPEG and WebP at `image-quality`), upright, without
   * its metadata, and then uploaded (`max-image-width`/`-height` still apply); the original
   * never leaves the page. The editor (with Cropper.js) is fetched only when it first opens.
   */
  declare imageEditor: boolean;
  /** Reflected while files are uploading. */
  declare uploading: boolean;
  /** Reflected while files are dragged over the element. */
  declare dragging: boolean;

  readonly #internals: ElementInternals | null;
  readonly #controller: UploadController;
  readonly #announcer = new Announcer(this);
  #dragDepth = 0;
  /** Whether this device has a camera worth offering (see `capture`); asked once. */
  #hasCamera: boolean | undefined;
  #formDisabled?: boolean;
  #ticker?: ReturnType<typeof setInterval>;
  #view: FileView[] = [];

  constructor() {
    super();
    followLang(this);
    this.endpoint = '';
    this.apiKey = '';
    this.multiple = false;
    this.directory = false;
    this.capture = '';
    this.accept = '';
    this.maxFileSize = null;
    this.maxFiles = null;
    this.maxImageWidth = null;
    this.maxImageHeight = null;
    this.imageQuality = null;
    this.imageType = '';
    this.noResume = false;
    this.resumeMaxSize = null;
    this.checksum = 'all';
    this.metadata = {};
    this.disabled = false;
    this.noAutoUpload = false;
    this.name = '';
    this.required = false;
    this.formValue = 'url';
    this.strings = {};
    this.uploading = false;
    this.dragging = false;
    this.#internals = typeof this.attachInternals === 'function' ? this.attachInternals() : null;
    this.#controller = new UploadController(this, this.#settings(), {
      added: (files) => {
        emit(this, 'file-add', { files });
        const locale = localeOf(this);
        this.#announcer.say(
          this.texts.announceAdded(
            formatCount(files.length, locale),
            pluralForm(files.length, locale),
          ),
        );
      },
      started: (file) => emit(this, 'upload-start', { file }),
      progress: (file, bytesUploaded, bytesTotal) =>
        emit(this, 'upload-progress', { file, bytesUploaded, bytesTotal }),
      succeeded: (file, record) => {
        emit(this, 'upload-success', { file, record });
        this.#announcer.say(this.texts.announceDone(file.name));
      },
      failed: (file, failure) => {
        emit(this, 'upload-error', { file, ...failure });
        this.#announcer.say(this.texts.announceFailed(file.name, failure.message));
      },
      allDone: (result) => {
        emit(this, 'upload-complete', result);
        const locale = localeOf(this);
        // English has these words once the engine is in; a run that ended without it (its
        // file not fetched) said each failure already.
        const words = this.texts.announceAllDone;
        if (words)
          this.#announcer.say(
            words(
              formatCount(result.successful.length, locale),
              formatCount(result.failed.length, locale),
            ),
          );
      },
    });
    this.addEventListener('paste', this.#onPaste);
  }

  /** The language numbers and sizes are written in: the nearest `lang`, else the browser's. */
  get locale(): string {
    return localeOf(this);
  }

  /** The texts in use: the translation for the element's `lang` with `strings` laid over it. */
  get texts(): FileUploaderStrings {
    return textsWith(translationFor(localeOf(this)), 'uploader', this.strings);
  }

  /**
   * Every file in the list, with its status, progress, error and (once uploaded) its record;
   * with `image-editor`, the images waiting for Edit or Upload too (status `waiting`).
   */
  get files(): FileView[] {
    return [...this.#controller.files, ...this.#controller.held];
  }

  /** The records of the uploaded files, in the order they were added. */
  get value(): FileRecord[] {
    return recordsOf(this.#controller.files);
  }

  get form(): HTMLFormElement | null {
    return this.#internals?.form ?? null;
  }

  get validity(): ValidityState | undefined {
    return this.#internals?.validity;
  }

  get validationMessage(): string {
    return this.#internals?.validationMessage ?? '';
  }

  checkValidity(): boolean {
    return this.#internals?.checkValidity() ?? true;
  }

  reportValidity(): boolean {
    return this.#internals?.reportValidity() ?? true;
  }

  /** Adds files as if the user had chosen them. */
  addFiles(files: Iterable<File>): void {
    if (this.disabled || this.#formDisabled) return;
    let list = [...files];
    if (list.length === 0) return;
    if (!this.multiple) {
      // One file: a new choice replaces what was there.
      list = list.slice(0, 1);
      this.#controller.clear();
    }
    // With `image-editor`, its loader holds the images (and hands the rest on).
    if (this.imageEditor)
      import('../image-editor/held-images.js').then(
        (chunk) => chunk.hold(this, list, this.#controller),
        // Not fetched: the images go as any file would.
        () => this.#controller.addFiles(list),
      );
    else this.#controller.addFiles(list);
  }

  /**
   * Opens the image editor on `file` (with `image-editor`): an image waiting on its row, or
   * a new one, added as `addFiles` adds it (and then waiting on a row of its own).
   */
  editImage(file: File): void {
    if (this.imageEditor) this.addFiles([file]);
  }

  /** Starts files waiting to upload (with `no-auto-upload`). */
  upload(): void {
    this.#controller.uploadAll();
  }

  retry(id: string): void {
    // With what the element holds now: a page may set a new `upload-token` just before.
    this.#controller.configure(this.#settings());
    this.#controller.retry(id);
  }

  /**
   * Pauses a file's upload: nothing more is sent until `resumeFile`, which sends only what the
   * service does not hold yet. (A file of one part already sending finishes its bytes.)
   */
  pauseFile(id: string): void {
    this.#controller.pauseFile(id);
  }

  resumeFile(id: string): void {
    this.#controller.resumeFile(id);
  }

  /** Pauses every file on its way. */
  pauseAllFiles(): void {
    for (const file of this.#controller.files) if (isPausable(file)) this.pauseFile(file.id);
  }

  /** Resumes every paused file. */
  resumeAllFiles(): void {
    for (const file of this.#controller.files)
      if (file.status === 'paused') this.resumeFile(file.id);
  }

  /**
   * Forgets the uploads remembered in this browser for this endpoint and key: those cut off
   * by an earlier reload are no longer offered, and none is taken up on the next visit.
   * Acts once the upload engine is in (fetched when the page is idle after it connects).
   */
  forget(): void {
    this.#controller.forget();
  }

  /** Cancels an upload, or removes a file from the list. */
  removeFile(id: string): void {
    this.#controller.remove(id);
  }

  /** Cancels every upload still running. */
  cancelAll(): void {
    this.#controller.cancelAll();
  }

  /** Opens the file picker. */
  browse(): void {
    this.#openPicker('.pick-files');
  }

  /** Opens the folder picker (with `directory`). */
  browseFolder(): void {
    this.#openPicker('.pick-folder');
  }

  /** Opens the camera (with `capture`, on a device that has one). */
  takePhoto(): void {
    this.#openPicker('.pick-photo');
  }

  #openPicker(selector: string): void {
    if (this.disabled || this.#formDisabled) return;
    this.renderRoot.querySelector<HTMLInputElement>(selector)?.click();
  }

  formResetCallback(): void {
    this.#controller.clear();
  }

  formDisabledCallback(disabled: boolean): void {
    this.#formDisabled = disabled;
    this.requestUpdate();
  }

  override willUpdate(changed: PropertyValues<this>): void {
    // The engine hears of a change of what it runs with: an update some property caused
    // (not a redraw the engine asked for, which changes none: each `configure` redraws
    // Uppy's state, which would otherwise update the element again and again).
    if (changed.size > 0) this.#controller.configure(this.#settings());
    if (this.capture && this.#hasCamera === undefined) {
      this.#hasCamera = false;
      // Fetched only by pages that set `capture`; without it (not deployed, offline), no
      // camera button.
      loadChunk(() => import('./camera.js')).then(async ({ hasCamera }) => {
        this.#hasCamera = await hasCamera();
        this.requestUpdate();
      }, Boolean);
    }
    // Fetched only by pages that set `sources`; it draws itself beside the drop zone (and
    // nothing without `link`) and follows the element's updates. Written small: the first
    // load has no bytes to spare. A chunk that cannot be fetched leaves the element as it was.
    if (this.sources) import('./link-source.js').then((chunk) => chunk.attach(this), Boolean);
    // The view of the files is built once per update; render, the form and the countdown
    // all read this one.
    this.#view = this.#controller.files;
    this.uploading = isBusy(this.#view);
  }

  override updated(): void {
    if (this.#internals)
      syncForm(this.#internals, this, recordsOf(this.#view), this.#controller.held.length);
    // A file waiting to retry shows a countdown: redraw it every second while there is one.
    const counting = this.#view.some((file) => file.status === 'retrying');
    if (counting && !this.#ticker) this.#ticker = setInterval(() => this.requestUpdate(), 1000);
    if (!counting && this.#ticker) this.#stopTicker();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopTicker();
  }

  #stopTicker(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  /** The `accept` list: extensions and media types. */
  #acceptList(): string[] {
    return this.accept
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  #settings() {
    const accept = this.#acceptList();
    return {
      endpoint: this.endpoint,
      apiKey: this.apiKey,
      metadata: this.metadata,
      visibility: this.visibility,
      maxFileSize: this.maxFileSize,
      maxFiles: this.multiple ? this.maxFiles : 1,
      accept: accept.length > 0 ? accept : null,
      autoUpload: !this.noAutoUpload,
      image:
        this.maxImageWidth || this.maxImageHeight || this.imageQuality || this.imageType
          ? {
              maxWidth: this.maxImageWidth,
              maxHeight: this.maxImageHeight,
              quality: Math.min(1, this.imageQuality ?? 0.85),
              type: this.imageType || null,
            }
          : null,
      rememberUploads: !this.noResume,
      keepFilesUpTo: this.resumeMaxSize ?? 10_000_000,
      checksum: this.checksum,
      uploadToken: this.uploadToken,
      tokenProvider: this.tokenProvider,
    };
  }

  #onPick = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    this.addFiles(input.files ?? []);
    input.value = '';
  };

  #onPaste = (event: ClipboardEvent): void => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    this.addFiles(files);
  };

  #onDragEnter = (event: DragEvent): void => {
    if (!hasFiles(event) || this.disabled) return;
    event.preventDefault();
    this.#dragDepth++;
    this.dragging = true;
  };

  #onDragOver = (event: DragEvent): void => {
    if (!hasFiles(event) || this.disabled) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  };

  #onDragLeave = (): void => {
    this.#dragDepth = Math.max(0, this.#dragDepth - 1);
    if (this.#dragDepth === 0) this.dragging = false;
  };

  #onDrop = (event: DragEvent): void => {
    if (!hasFiles(event) || !event.dataTransfer) return;
    event.preventDefault();
    this.#dragDepth = 0;
    this.dragging = false;
    // What was dropped must be taken now, while the drop lasts; the folders in it are read
    // with the upload engine, which may still be on its way.
    const dropped = takeDrop(event.dataTransfer);
    void this.#controller.readDrop(dropped).then((files) => this.addFiles(files));
  };

  #hint(t: FileUploaderStrings, locale: string): string {
    const parts: string[] = [];
    if (this.accept) parts.push(t.hintTypes(this.#acceptList().join(', ')));
    if (this.maxFileSize) parts.push(t.hintMaxSize(formatBytes(this.maxFileSize, locale)));
    if (this.multiple && this.maxFiles)
      parts.push(
        t.hintMaxFiles(formatCount(this.maxFiles, locale), pluralForm(this.maxFiles, locale)),
      );
    parts.push(t.hintPaste);
    return parts.join(' ');
  }

  override render() {
    // Texts and language once per render, not per file: 200 files redrawn every frame made
    // merging the texts and finding the nearest lang a measurable share of the time.
    const t = this.texts;
    const locale = localeOf(this);
    const files = this.#view;
    const disabled = this.disabled || this.#formDisabled;
    return html`
      <div part="base" class="base" dir=${t.$dir}>
        <div
          part="dropzone"
          class="dropzone"
          @dragenter=${this.#onDragEnter}
          @dragover=${this.#onDragOver}
          @dragleave=${this.#onDragLeave}
          @drop=${this.#onDrop}
        >
          ${uploadIcon}
          <p class="prompt">
            ${
              this.dragging
                ? t.dropHere
                : html`${this.directory ? t.dropzoneFolders : t.dropzone}
              <button part="browse-button" class="browse" type="button" ?disabled=${disabled}
                aria-describedby="hint" @click=${() => this.browse()}>${t.browse}</button>${
                  this.directory
                    ? html` ${t.or}
              <button part="browse-button folder-button" class="browse" type="button" ?disabled=${disabled}
                aria-describedby="hint" @click=${() => this.browseFolder()}>${t.browseFolder}</button>`
                    : nothing
                }`
            }
          </p>
          ${
            this.capture && this.#hasCamera && !this.dragging
              ? html`<button part="camera-button" class="action camera" type="button" ?disabled=${disabled}
                  @click=${() => this.takePhoto()}>${t.takePhoto}</button>`
              : nothing
          }
          <p part="hint" id="hint" class="hint">${this.#controller.hint(t, locale) ?? this.#hint(t, locale)}</p>
          <input class="pick-files" type="file" hidden tabindex="-1" ?multiple=${this.multiple}
            accept=${this.accept || nothing} ?disabled=${disabled} @change=${this.#onPick} />
          ${
            this.directory
              ? html`<input class="pick-folder" type="file" hidden tabindex="-1" webkitdirectory
                  ?disabled=${disabled} @change=${this.#onPick} />`
              : nothing
          }
          ${
            this.capture
              ? html`<input class="pick-photo" type="file" hidden tabindex="-1" accept="image/*"
                  capture=${this.capture} ?disabled=${disabled} @change=${this.#onPick} />`
              : nothing
          }
        </div>
        ${files.some((file) => !['rejected', 'interrupted'].includes(file.status)) ? renderSummary(files, t, locale, this.uploading, this) : nothing}
        ${
          files.length > 0
            ? html`<ul part="list" aria-label=${t.fileListLabel}>
                ${repeat(
                  files,
                  (file) => file.id,
                  (file) => renderFile(file, t, locale, this),
                )}
              </ul>`
            : nothing
        }
        <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
      </div>
    `;
  }
}

function hasFiles(event: DragEvent): boolean {
  return [...(event.dataTransfer?.types ?? [])].includes('Files');
}

const uploadIcon = svg`<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8"
  stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M12 16V4m0 0 4.5 4.5M12 4 7.5 8.5"/>
  <path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3"/></svg>`;
