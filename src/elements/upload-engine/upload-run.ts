import { MIN_PART_SIZE } from '../../api/limits.js';
import type { FileRecord, UploadState } from '../../api/types.js';
import { blobDigestHeader } from '../../client/part-digest.js';
import type { UploadPlan, UploadStep } from '../../client/upload-plan.js';
import { runSequence } from '../../client/upload-sequence.js';
import { loadServiceWords } from '../shared/failure-text.js';
import type { Connections } from './connections.js';
import type { UploadFailure } from './failure.js';
import type { FailureCause } from './failure-cause.js';
import {
  autoRetryDelayMs,
  causeOf,
  clearRetry,
  describeCause,
  scheduleRetry,
} from './file-retries.js';
import { type FileUpload, summary } from './file-state.js';
import type { FileSummary, UploadCallbacks, UploaderSettings, UploadHost } from './file-view.js';
import { loadPartSender } from './multipart-upload.js';
import type { RememberedUploads } from './remembered-uploads.js';
import { signJob } from './sign-step.js';
import { forgetUpload, loadMemory, REMEMBER_AFTER_MS } from './upload-memory.js';
import { type EngineUppy, QUIET_UPLOAD_BYTES, type UFile, type UppyHooks } from './uppy-adapter.js';

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
 * Why an attempt's send step stopped when its failure was already heard (Uppy's uploaders
 * reported it): the attempt ends without reporting it again.
 */
const HEARD = new Error('heard');

/** What the runs need of the engine around them besides its host, callbacks and connections. */
export interface RunContext {
  /** Uploads remembered before this page was loaded (null: none, or not looked at yet). */
  memory(): RememberedUploads | null;
  /** A file went up: it counts against its token's limits (`UploadEngine`). */
  counted(upload: FileUpload, bytes: number): void;
}

/**
 * The run lifecycle of the engine's files: starting them (together in one Uppy run, or each
 * alone), each attempt's steps, pausing, removing, failures and their retries, and "all
 * done". An attempt goes by `runSequence`, the typed client's order of steps (sign, send,
 * complete), with Uppy's uploaders as its send step: the sequence hands the plan over
 * (`#send`) and waits until Uppy says every byte is in (`sent`) or fails. Uppy's file state
 * is the truth the element renders from; a file counts as uploaded only once complete has
 * answered `ready`.
 *
 * Files added together share one Uppy run (see `startMany`), a retried one runs alone;
 * either way each file's PUTs, completion and failure are its own, so a large file never
 * holds up a small one and one file's failure never touches another's.
 *
 * The runs are what Uppy's steps and events drive (`UppyHooks`, see `uppy-adapter.ts`).
 */
export class UploadRuns implements UppyHooks {
  /** Our state of each file Uppy holds, by Uppy's file id. */
  readonly uploads = new Map<string, FileUpload>();
  uppy: EngineUppy | null = null;
  /** The element's settings as they are now (`UploadEngine.configure`). */
  settings: UploaderSettings;
  readonly #host: UploadHost;
  readonly callbacks: UploadCallbacks;
  readonly #connections: Connections;
  readonly #context: RunContext;
  #redrawPending = false;

  constructor(
    host: UploadHost,
    settings: UploaderSettings,
    callbacks: UploadCallbacks,
    connections: Connections,
    context: RunContext,
  ) {
    this.#host = host;
    this.settings = settings;
    this.callbacks = callbacks;
    this.#connections = connections;
    this.#context = context;
  }

  /**
   * Starts files added together in ONE Uppy run when Uppy's `upload()` would start exactly
   * them: it also retries every failed file and starts every file not yet started, so with
   * any such file about, each of ours gets its own run (`start`). A run per file costs Uppy
   * a copy of its map of runs on each step of each run: O(n²) over a batch. Only files of
   * one part share a run (no part but the last is under MIN_PART_SIZE): a run's uploaders go
   * one after the other, and a large file must not hold up the small ones.
   */
  startMany(ids: string[]): void {
    const uppy = this.uppy;
    if (!uppy || ids.length === 0) return;
    const batch = new Set(ids.filter((id) => (uppy.getFile(id)?.size ?? 0) <= MIN_PART_SIZE));
    for (const id of ids) if (!batch.has(id)) this.start(id);
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
      for (const id of batch) this.start(id);
      return;
    }
    for (const id of batch) this.begin(id);
    void uppy.upload().catch(() => undefined);
  }

  /**
   * Starts one file's own Uppy run. `retryUpload` is Uppy's way to run the upload steps for
   * exactly one file (and it clears an earlier error).
   */
  start(id: string): void {
    if (this.begin(id)) void this.uppy?.retryUpload(id).catch(() => undefined);
  }

  /** Our side of starting a file; false if there is no such file. */
  begin(id: string): boolean {
    const file = this.uppy?.getFile(id);
    const upload = this.uploads.get(id);
    if (!file || !upload) return false;
    clearRetry(upload);
    upload.failure = null;
    upload.cause = null;
    // One controller per attempt: a pause or a removal stops whichever step it is in.
    upload.abort?.abort();
    upload.abort = new AbortController();
    upload.rate = null;
    // A file not yet signed goes where the element points now; a signed one stays put. (The
    // settings as a target: `configure` replaces them, never changes them.)
    if (!upload.plan) upload.target = this.settings;
    if (upload.outcome === null) this.callbacks.started(summary(file));
    upload.outcome = 'running';
    this.#host.requestUpdate();
    return true;
  }

  /**
   * Pauses a file on its way: its requests stop (the parts already sent stay with the
   * service) until `resume`. A file of one part already sending finishes its bytes and
   * waits before it is completed; a file being completed is not stopped.
   */
  pause(id: string): void {
    const upload = this.uploads.get(id);
    if (upload?.outcome !== 'running' || upload.step === 'finishing') return;
    upload.paused = true;
    clearRetry(upload);
    upload.abort?.abort();
    // An error in Uppy's eyes: its uploaders skip the file (a paused multi-part file must not
    // pass on to XHRUpload), and `retryUpload` clears it on resume. Shown as paused.
    this.uppy?.setFileState(id, { error: 'paused' });
    this.#host.requestUpdate();
  }

  /**
   * Carries on with a paused file, sending only what the service does not hold yet. One whose
   * batch request is still on its way waits for its answer (its bytes may be in already):
   * done if they are, else it starts again alone.
   */
  resume(id: string): void {
    const upload = this.uploads.get(id);
    if (!upload?.paused) return;
    upload.paused = false;
    if (upload.batch) {
      // (Then still that file, its bytes not in, not paused again, nor started by another resume.)
      void upload.batch.then(() => {
        if (
          this.uploads.get(id) === upload &&
          !upload.record &&
          !upload.paused &&
          upload.abort?.signal.aborted
        )
          this.start(id);
      });
    } else this.start(id);
  }

  retry(id: string): void {
    const upload = this.uploads.get(id);
    if (upload) upload.attempts = 0;
    this.start(id);
  }

  /** Stops files' attempts and forgets their remembered uploads (they are being removed). */
  stop(ids: Iterable<string>): void {
    for (const id of ids) {
      const upload = this.uploads.get(id);
      if (!upload) continue;
      clearRetry(upload);
      upload.abort?.abort();
      forgetUpload(upload);
    }
  }

  /**
   * Uppy's pre-processing step of a run: starts each file's attempt. Only files that may
   * have several parts hold the run until they are signed (the multi-part uploader needs
   * their plans when its step starts); a file of one part is waited for by XHRUpload when
   * its turn comes (`partUrl`), so the first of 200 small files is sent while the others
   * are signed.
   */
  prepare = async (fileIDs: string[]): Promise<void> => {
    const held = fileIDs.map((id) => {
      void this.#attempt(id);
      if ((this.uppy?.getFile(id)?.size ?? 0) <= MIN_PART_SIZE) return undefined;
      // Its part sender is fetched while it is signed (once: the module is kept).
      loadPartSender().catch(() => undefined);
      return this.uploads.get(id)?.prepared;
    });
    await Promise.all(held);
  };

  /**
   * The URL XHRUpload sends a file of one part to, once its attempt reached the send step.
   * A file that failed, was paused or removed, or had every byte in already is not sent:
   * XHRUpload passes over an `AbortError` quietly (the failure is the attempt's to report).
   */
  async partUrl(file: UFile): Promise<string> {
    const upload = this.uploads.get(file.id);
    const attempt = upload?.abort;
    await upload?.prepared;
    const current = this.uppy?.getFile(file.id);
    const parts = upload?.plan?.parts;
    // A multi-part file is its uploader's, also in an older run that reaches XHRUpload after
    // the file was resumed (a paused file has an error too; a retry is another attempt).
    const part = parts?.length === 1 ? parts[0] : undefined;
    if (
      !upload ||
      !part ||
      !upload.sent ||
      !current ||
      current.error ||
      current.progress.uploadComplete ||
      upload.abort !== attempt
    ) {
      throw new DOMException('', 'AbortError');
    }
    return part.url;
  }

  /**
   * One attempt at a file, begun as Uppy pre-processes it: the upload sequence's steps in
   * their order (`runSequence`), Uppy's uploaders sending the bytes between them. Our own
   * steps are shown from `step`: no Uppy progress events for them, since each one copies
   * Uppy's whole file map (O(n²) over a batch).
   */
  async #attempt(id: string): Promise<void> {
    const file = this.uppy?.getFile(id);
    const upload = this.uploads.get(id);
    const abort = upload?.abort;
    if (!file || !upload || !abort) return;
    const { signal } = abort;
    let sendStarted = () => {};
    // Resolved once the bytes may go (or the attempt ended without sending): never rejects.
    upload.prepared = new Promise((resolve) => {
      sendStarted = resolve;
    });
    upload.step = 'preparing';
    // The step a failure is told of: sign until the bytes are in (a failed send is Uppy's to
    // report), then complete.
    let step: UploadStep = 'sign';
    try {
      const { checksum, rememberUploads } = this.settings;
      const [sequence, job] = await Promise.all([
        this.#connections.sequenceFor(upload.target),
        signJob(upload, file.data as File, this.#context.memory(), checksum, signal),
      ]);
      const record = await runSequence(
        sequence,
        {
          ...job,
          signed: (_plan, together) => {
            upload.signedTogether = together;
            // A file small enough for one request has nothing to resume: never remembered,
            // so one slowed past the second fetches no memory of uploads either.
            if (rememberUploads && (file.size ?? 0) > QUIET_UPLOAD_BYTES) {
              setTimeout(() => this.#remember(id, upload), REMEMBER_AFTER_MS);
            }
          },
        },
        async (plan) => {
          await this.#send(id, upload, plan, signal, sendStarted);
          step = 'complete';
          upload.step = 'finishing';
        },
      );
      const current = this.uppy?.getFile(id);
      // Removed while its complete was on its way (maybe added again since, under the same
      // id): that answer is not the row's now.
      if (current && !signal.aborted) this.succeeded(current, upload, record);
    } catch (error) {
      // Paused or removed: Uppy's uploaders skip it (it has an error, or is gone).
      if (signal.aborted || error === HEARD) return;
      this.fail(id, error, step);
    } finally {
      // (A stopped attempt may end after the next one began: that one's state stays.)
      if (upload.abort === abort) {
        upload.step = null;
        upload.sent = null;
      }
      sendStarted();
    }
  }

  /**
   * The send step of an attempt: Uppy's uploaders send the plan's parts (XHRUpload one,
   * the multi-part uploader several); done when Uppy says every byte is in (`sent`).
   */
  async #send(
    id: string,
    upload: FileUpload,
    plan: UploadPlan,
    signal: AbortSignal,
    sendStarted: () => void,
  ): Promise<void> {
    // Kept even if paused meanwhile: the resume goes on with this upload.
    upload.plan = plan;
    signal.throwIfAborted();
    const file = this.uppy?.getFile(id);
    if (!file) throw HEARD;
    const bytesIn = new Promise<void>((resolve, reject) => {
      upload.sent = { resolve, reject };
      signal.addEventListener('abort', () => reject(signal.reason));
    });
    const [only] = plan.parts;
    if (plan.parts.every((part) => part.etag !== null)) {
      // Every byte is already there (a retry after complete failed): Uppy marks it sent.
      this.uppy?.emit('upload-success', file, { status: 200, body: {}, uploadURL: undefined });
    } else if (plan.parts.length === 1 && only) {
      // The whole file is the one part: its digest goes with it (as each part's does, `multipart-sender.ts`).
      only.headers = {
        ...only.headers,
        ...(await blobDigestHeader(plan.checksum, file.data as Blob)),
      };
    }
    // Signed: from here the file is Uppy's to show (uploading, once its bytes leave).
    upload.step = null;
    sendStarted();
    await bytesIn;
    // A single part's ETag came back in the PUT answer; several parts' in the plan.
    const single = (this.uppy?.getFile(id)?.response?.body as { etag?: unknown } | undefined)?.etag;
    if (only && only.etag === null && typeof single === 'string') only.etag = single;
  }

  /**
   * Every byte of a file is in (Uppy's `upload-success`): its attempt goes on to complete. A
   * file paused while its one part was on its way has Uppy's error (see `pause`): it is
   * completed when resumed, once the service says it holds the part.
   */
  sent(file: UFile): void {
    if (!file.error) this.uploads.get(file.id)?.sent?.resolve();
  }

  /** A file's upload as the service holds it now: fresh URLs for its parts. */
  async uploadState(id: string, signal?: AbortSignal): Promise<UploadState> {
    const upload = this.uploads.get(id);
    const plan = upload?.plan;
    if (!upload || !plan) throw new Error(`No upload plan for ${id}`);
    const client = await this.#connections.clientFor(upload.target);
    return client.getUpload(plan.uploadId, { signal, uploadToken: plan.uploadToken });
  }

  /** A file is uploaded: complete answered `ready` (after its attempt, or in a batch upload). */
  succeeded(file: UFile, upload: FileUpload, record: FileRecord): void {
    // The record is ours (`upload.record`), not Uppy's: every Uppy state change copies its
    // whole file map.
    upload.record = record;
    upload.outcome = 'succeeded';
    this.#context.counted(upload, record.size);
    forgetUpload(upload);
    this.callbacks.succeeded(summary(file), record);
    this.#maybeAllDone();
  }

  /**
   * Remembers a file's upload across reloads, if it is still on its way and still the
   * file's: one removed meanwhile and added again (under the same id) is another upload.
   */
  #remember(id: string, upload: FileUpload): void {
    const file = this.uppy?.getFile(id)?.data as File | undefined;
    const current = () => this.uploads.get(id) === upload;
    if (!current() || !file) return;
    const { keepFilesUpTo } = this.settings;
    // Not fetched (offline, not deployed): this upload is not remembered.
    void loadMemory()
      .then((memory) => memory.rememberUpload(upload, file, keepFilesUpTo, current))
      .catch(() => undefined);
  }

  /**
   * Records a failure of our own steps and tells Uppy, which marks the file failed. Its
   * words are the row's only once `failed` has them (the refusals' words may be on their
   * way): until then the row is not shown failed, in words the page then never hears.
   */
  fail(id: string, error: unknown, step: UploadStep): void {
    const cause = causeOf(error, step);
    const upload = this.uploads.get(id);
    if (upload) upload.cause = cause;
    const file = this.uppy?.getFile(id);
    if (file) {
      const { message } = describeCause(cause, this.#host);
      this.uppy?.emit('upload-error', file, { name: 'UploadFailure', message });
    }
  }

  /** Every failure passes here (ours and XHRUpload's): retry it, or leave it to the user. */
  failed(id: string, error: { name: string; message: string }): void {
    const upload = this.uploads.get(id);
    // A failed PUT ends its attempt's send step; the attempt reports nothing more.
    upload?.sent?.reject(HEARD);
    // A paused file's failures wait for its resume, which starts it afresh anyway.
    if (!upload || upload.paused) return;
    // Our own steps recorded their cause (`fail`); a failed PUT of XHRUpload or of our
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
        // Paused (or removed, or started again) while they came: as any paused file's failure.
        if (this.uploads.get(id) === upload && upload.abort === attempt && !upload.paused) {
          this.#failed(id, upload, cause);
        }
      });
      return;
    }
    this.#failed(id, upload, cause);
  }

  /** A failure, worded: retried by itself, or left to the user. */
  #failed(id: string, upload: FileUpload, cause: FailureCause): void {
    const host = this.#host;
    // Worded now (our steps worded it before the words may have been in).
    const failure = describeCause(cause, host);
    upload.failure = failure;
    const delay = autoRetryDelayMs(upload);
    if (delay !== null) {
      upload.attempts++;
      scheduleRetry(upload, delay, () => this.start(id));
      host.requestUpdate();
      return;
    }
    const file = this.uppy?.getFile(id);
    upload.outcome = 'failed';
    // A failure is drawn at once; a finished file waits for the next throttled redraw (at
    // most REDRAW_INTERVAL_MS), or 200 small files finishing one by one would redraw 200
    // rows 200 times.
    host.requestUpdate();
    if (file) this.callbacks.failed(summary(file), failure);
    this.#maybeAllDone();
  }

  /** Back online: files that failed for want of a connection carry on where they stopped. */
  online(): void {
    for (const [id, upload] of this.uploads) {
      if (
        !upload.paused &&
        upload.failure?.code === 'network_error' &&
        this.uppy?.getFile(id)?.error
      ) {
        this.retry(id);
      }
    }
  }

  /** When no file that ran since the last "all done" is still running, the page hears it. */
  #maybeAllDone(): void {
    // Asked as each file finishes: a plain loop that stops at the first running file, not
    // a copy of every upload each time (0.26 s of 2,000 small files' main thread).
    for (const upload of this.uploads.values()) if (upload.outcome === 'running') return;
    const ran = [...this.uploads].filter(([, upload]) => upload.outcome !== null);
    if (ran.length === 0) return;
    const successful: FileRecord[] = [];
    const failed: { file: FileSummary; failure: UploadFailure }[] = [];
    for (const [id, upload] of ran) {
      const file = this.uppy?.getFile(id);
      if (upload.outcome === 'succeeded' && upload.record) successful.push(upload.record);
      if (upload.outcome === 'failed' && upload.failure && file) {
        failed.push({ file: summary(file), failure: upload.failure });
      }
      upload.outcome = null;
    }
    // The end of a batch is drawn at once: `uploading` and the form's validity must be
    // current when the page hears `upload-complete`.
    this.#host.requestUpdate();
    this.callbacks.allDone({ successful, failed });
  }

  /** Uppy's upload progress of a file, told to the page. */
  progress(file: UFile, bytesUploaded: number, bytesTotal: number): void {
    this.callbacks.progress(summary(file), bytesUploaded, bytesTotal);
  }

  /** Uppy removed a file: our record of it goes too. */
  removed(id: string): void {
    const upload = this.uploads.get(id);
    if (!upload) return;
    this.uploads.delete(id);
    upload.abort?.abort();
    clearRetry(upload);
    if (upload.thumbnail) URL.revokeObjectURL(upload.thumbnail);
    if (upload.outcome !== null) this.#maybeAllDone();
    this.#host.requestUpdate();
  }

  /** Uppy's state changed (many times per file): redrawn soon, at most so often. */
  changed(): void {
    if (this.#redrawPending) return;
    this.#redrawPending = true;
    setTimeout(
      () => {
        requestAnimationFrame(() => {
          this.#redrawPending = false;
          this.#host.requestUpdate();
        });
      },
      this.uploads.size > MANY_FILES ? MANY_FILES_REDRAW_INTERVAL_MS : REDRAW_INTERVAL_MS,
    );
  }

  /** Everything stops: the element left the page for good. */
  destroy(): void {
    for (const upload of this.uploads.values()) {
      clearRetry(upload);
      upload.abort?.abort();
      upload.unlock?.();
      if (upload.thumbnail) URL.revokeObjectURL(upload.thumbnail);
    }
    this.uploads.clear();
    this.uppy?.destroy();
    this.uppy = null;
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
