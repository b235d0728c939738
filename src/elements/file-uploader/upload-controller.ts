import type { ReactiveController } from 'lit';
import { loadChunk, MissingChunkError } from '../../client/missing-chunk.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import { failureContext, localFailure } from '../upload-engine/failure.js';
import {
  type FileView,
  type UploadCallbacks,
  type UploaderSettings,
  type UploadHost,
  unsentFileView,
} from '../upload-engine/file-view.js';
import type { UploadEngine } from '../upload-engine/upload-engine.js';
import type { TakenDrop } from './dropped.js';

type EngineModule = typeof import('../upload-engine/upload-engine.js');

/** The engine's module: fetched once per page, whichever element asks first. */
let engineModule: Promise<EngineModule> | null = null;
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= loadChunk(() => import('../upload-engine/upload-engine.js')).catch(
    (error: unknown) => {
      // A failed import is not remembered: the next attempt fetches again (offline: once
      // back; not deployed: once it is).
      engineModule = null;
      throw error;
    },
  );
  return engineModule;
}

/**
 * `<file-uploader>`'s link to its upload engine (Uppy and the multipart code, in
 * `upload-engine.ts`), which is not part of the element's first load: it is fetched when
 * the page is idle after the element connects, or at once when files arrive first. Files
 * added before it is in are listed as waiting and handed over the moment it is; every
 * other call goes straight through.
 */
export class UploadController implements ReactiveController {
  readonly #host: UploadHost;
  readonly #callbacks: UploadCallbacks;
  #settings: UploaderSettings;
  // Undefined until set (falsy), rather than initialised: bytes the first load has not got.
  #engine?: UploadEngine;
  #loading?: boolean;
  #connected?: boolean;
  /**
   * Files not yet with the engine: it is still on its way, or they are images being made
   * smaller (`shrinking`), each handed over as soon as it is ready.
   */
  #waiting: { id: string; file: File; failed: WaitingFailure | null; shrinking: boolean }[] = [];
  /**
   * Images waiting for Edit or Upload (`image-editor`), status `waiting`: listed by the
   * element's `files` and drawn by their on-use module, which owns them; cleared and removed
   * here as any file is (a form reset, `removeFile`, a new choice without `multiple`).
   */
  held: FileView[] = [];

  constructor(host: UploadHost, settings: UploaderSettings, callbacks: UploadCallbacks) {
    this.#host = host;
    this.#settings = settings;
    this.#callbacks = callbacks;
    host.addController(this);
  }

  hostConnected(): void {
    this.#connected = true;
    if (this.#engine) this.#engine.connect();
    else whenIdle(() => void this.#load());
    window.addEventListener('online', this.#onOnline);
  }

  hostDisconnected(): void {
    this.#connected = false;
    window.removeEventListener('online', this.#onOnline);
    this.#engine?.disconnect();
  }

  configure(settings: UploaderSettings): void {
    this.#settings = settings;
    this.#engine?.configure(settings);
  }

  get files(): FileView[] {
    const waiting = this.#waiting.map(({ id, file, failed }) =>
      unsentFileView(id, file, failed ? 'failed' : 'preparing', failed && this.#failure(failed)),
    );
    return [...(this.#engine?.files ?? []), ...waiting];
  }

  /** The drop zone's hint with the upload token's limits, once the engine knows them. */
  hint(t: FileUploaderStrings, locale: string): string | null | undefined {
    return this.#engine?.hint(t, locale);
  }

  /** `files`: never empty (the element and the editor's loader hand over none otherwise). */
  addFiles(files: File[]): void {
    const image = this.#settings.image;
    if (this.#engine && !image) {
      this.#engine.addFiles(files);
      return;
    }
    const entries = files.map((file) => ({
      id: `waiting-${crypto.randomUUID()}`,
      file,
      failed: null,
      shrinking: !!image,
    }));
    this.#waiting.push(...entries);
    this.#host.requestUpdate();
    if (image) {
      // Fetched only by pages that ask for smaller images.
      const done = (index: number, file: File) => {
        const entry = entries[index];
        if (!entry) return;
        entry.file = file;
        entry.shrinking = false;
        this.#handOver();
      };
      void loadChunk(() => import('../shared/image-shrink.js'))
        .then((shrink) => shrink.shrinkEach(files, image, done))
        // Not fetched (offline): the images go as they are, or wait with the engine.
        .catch(() => {
          for (const [index, file] of files.entries()) done(index, file);
        });
    }
    void this.#load();
  }

  /**
   * The files of a drop, with every folder in it read (each file with its `relativePath`).
   * The folder reader is fetched only when a folder is dropped; if it cannot be, the files
   * dropped as such are all there is.
   */
  readDrop(dropped: TakenDrop): Promise<File[]> {
    const asDropped = async () => [...dropped.files];
    if (!dropped.entries.some((entry) => entry?.isDirectory)) return asDropped();
    return loadChunk(() => import('./folder-reader.js'))
      .then((reader) => reader.readDroppedFiles(dropped))
      .catch(asDropped);
  }

  uploadAll(): void {
    this.#engine?.uploadAll();
  }

  retry(id: string): void {
    if (this.#engine) this.#engine.retry(id);
    else void this.#load();
  }

  forget(): void {
    void this.#engine?.forgetAll();
  }

  pauseFile(id: string): void {
    this.#engine?.pauseFile(id);
  }

  resumeFile(id: string): void {
    this.#engine?.resumeFile(id);
  }

  remove(id: string): void {
    this.#waiting = this.#waiting.filter((entry) => entry.id !== id);
    this.held = this.held.filter((entry) => entry.id !== id);
    this.#engine?.remove(id);
    this.#host.requestUpdate();
  }

  cancelAll(): void {
    this.#waiting = [];
    this.#engine?.cancelAll();
    this.#host.requestUpdate();
  }

  clear(): void {
    this.#waiting = [];
    this.held = [];
    this.#engine?.clear();
    this.#host.requestUpdate();
  }

  async #load(): Promise<void> {
    if (this.#engine || this.#loading) return;
    this.#loading = true;
    let module: EngineModule;
    try {
      module = await loadEngineModule();
    } catch (error) {
      // Offline: the waiting files say so, and the next file, a retry or the browser coming
      // back online tries again. Not deployed beside filehost.js: they say that instead (a
      // lost connection is waited out, this is not). Either way each fails for the page too,
      // and the run ends: nothing is uploading any more.
      const code = error instanceof MissingChunkError ? 'script_missing' : 'network_error';
      const failed = this.#waiting.map((entry) => {
        entry.failed = code;
        const { name, size, type } = entry.file;
        const file = { id: entry.id, name, size, type };
        const failure = this.#failure(code);
        this.#callbacks.failed(file, failure);
        return { file, failure };
      });
      if (failed[0]) this.#callbacks.allDone({ successful: [], failed });
      this.#host.requestUpdate();
      return;
    } finally {
      this.#loading = false;
    }
    const engine = new module.UploadEngine(this.#host, this.#settings, this.#callbacks);
    this.#engine = engine;
    if (this.#connected) engine.connect();
    this.#handOver();
  }

  /** Gives the engine every waiting file that is ready for it. */
  #handOver(): void {
    const engine = this.#engine;
    if (!engine) return;
    const ready = this.#waiting.filter((entry) => !entry.shrinking);
    this.#waiting = this.#waiting.filter((entry) => entry.shrinking);
    if (ready.length > 0) engine.addFiles(ready.map((entry) => entry.file));
    this.#host.requestUpdate();
  }

  #failure(code: WaitingFailure) {
    return localFailure(code, 'sign', this.#host.texts.errors[code](failureContext({ code })));
  }

  /** Back online: files that failed for want of a connection carry on (or the engine loads). */
  #onOnline = (): void => {
    if (this.#engine) this.#engine.online();
    else if (this.#waiting.length > 0) void this.#load();
  };
}

/** Why a file waiting for the engine failed: offline, or the engine's file is not deployed. */
type WaitingFailure = 'network_error' | 'script_missing';

/** Runs `task` when the browser has nothing better to do (soon, where it cannot tell). */
function whenIdle(task: () => void): void {
  const idle = (globalThis as { requestIdleCallback?: (run: () => void) => number })
    .requestIdleCallback;
  if (idle) idle(task);
  else setTimeout(task, 200);
}
