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
    const heard = answers(items);
    const current = (item: BatchItem) =>
      runs.uploads.get(item.id) === item.upload && item.upload.outcome === 'running';
    const outcome: BatchOutcome = {
      sending: (sent) => {
        for (const item of sent) item.upload.step = null;
        runs.changed();
      },
      succeeded: (item, record) => {
        const file = uppy.getFile(item.id);
        if (current(item) && file) {
          // Uploaded from here on, also for whoever reads the files as the page hears progress.
          item.upload.record = record;
          // Paused while its request was on its way: its bytes are in all the same.
          if (item.upload.paused) {
            item.upload.paused = false;
            uppy.setFileState(item.id, { error: null });
          }
          runs.callbacks.progress(summary(file), record.size, record.size);
          runs.succeeded(file, item.upload, record);
          runs.changed();
        }
        heard(item);
      },
      failed: (item, error) => {
        if (current(item) && !item.upload.abort?.signal.aborted)
          runs.fail(item.id, error, 'upload');
        heard(item);
      },
    };
    // Not fetched (offline, not deployed): each file fails as its first request would, and
    // is retried alone by the usual steps.
    loadChunk(() => import('./batch-upload.js'))
      .then(
        (batch) => batch.sendInBatches(items, this.#connections, outcome),
        (error: unknown) => {
          for (const item of items) outcome.failed(item, error);
        },
      )
      // Left out of every request (stopped before its request left): nothing more to hear.
      .finally(() => {
        for (const item of items) heard(item);
      });
  }

  /** The element left the page: nothing gathered is sent. */
  destroy(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#gathered.length = 0;
  }
}

/**
 * Marks each file's batch request as on its way (`FileUpload.batch`, what a resume waits
 * for); the function answered says one file's answer was heard (once is enough).
 */
function answers(items: BatchItem[]): (item: BatchItem) => void {
  const waiting = new Map<BatchItem, { settled: Promise<void>; resolve: () => void }>();
  for (const item of items) {
    let resolve = () => {};
    const settled = new Promise<void>((done) => {
      resolve = done;
    });
    waiting.set(item, { settled, resolve });
    item.upload.batch = settled;
  }
  return (item) => {
    const entry = waiting.get(item);
    if (!entry) return;
    waiting.delete(item);
    if (item.upload.batch === entry.settled) item.upload.batch = null;
    entry.resolve();
  };
}
