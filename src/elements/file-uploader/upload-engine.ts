import Uppy, { type Meta, RestrictionError, type UppyFile } from '@uppy/core';
import XHRUpload from '@uppy/xhr-upload';
import { MIN_PART_SIZE } from '../../api/limits.js';
import { cleanName } from '../../api/names.js';
import type { FileRecord, UploadState } from '../../api/types.js';
import { ApiError, isTransientStatus } from '../../client/api-error.js';
import type { FilehostApi } from '../../client/client.js';
import { blobDigestHeader } from '../../client/part-digest.js';
import { xhrPartEtag } from '../../client/part-put.js';
import {
  claimedParts,
  fileRetryDelayMs,
  planFromSign,
  planFromState,
  type UploadPlan,
  type UploadStep,
} from '../../client/upload-plan.js';
import { UploadSession } from '../../client/upload-session.js';
import { type ConnectionProblem, connect } from '../shared/connection.js';
import { formatBytes } from '../shared/format.js';
import {
  describeFailure,
  type FailureCause,
  failureContext,
  LocalFailure,
  localFailure,
  rejection,
  type UploadFailure,
} from './failure.js';
import { type FileUpload, fileView, newFileUpload, type UploadTarget } from './file-state.js';
import type {
  FileSummary,
  FileView,
  UploadCallbacks,
  UploaderSettings,
  UploadHost,
} from './file-view.js';
import { unsentFileView } from './file-view.js';
import { MultipartUpload } from './multipart-upload.js';
import {
  fingerprintOf,
  forget,
  hold,
  type RememberedUpload,
  remember,
  rememberedFor,
  runningElsewhere,
} from './resume-memory.js';
import type { FileUploaderStrings } from './strings.js';
import { fromXhrError } from './xhr-error.js';

type UploadBody = Record<string, unknown>;
type UFile = UppyFile<Meta, UploadBody>;

/** Automatic retries of one file after transient failures, before it is left to the user. */
const AUTO_RETRIES = 3;
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
/**
 * An upload is remembered across reloads once it has run this long without finishing: most
 * small files are done sooner, and never cost an IndexedDB write (200 at once would).
 */
const REMEMBER_AFTER_MS = 1000;
/**
 * Files up to this size are sent without upload progress events: at 1 Mbit/s one takes half
 * a second, and its bar goes from "uploading" to done.
 */
const QUIET_UPLOAD_BYTES = 64 * 1024;
/** Thumbnails are made from images up to this size; larger ones would cost memory for a 40 px picture. */
const THUMBNAIL_MAX_BYTES = 20_000_000;

/**
 * The upload engine, loaded on first use or when the page is idle (`UploadController`),
 * so that the element renders and takes files before any of it arrives.
 *
 * Owns the Uppy instance and wires the three steps of an upload through it: a
 * pre-processor signs (or, on a retry, asks the service which parts it already holds),
 * the uploaders PUT the bytes (XHRUpload for one part, MultipartUpload for several) and
 * each file completes on its own `upload-success`. Uppy's file state is the truth the
 * element renders from; a file counts as uploaded only once complete has answered `ready`.
 *
 * Files added together share one Uppy run (see `#startMany`), a retried one runs alone;
 * either way each file's PUTs, completion and failure are its own, so a large file never
 * holds up a small one and one file's failure never touches another's.
 */
export class UploadEngine {
  readonly #host: UploadHost;
  readonly #callbacks: UploadCallbacks;
  #settings: UploaderSettings;
  #uppy: Uppy<Meta, UploadBody> | null = null;
  /** Our state of each file Uppy holds, by Uppy's file id. */
  readonly #uploads = new Map<string, FileUpload>();
  /** One client per endpoint and key the files were added with (usually one). */
  readonly #clients = new Map<string, FilehostApi | ConnectionProblem>();
  readonly #sessions = new WeakMap<FilehostApi, UploadSession>();
  #rejected: FileView[] = [];
  /** Uploads remembered from before this page was loaded, not yet taken up again. */
  #remembered: RememberedUpload[] = [];
  /** The endpoint and key whose remembered uploads were taken up. */
  #recalledFor = '';
  #destroyTimer: ReturnType<typeof setTimeout> | null = null;
  #redrawPending = false;

  constructor(host: UploadHost, settings: UploaderSettings, callbacks: UploadCallbacks) {
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

  /**
   * Takes up the uploads remembered from an earlier visit of this page (to this endpoint,
   * with this key): files kept whole resume at once; the others wait for the user to choose
   * the same file again (`interrupted`), matched when it is signed (#recalledPlan).
   */
  #recall(): void {
    const { endpoint, apiKey, rememberUploads } = this.#settings;
    const target = `${endpoint}\n${apiKey}`;
    // Once per endpoint and key (the page may set them after the engine is in).
    if (!rememberUploads || !endpoint || !apiKey || this.#recalledFor === target) return;
    this.#recalledFor = target;
    // No IndexedDB here (a private window may refuse it): nothing to take up.
    // Not those another tab is running now (it holds their locks).
    void Promise.all([rememberedFor(endpoint, apiKey), runningElsewhere()])
      .catch(() => [[], new Set<string>()] as const)
      .then(([remembered, elsewhere]) => {
        this.#remembered = remembered.filter((upload) => !elsewhere.has(upload.uploadId));
        const kept = this.#remembered.flatMap((upload) => (upload.file ? [upload.file] : []));
        if (kept.length > 0) this.addFiles(kept);
        this.#host.requestUpdate();
      });
  }

  /** Forgets every upload remembered for this endpoint and key (and no longer offers them). */
  async forgetAll(): Promise<void> {
    const { endpoint, apiKey } = this.#settings;
    this.#remembered = [];
    this.#host.requestUpdate();
    for (const upload of await rememberedFor(endpoint, apiKey).catch(() => [])) {
      await forget(upload);
    }
  }

  /** The element left the page: unless it comes back at once, everything stops. */
  disconnect(): void {
    // Removed for good (not moved): stop the uploads and let Uppy release its listeners.
    this.#destroyTimer = setTimeout(() => this.#destroy(), 0);
  }

  /** Applies changed attributes or properties (to signed files only from their next fresh start). */
  configure(settings: UploaderSettings): void {
    this.#settings = settings;
    this.#uppy?.setOptions({ restrictions: this.#restrictions() });
    if (this.#uppy) this.#recall();
  }

  get files(): FileView[] {
    const uppy = this.#uppy;
    const views: FileView[] = [];
    for (const file of uppy?.getFiles() ?? []) {
      const upload = this.#uploads.get(file.id);
      if (upload) views.push(fileView(file, upload));
    }
    // Uploads cut off before this page was loaded, until their files are chosen again.
    const interrupted = this.#remembered.flatMap((upload) =>
      upload.file
        ? []
        : [unsentFileView(`interrupted-${upload.uploadId}`, upload, 'interrupted', null)],
    );
    return [...views, ...this.#rejected, ...interrupted];
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
        const thumbnail =
          file.type.startsWith('image/') && file.size <= THUMBNAIL_MAX_BYTES
            ? URL.createObjectURL(file)
            : null;
        this.#uploads.set(id, newFileUpload(target, thumbnail, relativePath));
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
    this.#rejected = this.#rejected.filter((file) => !removed.has(file.id));
    // An interrupted upload removed from the list is forgotten.
    this.#remembered = this.#remembered.filter((upload) => {
      if (!removed.has(`interrupted-${upload.uploadId}`)) return true;
      void forget(upload).catch(() => undefined);
      return false;
    });
    for (const id of ids) {
      const upload = this.#uploads.get(id);
      if (!upload) continue;
      clearRetry(upload);
      upload.abort?.abort();
      this.#forgetUpload(upload);
    }
    const uppy = this.#uppy;
    const held = ids.filter((id) => uppy?.getFile(id));
    if (uppy && held.length > 0) uppy.removeFiles(held);
    this.#host.requestUpdate();
  }

  #createUppy(): Uppy<Meta, UploadBody> {
    const uppy = new Uppy<Meta, UploadBody>({
      // Failures reach the page as `upload-error` events and on screen; Uppy need not also
      // print each one to the console.
      logger: { debug: quiet, warn: quiet, error: quiet },
      // Uppy's defaults, relied on: no autoProceed, and more than one upload run at a time.
      restrictions: this.#restrictions(),
    });
    uppy.addPreProcessor(this.#prepareFiles);
    // Several parts: ours, installed first, so that XHRUpload finds those files done.
    uppy.use(MultipartUpload, {
      getPlan: (id) => this.#uploads.get(id)?.plan ?? undefined,
      signal: (id) => this.#uploads.get(id)?.abort?.signal,
      uploadState: (id, signal) => this.#uploadState(id, signal),
      limit: 4,
    });
    // Never `bundle: true`: each file is a PUT of its own bytes to its own signed URL.
    // A file of one part goes to its signed URL with its headers, read from our plan when
    // XHRUpload sends it: no per-file Uppy state (each change copies Uppy's whole file map).
    // XHRUpload asks for the URL when the file's turn comes, and waits for it: the first
    // files of a batch go out as soon as their own sign answers, not the whole batch's.
    uppy.use(XHRUpload, {
      endpoint: (file) => this.#signedPartUrl(file as UFile),
      onBeforeRequest: (xhr, _retry, files) => {
        const [file] = files;
        const headers = this.#uploads.get(file?.id ?? '')?.plan?.parts[0]?.headers ?? {};
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
      if (sentQuietly(file)) this.#callbacks.progress(summary(file), file.size, file.size);
      void this.#complete(file.id);
    });

    // Uppy changes its state many times per file (progress above all); drawing once per
    // frame is all a person can see, and keeps 200 files from costing 200 redraws each.
    uppy.on('state-update', () => this.#redrawSoon());
    uppy.on('upload-progress', (file, progress) => {
      if (!file) return;
      this.#callbacks.progress(
        summary(file),
        progress.bytesUploaded,
        progress.bytesTotal ?? file.size ?? 0,
      );
    });
    uppy.on('upload-error', (file, error) => {
      if (file) this.#onFailure(file.id, error);
    });
    uppy.on('file-removed', (file) => this.#forget(file.id));
    return uppy;
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

  #restrictions() {
    const { maxFileSize, maxFiles, accept } = this.#settings;
    return {
      maxFileSize: maxFileSize ?? null,
      // Nothing to upload in an empty file; the service would refuse it anyway.
      minFileSize: 1,
      maxNumberOfFiles: maxFiles ?? null,
      allowedFileTypes: accept && accept.length > 0 ? accept : null,
    };
  }

  #currentTarget(): UploadTarget {
    const { endpoint, apiKey, metadata } = this.#settings;
    return { endpoint, apiKey, metadata };
  }

  /** The client for a file's endpoint and key, or why there cannot be one. */
  #clientFor(target: UploadTarget): FilehostApi {
    const key = `${target.endpoint}\n${target.apiKey}`;
    let connection = this.#clients.get(key);
    if (connection === undefined) {
      connection = connect(target.endpoint, target.apiKey);
      this.#clients.set(key, connection);
    }
    if (typeof connection !== 'string') return connection;
    const code = connection === 'secret_key' ? 'invalid_key' : 'missing_auth';
    throw setupFailure(this.#host.texts.errors[connection], code);
  }

  /**
   * Starts files added together in ONE Uppy run when Uppy's `upload()` would start exactly
   * them: it also retries every failed file and starts every file not yet started, so with
   * any such file about, each of ours gets its own run (#start). A run per file costs Uppy
   * a copy of its map of runs on each step of each run: O(n²) over a batch. Only files of
   * one part share a run (no part but the last is under MIN_PART_SIZE): a run's uploaders go
   * one after the other, and a large file must not hold up the small ones.
   */
  #startMany(ids: string[]): void {
    const uppy = this.#uppy;
    if (!uppy) return;
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
      return (this.#uppy?.getFile(id)?.size ?? 0) > MIN_PART_SIZE ? prepared : undefined;
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

  /** Sign step: a new upload is signed; a retried one learns which parts the service holds. */
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
      const client = this.#clientFor(upload.target);
      const signal = abort.signal;
      let plan = upload.plan ?? (await this.#recalledPlan(upload, file.data as File));
      if (plan) {
        const known: UploadPlan = plan;
        plan = await client
          .getUpload(known.uploadId, { signal, uploadToken: known.uploadToken })
          .then((state) => planFromState(state, known.uploadToken))
          .catch((error: unknown) => {
            if (!(error instanceof ApiError && error.code === 'not_found')) throw error;
            // Remembered from before a reload, and expired or deleted since: said so, and
            // started afresh only if the user retries. Cancelled meanwhile: afresh at once.
            upload.plan = null;
            if (!upload.recalled) return undefined;
            upload.recalled = false;
            this.#forgetUpload(upload);
            throw error;
          });
      }
      if (!plan) {
        // A file of a folder carries its path in it (`album/2026/a.jpg`) as `relativePath`.
        const { relativePath, target } = upload;
        const request = {
          name: file.name ?? 'upload',
          size: file.size ?? 0,
          type: file.type || undefined,
          // By default files of one part are checked on the way, and bigger ones only with
          // checksum="all": reading a file to hash it costs about what sending it does
          // (a 256 MiB upload ran at about half the speed here; see the README).
          checksum:
            this.#settings.checksum === 'all' ||
            (this.#settings.checksum !== 'off' && (file.size as number) <= MIN_PART_SIZE),
          metadata: relativePath ? { ...target.metadata, relativePath } : target.metadata,
        };
        // Failures are retried a level up (#onFailure), where the user can see it happen.
        const { signed, together } = await this.#sessionFor(client).sign(request, { signal });
        plan = planFromSign(signed);
        upload.signedTogether = together;
        if (this.#settings.rememberUploads) setTimeout(() => this.#remember(id), REMEMBER_AFTER_MS);
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

  /**
   * Files added together (one drop, pick or paste, or within a moment) are signed in one
   * call and completed in batches as their bytes land (`UploadSession`, shared with the
   * typed client): a page of small files then costs about one request per file instead of
   * three. A batch call that fails as a whole fails each of its files, and each is retried
   * by the usual rules, on its own. (Files dropped together no longer need their first
   * sign to go alone so the rest find the CORS preflight cached: they are one request.
   * Letting it go alone cost 10% on 200 small files: 1.85x to 1.67x of the one-request
   * time, medians of three bench runs each.)
   */
  #sessionFor(client: FilehostApi): UploadSession {
    let session = this.#sessions.get(client);
    if (!session) {
      session = new UploadSession(client);
      this.#sessions.set(client, session);
    }
    return session;
  }

  /** A file's upload as the service holds it now: fresh URLs for its parts. */
  #uploadState(id: string, signal?: AbortSignal): Promise<UploadState> {
    const upload = this.#uploads.get(id);
    const plan = upload?.plan;
    if (!upload || !plan) throw new Error(`No upload plan for ${id}`);
    const client = this.#clientFor(upload.target);
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
      const client = this.#clientFor(upload.target);
      const record = await this.#sessionFor(client).complete({
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
      this.#forgetUpload(upload);
      this.#callbacks.succeeded(summary(current), record);
      this.#maybeAllDone();
    } catch (error) {
      if (abort.signal.aborted) return;
      this.#fail(id, error, 'complete');
    } finally {
      upload.step = null;
    }
  }

  /**
   * A plan from an upload remembered before this page was loaded, if this file is the one
   * it was sending (the same name and size first: only then is the file read to be sure).
   */
  async #recalledPlan(upload: FileUpload, file: File): Promise<UploadPlan | undefined> {
    const { endpoint, apiKey } = upload.target;
    const candidates = this.#remembered.filter(
      (known) =>
        known.endpoint === endpoint &&
        known.apiKey === apiKey &&
        known.name === file.name &&
        known.size === file.size,
    );
    if (candidates.length === 0) return undefined;
    const fingerprint = await fingerprintOf(file);
    const match = candidates.find((known) => known.fingerprint === fingerprint);
    if (!match) return undefined;
    this.#remembered = this.#remembered.filter((known) => known !== match);
    this.#host.requestUpdate();
    upload.fingerprint = fingerprint;
    upload.recalled = true;
    upload.unlock = hold(match.uploadId);
    return {
      uploadId: match.uploadId,
      uploadToken: match.uploadToken ?? null,
      partSize: 0,
      checksum: null,
      parts: [],
    };
  }

  /** Remembers a file's upload across reloads, if it is still on its way. */
  async #remember(id: string): Promise<void> {
    const upload = this.#uploads.get(id);
    const file = this.#uppy?.getFile(id)?.data as File | undefined;
    if (!upload?.plan || upload.record || !file) return;
    upload.fingerprint ??= await fingerprintOf(file);
    upload.unlock ??= hold(upload.plan.uploadId);
    const { endpoint, apiKey } = upload.target;
    await remember({
      endpoint,
      apiKey,
      uploadId: upload.plan.uploadId,
      uploadToken: upload.plan.uploadToken,
      fingerprint: upload.fingerprint,
      name: file.name,
      size: file.size,
      file: file.size <= this.#settings.keepFilesUpTo ? file : null,
    }).catch(() => undefined);
    // Finished or removed while it was written: not to be taken up again.
    if (upload.record || !this.#uploads.has(id)) this.#forgetUpload(upload);
  }

  #forgetUpload(upload: FileUpload): void {
    upload.unlock?.();
    upload.unlock = null;
    const { fingerprint } = upload;
    if (fingerprint) void forget({ ...upload.target, fingerprint }).catch(() => undefined);
  }

  /** Records a failure of our own steps and tells Uppy, which marks the file failed. */
  #fail(id: string, error: unknown, step: UploadStep): void {
    const cause: FailureCause = {
      error: isLocalFailure(error) ? error : fromXhrError(error),
      step,
    };
    const failure = this.#describe(cause);
    const upload = this.#uploads.get(id);
    if (upload) {
      upload.cause = cause;
      upload.failure = failure;
    }
    const file = this.#uppy?.getFile(id);
    if (file)
      this.#uppy?.emit('upload-error', file, { name: 'UploadFailure', message: failure.message });
  }

  /** A failure in the page's words (the only place an `ApiError` becomes text). */
  #describe({ error, step }: FailureCause): UploadFailure {
    if (isLocalFailure(error)) return error.failure;
    return describeFailure(error, step, this.#host.texts, {
      locale: this.#host.locale,
      origin: window.location.origin,
    });
  }

  /** Every failure passes here (ours and XHRUpload's): retry it, or leave it to the user. */
  #onFailure(id: string, error: { name: string; message: string }): void {
    const upload = this.#uploads.get(id);
    // A paused file's failures wait for its resume, which starts it afresh anyway.
    if (!upload || upload.paused) return;
    // Our own steps recorded their cause (#fail); a failed PUT of XHRUpload or of our
    // multipart plugin arrives only here, with its XMLHttpRequest.
    const cause: FailureCause = upload.cause ?? { error: fromXhrError(error), step: 'upload' };
    upload.cause = cause;
    const failure = upload.failure ?? this.#describe(cause);
    upload.failure = failure;
    const delay = isLocalFailure(cause.error)
      ? null
      : fileRetryDelayMs(cause.error, cause.step, upload.attempts, AUTO_RETRIES);
    if (delay !== null) {
      upload.attempts++;
      this.#scheduleRetry(id, upload, delay);
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

  #scheduleRetry(id: string, upload: FileUpload, delayMs: number): void {
    clearRetry(upload);
    const timer = setTimeout(() => {
      upload.retry = null;
      this.#start(id);
    }, delayMs);
    upload.retry = { timer, at: Date.now() + delayMs };
    this.#host.requestUpdate();
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

  /** A file Uppy's restrictions refused: say which rule, in the page's words. */
  #reject(file: File, error: unknown): void {
    const strings = this.#host.texts;
    const locale = this.#host.locale;
    const { maxFileSize, maxFiles, accept } = this.#settings;
    let failure: UploadFailure;
    if (file.size === 0) failure = rejection('empty_body', strings, {});
    else if (maxFileSize !== null && file.size > maxFileSize) {
      failure = rejection('too_large', strings, { limit: formatBytes(maxFileSize, locale) });
    } else if (this.#isDuplicate(error)) failure = rejection('duplicate_file', strings, {});
    else if (maxFiles !== null && this.#uppy && this.#uppy.getFiles().length >= maxFiles) {
      failure = rejection('too_many_files', strings, { max: String(maxFiles) });
    } else {
      failure = rejection('type_not_allowed', strings, { accept: (accept ?? []).join(', ') });
    }
    const id = `rejected-${crypto.randomUUID()}`;
    const view = unsentFileView(id, file, 'rejected', failure);
    this.#rejected.push(view);
    this.#callbacks.failed({ id, name: view.name, size: file.size, type: file.type }, failure);
  }

  /**
   * Uppy refuses a file it already holds before any other rule, naming that file in the
   * error; told apart by Uppy's state, not by its message (the script-tag bundle carries
   * none of Uppy's texts).
   */
  #isDuplicate(error: unknown): boolean {
    const id = error instanceof RestrictionError ? error.file?.id : undefined;
    return id !== undefined && !!this.#uppy?.checkIfFileAlreadyExists(id);
  }
}

/** Where a file sits in a dropped folder (Uppy's reader) or a picked one (the browser's). */
function relativePathOf(file: File): string | null {
  const dropped = (file as File & { relativePath?: string | null }).relativePath;
  return dropped || file.webkitRelativePath || null;
}

function quiet(): void {}

/** Whether a file goes without upload progress events (see QUIET_UPLOAD_BYTES). */
function sentQuietly(file: UFile): file is UFile & { size: number } {
  return file.size !== null && file.size <= QUIET_UPLOAD_BYTES;
}

function summary(file: UFile): FileSummary {
  return {
    id: file.id,
    name: cleanName(file.name ?? '') || 'upload',
    size: file.size ?? 0,
    type: file.type ?? '',
  };
}

function clearRetry(upload: FileUpload): void {
  if (upload.retry) clearTimeout(upload.retry.timer);
  upload.retry = null;
}

/** Part PUTs worth repeating at once: a lost connection, 408, 429, 5xx. */
function shouldRetryXhr(xhr: XMLHttpRequest): boolean {
  return isTransientStatus(xhr.status);
}

function setupFailure(
  text: FileUploaderStrings['errors'][keyof FileUploaderStrings['errors']],
  code: 'missing_auth' | 'invalid_key',
): LocalFailure {
  return new LocalFailure(localFailure(code, 'sign', text(failureContext({ code }))));
}

function isLocalFailure(error: unknown): error is LocalFailure {
  return error instanceof LocalFailure;
}
