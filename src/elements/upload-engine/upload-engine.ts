import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import { Connections } from './connections.js';
import { fillEnglish } from './en-engine.js';
import type { FailureWording } from './failure.js';
import { describeCause, refusesTheFile } from './file-retries.js';
import {
  type FileUpload,
  fileView,
  newFileUpload,
  placeOf,
  summary,
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
import { rejectionOf } from './rejections.js';
import type { RememberedUploads } from './remembered-uploads.js';
import { SmallBatches } from './small-batches.js';
import type { TokenLimits } from './token-hint.js';
import { loadMemory, mayHoldUploads } from './upload-memory.js';
import { loadTokenChunk, UploadRuns } from './upload-run.js';
import type { TokenClient } from './upload-tokens.js';
import { createUppy, relativePathOf, restrictionsOf } from './uppy-adapter.js';

export { loadTokenChunk };

// The English words only this engine's files show arrive with it.
fillEnglish();

/**
 * The upload engine, loaded on first use or when the page is idle (`UploadController`),
 * so that the element renders and takes files before any of it arrives: what the element
 * asks of its uploads, composed of one part per concern.
 *
 * Here: the element's side (files added, refused, listed, paused, removed; the token's
 * limits in the drop zone; uploads remembered across reloads). Beside it, one concern each:
 * `uppy-adapter.ts` (how Uppy is made and wired), `upload-run.ts` (each run's lifecycle and
 * each attempt's steps, in the order `runSequence` of `src/client/upload-sequence.ts` gives
 * them), `small-batches.ts` (small files sent together), `sign-step.ts` (what an attempt
 * goes by), `connections.ts` (clients and their upload sequences per endpoint and key),
 * `multipart-upload.ts` (the part sender of `src/client/` under Uppy),
 * `remembered-uploads.ts` (uploads across reloads), `file-retries.ts` (failures and
 * automatic retries), `rejections.ts` (files refused).
 */
export class UploadEngine {
  readonly #host: UploadHost;
  readonly #callbacks: UploadCallbacks;
  #settings: UploaderSettings;
  readonly #runs: UploadRuns;
  readonly #batches: SmallBatches;
  /**
   * Each token a provider gives redraws the element: its limits are in the drop zone. (Held
   * weakly: a provider's token outlives the elements that used it.)
   */
  readonly #connections: Connections;
  /** The limits of the page's `tokenProvider`'s token (in the token chunk), once asked. */
  #tokenLimits: TokenLimits | null = null;
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

  constructor(host: UploadHost, settings: UploaderSettings, callbacks: UploadCallbacks) {
    const weakHost = new WeakRef(host);
    const connections = new Connections(() => weakHost.deref()?.requestUpdate());
    this.#connections = connections;
    this.#host = host;
    this.#settings = settings;
    this.#callbacks = callbacks;
    this.#runs = new UploadRuns(host, settings, callbacks, connections, {
      memory: () => this.#memory,
      counted: (upload, bytes) => this.#counted(upload, bytes),
    });
    this.#batches = new SmallBatches(this.#runs, connections);
  }

  /** The element is (again) in the page. */
  connect(): void {
    if (this.#destroyTimer) {
      // Moved within the page: keep the files and the uploads.
      clearTimeout(this.#destroyTimer);
      this.#destroyTimer = null;
    }
    const runs = this.#runs;
    runs.uppy ??= createUppy(this.#settings, runs.uploads, runs);
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
    await (await this.#openMemory())?.forgetAll(this.#settings);
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
    this.#settings = this.#runs.settings = settings;
    this.#runs.uppy?.setOptions({ restrictions: restrictionsOf(settings) });
    if (this.#runs.uppy) this.#recall();
  }

  get files(): FileView[] {
    const { uppy, uploads } = this.#runs;
    const views: FileView[] = [];
    // Once per drawing, not per file: the element's texts are made afresh on each read.
    const words = { texts: this.#host.texts, locale: this.#host.locale };
    const { texts, locale } = words;
    for (const file of uppy?.getFiles() ?? []) {
      const upload = uploads.get(file.id);
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
    return this.#tokenLimits?.hint(this.#settings, t, locale) ?? null;
  }

  #askEarly(): void {
    const settings = this.#settings;
    const { endpoint, tokenProvider, uploadToken } = settings;
    if (tokenProvider === this.#askedProvider && endpoint === this.#askedEndpoint) return;
    this.#askedProvider = tokenProvider;
    this.#askedEndpoint = endpoint;
    this.#tokenLimits = null;
    // A token set by the page comes without its limits: nothing to ask.
    if (!tokenProvider || uploadToken) return;
    // Not fetched (offline, not deployed): no limits shown; the first file says why.
    loadTokenChunk().then(
      (chunk) => {
        // With a provider, the client is the token chunk's (`connectWith`).
        const client = this.#connections.clientFor(settings) as Promise<TokenClient>;
        this.#tokenLimits = new chunk.TokenLimits(client, () => this.#host.requestUpdate());
      },
      () => undefined,
    );
  }

  /** A file went up: with the page's provider's token, it counts against that token's limits. */
  #counted(upload: FileUpload, bytes: number): void {
    const { tokenProvider, uploadToken } = upload.target;
    if (tokenProvider && !uploadToken && tokenProvider === this.#askedProvider) {
      this.#tokenLimits?.count(bytes);
    }
  }

  /** A chosen image's row gets its preview once made off the page's main thread. */
  #preview(id: string, file: File): void {
    void import('../shared/image-shrink.js')
      .then((images) => images.rowPreview(file))
      .then((url) => {
        const upload = this.#runs.uploads.get(id);
        if (url && !upload) URL.revokeObjectURL(url);
        if (!url || !upload) return;
        upload.thumbnail = url;
        this.#host.requestUpdate();
      });
  }

  /** Adds files (picked, dropped or pasted); those Uppy's restrictions refuse are listed as rejected. */
  addFiles(files: File[]): void {
    const { uppy, uploads } = this.#runs;
    if (!uppy || files.length === 0) return;
    const added: FileSummary[] = [];
    const target = this.#settings;
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
        uploads.set(id, newFileUpload(target, null, relativePath));
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

  /** Starts files, the small ones among them gathered for a batch upload (`SmallBatches`). */
  #startMany(ids: string[]): void {
    this.#runs.startMany(this.#batches.gather(ids));
  }

  /** Starts every file that has not started yet (with `no-auto-upload`). */
  uploadAll(): void {
    this.#startMany(this.files.filter((file) => file.status === 'queued').map((file) => file.id));
  }

  retry(id: string): void {
    this.#runs.retry(id);
  }

  /** Pauses a file on its way (see `UploadRuns.pause`). */
  pauseFile(id: string): void {
    this.#runs.pause(id);
  }

  /** Carries on with a paused file, sending only what the service does not hold yet. */
  resumeFile(id: string): void {
    this.#runs.resume(id);
  }

  /** Back online: files that failed for want of a connection carry on where they stopped. */
  online(): void {
    this.#runs.online();
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
    const runs = this.#runs;
    runs.stop(ids);
    const uppy = runs.uppy;
    const held = ids.filter((id) => uppy?.getFile(id));
    if (uppy && held.length > 0) uppy.removeFiles(held);
    this.#host.requestUpdate();
  }

  #destroy(): void {
    this.#destroyTimer = null;
    this.#batches.destroy();
    this.#runs.destroy();
  }

  /** A file Uppy's restrictions refused: listed, with the rule it broke in the page's words. */
  #reject(file: File, error: unknown): void {
    const uppy = this.#runs.uppy;
    if (!uppy) return;
    const word = rejectionOf(file, error, uppy, this.#settings);
    const failure = word(this.#host.texts, this.#host.locale);
    const id = `rejected-${crypto.randomUUID()}`;
    const view = unsentFileView(id, file, 'rejected', null);
    this.#rejected.push({ view, word });
    this.#callbacks.failed({ id, name: view.name, size: file.size, type: file.type }, failure);
  }
}
