import { MIN_PART_SIZE } from '../../api/limits.js';
import type { FileRecord, UploadState } from '../../api/types.js';
import { loadChunk } from '../../client/missing-chunk.js';
import { blobDigestHeader } from '../../client/part-digest.js';
import { claimedParts, type UploadStep } from '../../client/upload-plan.js';
import { loadServiceWords } from '../shared/failure-text.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import type { BatchItem, BatchOutcome } from './batch-upload.js';
import { Connections, signRequestFor } from './connections.js';
import { fillEnglish } from './en-engine.js';
import type { FailureWording, UploadFailure } from './failure.js';
import type { FailureCause } from './failure-cause.js';
import {
  autoRetryDelayMs,
  causeOf,
  clearRetry,
  describeCause,
  refusesTheFile,
  scheduleRetry,
} from './file-retries.js';
import {
  type FileUpload,
  fileView,
  newFileUpload,
  placeOf,
  type UploadTarget,
} from './file-state.js';
import type {
  FileSummary,
  FileView,
  UploadCallbacks,
  UploaderSettings,
  UploadHost,
} from './file-view.js';
import { unsentFileView } from './file-view.js';
import { loadPartSender } from './multipart-upload.js';
import { rejectionOf } from './rejections.js';
import type { RememberedUploads } from './remembered-uploads.js';
import { signStep } from './sign-step.js';
import { forgetUpload, loadMemory, mayHoldUploads, REMEMBER_AFTER_MS } from './upload-memory.js';
import type { TokenClient } from './upload-tokens.js';
import {
  createUppy,
  type EngineUppy,
  QUIET_UPLOAD_BYTES,
  relativePathOf,
  restrictionsOf,
  summary,
  type UFile,
} from './uppy-adapter.js';

type TokenChunk = typeof import('./upload-tokens.js');

/**
 * Uppy's state changes redraw the list at most this often. Progress bars glide between
 * redraws (a CSS transition of the same length), so more often would look no different
 * while 200 rows restyled each frame cost the browser more than the uploads themselves.
 */
const REDRAW_INTERVAL_MS = 100;
/**
 * With more files than a list shows at once, four redraws a second: a row among dozens
 * moving in quarter-second steps looks no different, and 200 small files went up 5-7%
 * sooner (12 pairs taking turns with 100 ms).
 */
const MANY_FILES_REDRAW_INTERVAL_MS = 250;
const MANY_FILES = 12;
/** How long a small file waits for others added after it to go in the same batch upload. */
const GATHER_MS = 15;

// The English words only this engine's files show arrive with it.
fillEnglish();

/**
 * The upload engine, loaded on first use or when the page is idle (`UploadController`),
 * so that the element renders and takes files before any of it arrives.
 *
 * Owns the Uppy instance and wires the three steps of an upload through it: a
 * pre-processor signs (or, on a retry, asks the service which parts it already holds),
 * the uploaders PUT the bytes (XHRUpload for one part, MultipartUpload for several) and
 * each file completes on its own `upload-success`. Signing, resuming and completing are
 * the typed client's `UploadSequence` (`prepare`, `finish`), the same steps
 * `FilehostClient.uploadFile` takes; only their timing is Uppy's. Uppy's file state is the truth the
 * element renders from; a file counts as uploaded only once complete has answered `ready`.
 *
 * Files added together share one Uppy run (see `#startMany`), a retried one runs alone;
 * either way each file's PUTs, completion and failure are its own, so a large file never
 * holds up a small one and one file's failure never touches another's.
 *
 * Here: the Uppy wiring and each run's lifecycle (start, pause, remove, all done). Beside
 * it, one concern each: `sign-step.ts` (what an attempt goes by), `connections.ts`
 * (clients and their upload sequences per endpoint and key), `multipart-upload.ts` (the
 * part sender of `src/client/` under Uppy), `remembered-uploads.ts` (uploads across reloads),
 * `file-retries.ts` (failures and automatic retries), `rejections.ts` (files refused).
 */
export class UploadEngine {
  readonly #host: UploadHost;
  readonly #callbacks: UploadCallbacks;
  #settings: UploaderSettings;
  #uppy: EngineUppy | null = null;
  /** Our state of each file Uppy holds, by Uppy's file id. */
  readonly #uploads = new Map<string, FileUpload>();
  /**
   * Each token a provider gives redraws the element: its limits are in the drop zone. (Held
   * weakly: a provider's token outlives the elements that used it.)
   */
  readonly #connections: Connections;
  /** The client of the page's `tokenProvider` (for its token's limits), once asked. */
  #tokenClient: TokenClient | null = null;
  /** The chunk that words the token's limits (`tokenHint`), in by then (the client came with it). */
  #tokenChunk: TokenChunk | null = null;
  /** The provider and endpoint last asked for a token ahead of any file (`hint`). */
  #askedProvider: UploadTarget['tokenProvider'];
  #askedEndpoint = '';
  /** Uploads remembered before this page was loaded, once the browser may hold any (`#openMemory`). */
  #memory: RememberedUploads | null = null;
  /** The endpoint and key whose remembered uploads were looked for (`#recall`). */
  #recalledFor = '';
  /** Files Uppy's restrictions refused, listed with the rule they broke. */
  #rejected: { view: FileView; word: FailureWording }[] = [];
  #destroyTimer: ReturnType<typeof setTimeout> | null = null;
  /** Small files waiting a moment for others to go with them (`#gatherSmall`). */
  readonly #gathered: string[] = [];
  #gatherTimer: ReturnType<typeof setTimeout> | null = null;
  #redrawPending = false;

  constructor(host: UploadHost, settings: UploaderSettings, callbacks: UploadCallbacks) {
    const weakHost = new WeakRef(host);
    this.#connections = new Connections(() => weakHost.deref()?.requestUpdate());
    this.#host = host;
    this.#settings = settings;
    this.#callbacks = callbacks;
  }

  /** The element is (again) in the page. */
  connect(): void {
    if (this.#destroyTimer) {
      // Moved within the page: keep the files and the uploads.
      clearTimeout(this.#destroyTimer);
      this.#destroyTimer = null;
    }
    this.#uppy ??= this.#createUppy();
    this.#recall();
  }

  /** Takes up the uploads remembered from an earlier visit of this page (see `RememberedUploads`). */
  #recall(): void {
    const settings = this.#settings;
    const { endpoint, apiKey, rememberUploads } = settings;
    const target = placeOf(endpoint, apiKey);
    // Once per endpoint and key (the page may set them after the engine is in), and only
    // as they are first set: what is remembered later is this page's own. (No endpoint or
    // key yet: nothing can be remembered for it, and no chunk is fetched.)
    if (!rememberUploads || !endpoint || !apiKey || this.#recalledFor === target) return;
    this.#recalledFor = target;
    void this.#openMemory().then(
      (memory) => memory?.recall(settings, (files) => this.addFiles(files)),
      // Not fetched (offline, not deployed): nothing is taken up this time.
      () => undefined,
    );
  }

  /** Forgets every upload remembered for this endpoint and key (and no longer offers them). */
  async forgetAll(): Promise<void> {
    const { endpoint, apiKey } = this.#settings;
    await (await this.#openMemory())?.forgetAll(endpoint, apiKey);
  }

  /**
   * The memory of uploads across reloads, fetched (see `upload-memory.ts`) once the browser
   * may hold any; null while it holds none.
   */
  async #openMemory(): Promise<RememberedUploads | null> {
    if (!this.#memory && (await mayHoldUploads())) {
      const { RememberedUploads } = await loadMemory();
      this.#memory ??= new RememberedUploads(() => this.#host.requestUpdate());
    }
    return this.#memory;
  }

  /** The element left the page: unless it comes back at once, everything stops. */
  disconnect(): void {
    // Removed for good (not moved): stop the uploads and let Uppy release its listeners.
    this.#destroyTimer = setTimeout(() => this.#destroy(), 0);
  }

  /** Applies changed attributes or properties (to signed files only from their next fresh start). */
  configure(settings: UploaderSettings): void {
    this.#settings = settings;
    this.#uppy?.setOptions({ restrictions: restrictionsOf(settings) });
    if (this.#uppy) this.#recall();
  }

  get files(): FileView[] {
    const uppy = this.#uppy;
    const views: FileView[] = [];
    // Once per drawing, not per file: the element's texts are made afresh on each read.
    const words = { texts: this.#host.texts, locale: this.#host.locale };
    const { texts, locale } = words;
    for (const file of uppy?.getFiles() ?? []) {
      const upload = this.#uploads.get(file.id);
      if (!upload) continue;
      const view = fileView(file, upload);
      // Worded as it is drawn, so a failure on screen follows a change of language.
      if (view.failure && upload.cause) view.failure = describeCause(upload.cause, words);
      if (view.failure) view.refused = refusesTheFile(view.failure);
      if (view.status === 'uploading') {
        view.pace = upload.rate?.pace(view.size - view.bytesUploaded, texts, locale);
      }
      views.push(view);
    }
    const rejected = this.#rejected.map(({ view, word }) => ({
      ...view,
      failure: word(texts, locale),
    }));
    return [...views, ...rejected, ...(this.#memory?.interrupted ?? [])];
  }

  /**
   * The drop zone's hint with the upload token's limits (`tokenHint`), once known; null
   * before (the element then says only what the page set). A page's `tokenProvider` is
   * asked for its token when the element is first drawn with it (and the upload engine in),
   * not only before the first upload: so the limits show before any file is chosen.
   */
  hint(t: FileUploaderStrings, locale: string): string | null {
    this.#askEarly();
    const allowance = this.#tokenClient?.tokens?.allowance;
    const chunk = this.#tokenChunk;
    return allowance && chunk ? chunk.tokenHint(allowance, this.#settings, t, locale) : null;
  }

  #askEarly(): void {
    const { endpoint, tokenProvider, uploadToken } = this.#settings;
    if (tokenProvider === this.#askedProvider && endpoint === this.#askedEndpoint) return;
    this.#askedProvider = tokenProvider;
    this.#askedEndpoint = endpoint;
    this.#tokenClient = null;
    // A token set by the page comes without its limits: nothing to ask.
    if (!tokenProvider || uploadToken) return;
    Promise.all([this.#connections.clientFor(this.#currentTarget()), loadTokenChunk()])
      .then(([client, chunk]: [TokenClient, TokenChunk]) => {
        // The limits' English words are the token chunk's (`fillRefusals`).
        chunk.fillRefusals();
        this.#tokenChunk = chunk;
        this.#tokenClient = client;
        return client.tokens?.current();
      })
      // No endpoint yet, or the provider failed (in the console): the first file says so.
      .catch(() => undefined)
      .finally(() => this.#host.requestUpdate());
  }

  /** A file went up: with the page's provider's token, it counts against that token's limits. */
  #counted(upload: FileUpload, bytes: number): void {
    const { tokenProvider, uploadToken } = upload.target;
    if (tokenProvider && !uploadToken && tokenProvider === this.#askedProvider) {
      this.#tokenClient?.tokens?.count(bytes);
    }
  }

  /** A chosen image's row gets its preview once made off the page's main thread (40 px rows). */
  #preview(id: string, file: File): void {
    void import('../shared/image-shrink.js')
      .then((images) => images.previewImage(file, Math.ceil(40 * devicePixelRatio)))
      .then((url) => {
        const upload = this.#uploads.get(id);
        if (url && !upload) URL.revokeObjectURL(url);
        if (!url || !upload) return;
        upload.thumbnail = url;
        this.#host.requestUpdate();
      });
  }

  /** Adds files (picked, dropped or pasted); those Uppy's restrictions refuse are listed as rejected. */
  addFiles(files: File[]): void {
    const uppy = this.#uppy;
    if (!uppy || files.length === 0) return;
    const added: FileSummary[] = [];
    const target = this.#currentTarget();
    for (const file of files) {
      try {
        const relativePath = relativePathOf(file);
        const id = uppy.addFile({
          name: file.name,
          type: file.type,
          data: file,
          source: 'file-uploader',
          // Part of Uppy's file id: a.txt in two folders is two files, not a duplicate.
          meta: relativePath ? { relativePath } : {},
        });
        this.#uploads.set(id, newFileUpload(target, null, relativePath));
        if (file.type.startsWith('image/')) this.#preview(id, file);
        const current = uppy.getFile(id);
        if (current) added.push(summary(current));
      } catch (error) {
        this.#reject(file, error);
      }
    }
    if (added.length > 0) this.#callbacks.added(added);
    if (this.#settings.autoUpload) this.#startMany(added.map((file) => file.id));
    this.#host.requestUpdate();
  }

  /** Starts every file that has not started yet (with `no-auto-upload`). */
  uploadAll(): void {
    this.#startMany(this.files.filter((file) => file.status === 'queued').map((file) => file.id));
  }

  retry(id: string): void {
    const upload = this.#uploads.get(id);
    if (upload) upload.attempts = 0;
    this.#start(id);
  }

  /**
   * Pauses a file on its way: its requests stop (the parts already sent stay with the
   * service) until `resumeFile`. A file of one part already sending finishes its bytes and
   * waits before it is completed; a file being completed is not stopped.
   */
  pauseFile(id: string): void {
    const upload = this.#uploads.get(id);
    if (upload?.outcome !== 'running' || upload.step === 'finishing') return;
    upload.paused = true;
    clearRetry(upload);
    upload.abort?.abort();
    // An error in Uppy's eyes: its uploaders skip the file (a paused multi-part file must not
    // pass on to XHRUpload), and `retryUpload` clears it on resume. Shown as paused.
    this.#uppy?.setFileState(id, { error: 'paused' });
    this.#host.requestUpdate();
  }

  /** Carries on with a paused file, sending only what the service does not hold yet. */
  resumeFile(id: string): void {
    const upload = this.#uploads.get(id);
    if (!upload?.paused) return;
    upload.paused = false;
    this.#start(id);
  }

  /** Cancels a running upload, or removes a finished, failed or rejected file from the list. */
  remove(id: string): void {
    this.#removeMany([id]);
  }

  /** Cancels every upload still running; finished files stay. */
  cancelAll(): void {
    this.#removeMany(
      this.files
        .filter((file) => !['done', 'failed', 'rejected'].includes(file.status))
        .map((file) => file.id),
    );
  }

  /** Empties the list (form reset). */
  clear(): void {
    this.#removeMany(this.files.map((file) => file.id));
    this.#rejected = [];
  }

  /**
   * Removes files in ONE change of Uppy's state: each change copies Uppy's whole map of
   * files, so removing 2,000 one by one took 1.9 s of the page's main thread.
   */
  #removeMany(ids: string[]): void {
    const removed = new Set(ids);
    this.#rejected = this.#rejected.filter(({ view }) => !removed.has(view.id));
    this.#memory?.removeInterrupted(removed);
    for (const id of ids) {
      const upload = this.#uploads.get(id);
      if (!upload) continue;
      clearRetry(upload);
      upload.abort?.abort();
      forgetUpload(upload);
    }
    const uppy = this.#uppy;
    const held = ids.filter((id) => uppy?.getFile(id));
    if (uppy && held.length > 0) uppy.removeFiles(held);
    this.#host.requestUpdate();
  }

  #createUppy(): EngineUppy {
    return createUppy(this.#settings, this.#uploads, {
      prepare: this.#prepareFiles,
      partUrl: (file) => this.#signedPartUrl(file),
      uploadState: (id, signal) => this.#uploadState(id, signal),
      sent: (file) => void this.#complete(file.id),
      progress: (file, bytesUploaded, bytesTotal) =>
        this.#callbacks.progress(summary(file), bytesUploaded, bytesTotal),
      failed: (id, error) => this.#onFailure(id, error),
      removed: (id) => this.#forget(id),
      changed: () => this.#redrawSoon(),
    });
  }

  #redrawSoon(): void {
    if (this.#redrawPending) return;
    this.#redrawPending = true;
    setTimeout(
      () => {
        requestAnimationFrame(() => {
          this.#redrawPending = false;
          this.#host.requestUpdate();
        });
      },
      this.#uploads.size > MANY_FILES ? MANY_FILES_REDRAW_INTERVAL_MS : REDRAW_INTERVAL_MS,
    );
  }

  #destroy(): void {
    this.#destroyTimer = null;
    if (this.#gatherTimer) clearTimeout(this.#gatherTimer);
    this.#gatherTimer = null;
    this.#gathered.length = 0;
    for (const upload of this.#uploads.values()) {
      clearRetry(upload);
      upload.abort?.abort();
      upload.unlock?.();
      if (upload.thumbnail) URL.revokeObjectURL(upload.thumbnail);
    }
    this.#uploads.clear();
    this.#uppy?.destroy();
    this.#uppy = null;
  }

  /**
   * The settings as they are now, as a file's target: `configure` replaces them with a new
   * object and none is ever changed, so a file keeps the one it was given.
   */
  #currentTarget(): UploadTarget {
    return this.#settings;
  }

  /**
   * Starts files added together in ONE Uppy run when Uppy's `upload()` would start exactly
   * them: it also retries every failed file and starts every file not yet started, so with
   * any such file about, each of ours gets its own run (#start). A run per file costs Uppy
   * a copy of its map of runs on each step of each run: O(n²) over a batch. Only files of
   * one part share a run (no part but the last is under MIN_PART_SIZE): a run's uploaders go
   * one after the other, and a large file must not hold up the small ones.
   */
  #startMany(started: string[], gathered = false): void {
    const uppy = this.#uppy;
    if (!uppy) return;
    const ids = gathered ? started : this.#gatherSmall(started);
    if (ids.length === 0) return;
    const batch = new Set(ids.filter((id) => (uppy.getFile(id)?.size ?? 0) <= MIN_PART_SIZE));
    for (const id of ids) if (!batch.has(id)) this.#start(id);
    const running = new Set(
      Object.values(uppy.getState().currentUploads).flatMap((run) => run.fileIDs),
    );
    if (
      batch.size < 2 ||
      uppy
        .getFiles()
        .some(
          (file) =>
            file.error ||
            !(file.progress.uploadStarted || running.has(file.id) || batch.has(file.id)),
        )
    ) {
      for (const id of batch) this.#start(id);
      return;
    }
    for (const id of batch) this.#begin(id);
    void uppy.upload().catch(() => undefined);
  }

  /**
   * Small files started together (two or more of at most QUIET_UPLOAD_BYTES, never
   * signed, added at once or within GATHER_MS of each other) go by the batch upload
   * (`batch-upload.ts`), outside Uppy's runs: their bytes in a few requests, with no Uppy
   * state change per file. One that came alone goes by the usual steps after that moment.
   * Answers the ids left to the usual steps now. A file that fails in a batch is retried
   * alone, by those steps.
   */
  #gatherSmall(ids: string[]): string[] {
    const uppy = this.#uppy;
    const small = new Set(
      ids.filter((id) => {
        const size = uppy?.getFile(id)?.size ?? 0;
        return size > 0 && size <= QUIET_UPLOAD_BYTES && !this.#uploads.get(id)?.plan;
      }),
    );
    if (small.size === 0) return ids;
    this.#gathered.push(...small);
    // Files added one by one within a moment go together too (as the batch sign's window).
    this.#gatherTimer ??= setTimeout(() => {
      this.#gatherTimer = null;
      const together = this.#gathered.splice(0).filter((id) => this.#uppy?.getFile(id));
      if (together.length >= 2) this.#sendTogether(together);
      else this.#startMany(together, true);
    }, GATHER_MS);
    return ids.filter((id) => !small.has(id));
  }

  /** Sends small files by the batch upload (see `#gatherSmall`). */
  #sendTogether(small: string[]): void {
    const uppy = this.#uppy;
    if (!uppy) return;
    const items: BatchItem[] = [];
    const started: Record<string, { progress: UFile['progress'] }> = {};
    for (const id of small) {
      const upload = this.#uploads.get(id);
      const file = uppy.getFile(id);
      if (!upload || !file || !this.#begin(id)) continue;
      upload.step = 'preparing';
      items.push({
        id,
        body: file.data as Blob,
        upload,
        entry: signRequestFor(file, upload, 'off'),
        checked: this.#settings.checksum !== 'off',
      });
      // Started in Uppy's eyes, so that none of its runs takes it up.
      started[id] = { progress: { ...file.progress, uploadStarted: Date.now(), bytesUploaded: 0 } };
    }
    // One change of Uppy's state for all of them: each change copies its whole map of files.
    uppy.patchFilesState(started);
    const current = (item: BatchItem) =>
      this.#uploads.get(item.id) === item.upload && item.upload.outcome === 'running';
    const outcome: BatchOutcome = {
      sending: (sent) => {
        for (const item of sent) item.upload.step = null;
        this.#redrawSoon();
      },
      succeeded: (item, record) => {
        const file = uppy.getFile(item.id);
        if (!current(item) || !file) return;
        item.upload.record = record;
        item.upload.outcome = 'succeeded';
        this.#counted(item.upload, record.size);
        // Paused while its request was on its way: its bytes are in all the same.
        if (item.upload.paused) {
          item.upload.paused = false;
          uppy.setFileState(item.id, { error: null });
        }
        this.#callbacks.progress(summary(file), record.size, record.size);
        this.#callbacks.succeeded(summary(file), record);
        this.#redrawSoon();
        this.#maybeAllDone();
      },
      failed: (item, error) => {
        if (!current(item) || item.upload.abort?.signal.aborted) return;
        this.#fail(item.id, error, 'upload');
      },
    };
    // Not fetched (offline, not deployed): each file fails as its first request would, and
    // is retried alone by the usual steps.
    loadChunk(() => import('./batch-upload.js')).then(
      (batch) => batch.sendInBatches(items, this.#connections, outcome),
      (error: unknown) => {
        for (const item of items) outcome.failed(item, error);
      },
    );
  }

  /**
   * Starts one file's own Uppy run. `retryUpload` is Uppy's way to run the upload steps for
   * exactly one file (and it clears an earlier error).
   */
  #start(id: string): void {
    if (this.#begin(id)) void this.#uppy?.retryUpload(id).catch(() => undefined);
  }

  /** Our side of starting a file; false if there is no such file. */
  #begin(id: string): boolean {
    const uppy = this.#uppy;
    const file = uppy?.getFile(id);
    const upload = this.#uploads.get(id);
    if (!uppy || !file || !upload) return false;
    clearRetry(upload);
    upload.failure = null;
    upload.cause = null;
    // One controller per attempt: a pause or a removal stops whichever step it is in.
    upload.abort?.abort();
    upload.abort = new AbortController();
    upload.rate = null;
    // A file not yet signed goes where the element points now; a signed one stays put.
    if (!upload.plan) upload.target = this.#currentTarget();
    if (upload.outcome === null) this.#callbacks.started(summary(file));
    upload.outcome = 'running';
    this.#host.requestUpdate();
    return true;
  }

  /**
   * Uppy's pre-processing step of a run: signs each file. Only files that may have several
   * parts hold the run until they are signed (MultipartUpload needs their plans when its
   * step starts); a file of one part is waited for by XHRUpload when its turn comes
   * (#signedPartUrl), so the first of 200 small files is sent while the others are signed.
   */
  #prepareFiles = async (fileIDs: string[]): Promise<void> => {
    const held = fileIDs.map((id) => {
      const upload = this.#uploads.get(id);
      const prepared = this.#prepare(id);
      if (upload) upload.prepared = prepared;
      if ((this.#uppy?.getFile(id)?.size ?? 0) <= MIN_PART_SIZE) return undefined;
      // Its part sender is fetched while it is signed (once: the module is kept).
      loadPartSender().catch(() => undefined);
      return prepared;
    });
    await Promise.all(held);
  };

  /**
   * The URL XHRUpload sends a file of one part to, once the file's sign step is done. A file
   * that failed, was paused or removed, or had every byte in already is not sent:
   * XHRUpload passes over an `AbortError` quietly (the failure is the sign step's to report).
   */
  async #signedPartUrl(file: UFile): Promise<string> {
    const upload = this.#uploads.get(file.id);
    const attempt = upload?.abort;
    await upload?.prepared;
    const current = this.#uppy?.getFile(file.id);
    const part = upload?.plan?.parts[0];
    // (A paused file has an error too; a retry started meanwhile is another attempt.)
    if (
      !part ||
      !current ||
      current.error ||
      current.progress.uploadComplete ||
      upload.abort !== attempt
    ) {
      throw new DOMException('', 'AbortError');
    }
    return part.url;
  }

  /** An attempt's sign step (`signStep`), run as Uppy pre-processes the file. */
  async #prepare(id: string): Promise<void> {
    const uppy = this.#uppy;
    const file = uppy?.getFile(id);
    const upload = this.#uploads.get(id);
    const abort = upload?.abort;
    if (!uppy || !file || !upload || !abort) return;
    // Our own step, shown from `step`: no Uppy progress events for it, since each one
    // copies Uppy's whole file map (O(n²) over a batch; see #complete).
    upload.step = 'preparing';
    try {
      const signal = abort.signal;
      // At most MAX_UNFINISHED_UPLOADS files signed and not finished: the next file is
      // signed as an earlier one ends (the service caps anonymous pending uploads).
      // (One stopped while it waited gives its place back at once.)
      const release = await this.#connections.unfinished();
      // Given back once: when the attempt completes or fails, or is stopped (its abort: a
      // pause, a removal, a new attempt).
      let held = true;
      const letGo = () => {
        if (held) release();
        held = false;
      };
      upload.release = letGo;
      if (signal.aborted) letGo();
      else signal.addEventListener('abort', letGo);
      const { plan, signed } = await signStep(upload, file.data as File, {
        connections: this.#connections,
        memory: this.#memory,
        checksum: this.#settings.checksum,
        signal,
      });
      // A file small enough for one request has nothing to resume: never remembered, so
      // one slowed past the second fetches no memory of uploads either.
      if (signed && this.#settings.rememberUploads && (file.size ?? 0) > QUIET_UPLOAD_BYTES) {
        setTimeout(() => this.#remember(id), REMEMBER_AFTER_MS);
      }
      // Kept even if paused meanwhile: the resume goes on with this upload.
      upload.plan = plan;
      signal.throwIfAborted();
      const current = uppy.getFile(id);
      if (!current) return;
      const [only] = plan.parts;
      if (plan.parts.every((part) => part.etag !== null)) {
        // Every byte is already there (a retry after complete failed): straight to complete.
        uppy.emit('upload-success', current, { status: 200, body: {}, uploadURL: undefined });
      } else if (plan.parts.length === 1 && only) {
        // The whole file is the one part: its digest goes with it (see MultipartUpload).
        only.headers = {
          ...only.headers,
          ...(await blobDigestHeader(plan.checksum, current.data as Blob)),
        };
      }
    } catch (error) {
      // Paused or removed: Uppy's uploaders skip it (it has an error, or is gone).
      if (abort.signal.aborted) return;
      this.#fail(id, error, 'sign');
    } finally {
      upload.step = null;
    }
  }

  /** A file's upload as the service holds it now: fresh URLs for its parts. */
  async #uploadState(id: string, signal?: AbortSignal): Promise<UploadState> {
    const upload = this.#uploads.get(id);
    const plan = upload?.plan;
    if (!upload || !plan) throw new Error(`No upload plan for ${id}`);
    const client = await this.#connections.clientFor(upload.target);
    return client.getUpload(plan.uploadId, { signal, uploadToken: plan.uploadToken });
  }

  /** Complete step: only its `ready` answer makes the file uploaded. */
  async #complete(id: string): Promise<void> {
    const uppy = this.#uppy;
    const file = uppy?.getFile(id);
    const upload = this.#uploads.get(id);
    const plan = upload?.plan;
    // A file paused while its one part was on its way has Uppy's error (see pauseFile): it is
    // completed when resumed, once the service says it holds the part.
    const abort = upload?.abort;
    if (!uppy || !file || !upload || !plan || !abort || file.error) return;
    if (!file.progress.uploadComplete) return;
    upload.step = 'finishing';
    // A single part's ETag came back in the PUT answer; several parts' in the plan.
    const single = (file.response?.body as { etag?: unknown } | undefined)?.etag;
    const [only] = plan.parts;
    if (only && only.etag === null && typeof single === 'string') only.etag = single;
    const parts = claimedParts(plan);
    try {
      const record = await (await this.#connections.sequenceFor(upload.target)).finish({
        id: plan.uploadId,
        uploadToken: plan.uploadToken,
        parts,
        together: upload.signedTogether,
        signal: abort.signal,
      });
      const current = uppy.getFile(id);
      if (!current) return;
      // The record is ours (`upload.record`), not Uppy's: every Uppy state change copies its
      // whole file map.
      upload.record = record;
      upload.outcome = 'succeeded';
      this.#counted(upload, record.size);
      upload.release?.();
      forgetUpload(upload);
      this.#callbacks.succeeded(summary(current), record);
      this.#maybeAllDone();
    } catch (error) {
      if (abort.signal.aborted) return;
      this.#fail(id, error, 'complete');
    } finally {
      upload.step = null;
    }
  }

  /** Remembers a file's upload across reloads, if it is still on its way. */
  #remember(id: string): void {
    const upload = this.#uploads.get(id);
    const file = this.#uppy?.getFile(id)?.data as File | undefined;
    if (!upload || !file) return;
    const { keepFilesUpTo } = this.#settings;
    // Not fetched (offline, not deployed): this upload is not remembered.
    void loadMemory()
      .then((memory) =>
        memory.rememberUpload(upload, file, keepFilesUpTo, () => this.#uploads.has(id)),
      )
      .catch(() => undefined);
  }

  /** Records a failure of our own steps and tells Uppy, which marks the file failed. */
  #fail(id: string, error: unknown, step: UploadStep): void {
    const cause = causeOf(error, step);
    const failure = describeCause(cause, this.#host);
    const upload = this.#uploads.get(id);
    if (upload) {
      upload.cause = cause;
      upload.failure = failure;
    }
    const file = this.#uppy?.getFile(id);
    if (file)
      this.#uppy?.emit('upload-error', file, { name: 'UploadFailure', message: failure.message });
  }

  /** Every failure passes here (ours and XHRUpload's): retry it, or leave it to the user. */
  #onFailure(id: string, error: { name: string; message: string }): void {
    const upload = this.#uploads.get(id);
    upload?.release?.();
    // A paused file's failures wait for its resume, which starts it afresh anyway.
    if (!upload || upload.paused) return;
    // Our own steps recorded their cause (#fail); a failed PUT of XHRUpload or of our
    // multipart plugin arrives only here, with its XMLHttpRequest.
    upload.cause ??= causeOf(error, 'upload');
    const cause = upload.cause;
    // The English words of the service's refusals (and of its other answers, `en-service.ts`)
    // arrive with the first failure that is not a lost connection (which is worded already,
    // and could not fetch them).
    if (!refusalWordsIn && (cause.error as { code?: string }).code !== 'network_error') {
      const attempt = upload.abort;
      refusalWords ??= Promise.all([loadTokenChunk(), loadServiceWords()]).then(
        ([words]) => {
          words.fillRefusals();
          refusalWordsIn = true;
        },
        // Not fetched: worded as a code without words this time, fetched again next time.
        () => {
          refusalWords = null;
        },
      );
      void refusalWords.then(() => {
        if (this.#uploads.get(id) === upload && upload.abort === attempt) {
          this.#failed(id, upload, cause);
        }
      });
      return;
    }
    this.#failed(id, upload, cause);
  }

  /** A failure, worded: retried by itself, or left to the user. */
  #failed(id: string, upload: FileUpload, cause: FailureCause): void {
    // Worded now (our steps worded it before the words may have been in).
    const failure = describeCause(cause, this.#host);
    upload.failure = failure;
    const delay = autoRetryDelayMs(upload);
    if (delay !== null) {
      upload.attempts++;
      scheduleRetry(upload, delay, () => this.#start(id));
      this.#host.requestUpdate();
      return;
    }
    const file = this.#uppy?.getFile(id);
    upload.outcome = 'failed';
    // A failure is drawn at once; a finished file waits for the next throttled redraw (at
    // most REDRAW_INTERVAL_MS), or 200 small files finishing one by one would redraw 200
    // rows 200 times.
    this.#host.requestUpdate();
    if (file) this.#callbacks.failed(summary(file), failure);
    this.#maybeAllDone();
  }

  /** Back online: files that failed for want of a connection carry on where they stopped. */
  online(): void {
    for (const [id, upload] of this.#uploads) {
      if (
        !upload.paused &&
        upload.failure?.code === 'network_error' &&
        this.#uppy?.getFile(id)?.error
      ) {
        this.retry(id);
      }
    }
  }

  /** When no file that ran since the last "all done" is still running, the page hears it. */
  #maybeAllDone(): void {
    // Asked as each file finishes: a plain loop that stops at the first running file, not
    // a copy of every upload each time (0.26 s of 2,000 small files' main thread).
    for (const upload of this.#uploads.values()) if (upload.outcome === 'running') return;
    const ran = [...this.#uploads].filter(([, upload]) => upload.outcome !== null);
    if (ran.length === 0) return;
    const uppy = this.#uppy;
    const successful: FileRecord[] = [];
    const failed: { file: FileSummary; failure: UploadFailure }[] = [];
    for (const [id, upload] of ran) {
      const file = uppy?.getFile(id);
      if (upload.outcome === 'succeeded' && upload.record) successful.push(upload.record);
      if (upload.outcome === 'failed' && upload.failure && file) {
        failed.push({ file: summary(file), failure: upload.failure });
      }
      upload.outcome = null;
    }
    // The end of a batch is drawn at once: `uploading` and the form's validity must be
    // current when the page hears `upload-complete`.
    this.#host.requestUpdate();
    this.#callbacks.allDone({ successful, failed });
  }

  #forget(id: string): void {
    const upload = this.#uploads.get(id);
    if (!upload) return;
    this.#uploads.delete(id);
    upload.abort?.abort();
    clearRetry(upload);
    if (upload.thumbnail) URL.revokeObjectURL(upload.thumbnail);
    if (upload.outcome !== null) this.#maybeAllDone();
    this.#host.requestUpdate();
  }

  /** A file Uppy's restrictions refused: listed, with the rule it broke in the page's words. */
  #reject(file: File, error: unknown): void {
    const uppy = this.#uppy;
    if (!uppy) return;
    const word = rejectionOf(file, error, uppy, this.#settings);
    const failure = word(this.#host.texts, this.#host.locale);
    const id = `rejected-${crypto.randomUUID()}`;
    const view = unsentFileView(id, file, 'rejected', null);
    this.#rejected.push({ view, word });
    this.#callbacks.failed({ id, name: view.name, size: file.size, type: file.type }, failure);
  }
}

/**
 * The chunk of a token's clients and of the English words of the service's refusals; the
 * Link source reaches it through the engine, which it loads anyway (imported from there, it
 * would split the code both share out of the engine into a file of its own).
 */
export const loadTokenChunk = () => import('./upload-tokens.js');

/**
 * `en-refusals.ts` (in the chunk of `upload-tokens.ts`) and `en-service.ts` on their way,
 * and whether they are in.
 */
let refusalWords: Promise<unknown> | null = null;
let refusalWordsIn = false;
