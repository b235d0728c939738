import { loadChunk } from '../../client/missing-chunk.js';
import type { BatchItem, BatchOutcome } from './batch-upload.js';
import { type Connections, signRequestFor } from './connections.js';
import { summary } from './file-state.js';
import type { UploadRuns } from './upload-run.js';
import { QUIET_UPLOAD_BYTES, type UFile } from './uppy-adapter.js';

/** How long a small file waits for others added after it to go in the same batch upload. */
const GATHER_MS = 15;

/**
 * Small files started together (two or more of at most QUIET_UPLOAD_BYTES, never signed,
 * added at once or within GATHER_MS of each other) go by the batch upload
 * (`batch-upload.ts`, a chunk of its own), outside Uppy's runs: their bytes in a few
 * requests, with no Uppy state change per file. One that came alone goes by the usual steps
 * after that moment. A file that fails in a batch is retried alone, by those steps.
 */
export class SmallBatches {
  readonly #runs: UploadRuns;
  readonly #connections: Connections;
  readonly #gathered: string[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(runs: UploadRuns, connections: Connections) {
    this.#runs = runs;
    this.#connections = connections;
  }

  /** Keeps the small files among these for a batch; answers the ids left to the usual steps now. */
  gather(ids: string[]): string[] {
    const runs = this.#runs;
    const small = new Set(
      ids.filter((id) => {
        const size = runs.uppy?.getFile(id)?.size ?? 0;
        return size > 0 && size <= QUIET_UPLOAD_BYTES && !runs.uploads.get(id)?.plan;
      }),
    );
    if (small.size === 0) return ids;
    this.#gathered.push(...small);
    // Files added one by one within a moment go together too (as the batch sign's window).
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      const together = this.#gathered.splice(0).filter((id) => runs.uppy?.getFile(id));
      if (together.length >= 2) this.#send(together);
      else runs.startMany(together);
    }, GATHER_MS);
    return ids.filter((id) => !small.has(id));
  }

  #send(small: string[]): void {
    const runs = this.#runs;
    const uppy = runs.uppy;
    if (!uppy) return;
    const { checksum } = runs.settings;
    const items: BatchItem[] = [];
    const started: Record<string, { progress: UFile['progress'] }> = {};
    for (const id of small) {
      const upload = runs.uploads.get(id);
      const file = uppy.getFile(id);
      if (!upload || !file || !runs.begin(id)) continue;
      upload.step = 'preparing';
      items.push({
        id,
        body: file.data as Blob,
        upload,
        entry: signRequestFor(file, upload, 'off'),
        checked: checksum !== 'off',
      });
      // Started in Uppy's eyes, so that none of its runs takes it up.
      started[id] = { progress: { ...file.progress, uploadStarted: Date.now(), bytesUploaded: 0 } };
    }
    // One change of Uppy's state for all of them: each change copies its whole map of files.
    uppy.patchFilesState(started);
    const current = (item: BatchItem) =>
      runs.uploads.get(item.id) === item.upload && item.upload.outcome === 'running';
    const outcome: BatchOutcome = {
      sending: (sent) => {
        for (const item of sent) item.upload.step = null;
        runs.changed();
      },
      succeeded: (item, record) => {
        const file = uppy.getFile(item.id);
        if (!current(item) || !file) return;
        // Uploaded from here on, also for whoever reads the files as the page hears progress.
        item.upload.record = record;
        // Paused while its request was on its way (resumed or not): its bytes are in all the same.
        item.upload.paused = false;
        if (file.error) uppy.setFileState(item.id, { error: null });
        runs.callbacks.progress(summary(file), record.size, record.size);
        runs.succeeded(file, item.upload, record);
        runs.changed();
      },
      failed: (item, error) => {
        if (!current(item) || item.upload.abort?.signal.aborted) return;
        runs.fail(item.id, error, 'upload');
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

  /** The element left the page: nothing gathered is sent. */
  destroy(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#gathered.length = 0;
  }
}
