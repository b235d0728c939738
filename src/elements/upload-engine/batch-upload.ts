/**
 * The batch upload of small files added together: a chunk of its own, loaded by the engine
 * (`SmallBatches`) the first time two or more small files arrive at once.
 */
import { MAX_BATCH } from '../../api/limits.js';
import type { FileRecord, UploadBatchEntry } from '../../api/types.js';
import { ApiError } from '../../client/api-error.js';
import { blobDigest } from '../../client/part-digest.js';
import type { Connections } from './connections.js';
import type { FileUpload, UploadTarget } from './file-state.js';

/**
 * Requests under way at once: the browser's six connections to one host, so that the
 * service works on as many files at a time as it does for six one-request uploads.
 */
const REQUESTS_AT_ONCE = 6;
/** A request's files: spread over the requests at once, at least this many each. */
const MIN_FILES_PER_REQUEST = 8;

/** One file to send: its id in the engine, its bytes, its upload and what it is. */
export interface BatchItem {
  id: string;
  body: Blob;
  upload: FileUpload;
  entry: UploadBatchEntry;
  /** Sent with its SHA-256, so that bytes damaged on the way are refused, not stored. */
  checked: boolean;
}

/** What becomes of each file, told to the engine. */
export interface BatchOutcome {
  /** Its request is on its way (a file stopped before this is left out of it). */
  sending(items: BatchItem[]): void;
  succeeded(item: BatchItem, record: FileRecord): void;
  failed(item: BatchItem, error: unknown): void;
}

/**
 * Sends small files by the batch upload (`POST /v1/upload/batch`): their bytes in a few
 * requests instead of a sign, a PUT and a complete each; a few requests at once, each file's result its
 * own: a file the service refused fails alone, and a request that fails as a whole (the
 * network, a refused key) fails each of its files, which the engine then retries one by
 * one by the usual steps. A file whose attempt was stopped (paused, removed) before its
 * request left is not sent; one stopped after has its result dropped by the engine.
 */
export async function sendInBatches(
  items: BatchItem[],
  connections: Connections,
  told: BatchOutcome,
): Promise<void> {
  // Each file's request is on its way until its answer was told (or it was left out): a
  // file resumed meanwhile waits for that (`FileUpload.batch`).
  const heard = new Map<BatchItem, () => void>();
  for (const item of items) {
    item.upload.batch = new Promise((resolve) => heard.set(item, resolve));
  }
  const outcome: BatchOutcome = {
    sending: told.sending,
    succeeded: (item, record) => {
      told.succeeded(item, record);
      heard.get(item)?.();
    },
    failed: (item, error) => {
      told.failed(item, error);
      heard.get(item)?.();
    },
  };
  try {
    await sendAll(items, connections, outcome);
  } finally {
    for (const answered of heard.values()) answered();
  }
}

async function sendAll(
  items: BatchItem[],
  connections: Connections,
  outcome: BatchOutcome,
): Promise<void> {
  const perRequest = Math.min(
    MAX_BATCH,
    Math.max(MIN_FILES_PER_REQUEST, Math.ceil(items.length / REQUESTS_AT_ONCE)),
  );
  // Files of one request share their endpoint and key (or token).
  const groups: BatchItem[][] = [];
  for (const item of items) {
    const group = groups.find(
      ([other]) => other && sameClient(other.upload.target, item.upload.target),
    );
    if (group) group.push(item);
    else groups.push([item]);
  }
  const requests: BatchItem[][] = [];
  for (const group of groups) {
    for (let start = 0; start < group.length; start += perRequest) {
      requests.push(group.slice(start, start + perRequest));
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      await sendOne(requests[next++] as BatchItem[], connections, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(REQUESTS_AT_ONCE, requests.length) }, worker));
}

async function sendOne(
  planned: BatchItem[],
  connections: Connections,
  outcome: BatchOutcome,
): Promise<void> {
  let items = planned;
  for (;;) {
    items = items.filter(wanted);
    const [first] = items;
    if (!first) return;
    outcome.sending(items);
    try {
      // Hashed just before they go (small files are read together: see `blobDigest`).
      await Promise.all(
        items.map(async (item) => {
          if (item.checked)
            item.entry.sha256 ??= (await blobDigest('sha256', item.body)) ?? undefined;
        }),
      );
      const client = await connections.clientFor(first.upload.target);
      // A file stopped while the others hashed or the client loaded is left out here: its
      // stop came before the request left, so the service must not keep it.
      items = items.filter(wanted);
      if (items.length === 0) return;
      const results = await client.uploadMany(
        items.map(({ entry, body }) => ({ entry, body })),
        { signal: everyStopped(items) },
      );
      items.forEach((item, index) => {
        const result = results[index];
        if (result?.file) outcome.succeeded(item, result.file);
        else outcome.failed(item, result?.error ?? new Error('No result for this file'));
      });
      return;
    } catch (error) {
      // Refused whole for one entry (its `index`: its type, the quota): that file fails with
      // the error it would have had alone, and the others go again without it.
      const at = error instanceof ApiError ? error.details.index : undefined;
      const refused = typeof at === 'number' ? items[at] : undefined;
      if (!refused) {
        for (const item of items) outcome.failed(item, error);
        return;
      }
      outcome.failed(refused, error);
      items = items.filter((item) => item !== refused);
    }
  }
}

function sameClient(a: UploadTarget, b: UploadTarget): boolean {
  return (
    a.endpoint === b.endpoint &&
    a.apiKey === b.apiKey &&
    a.uploadToken === b.uploadToken &&
    a.tokenProvider === b.tokenProvider
  );
}

/**
 * Aborts once every file of a request was stopped (removed, paused, cancelled): the service
 * then keeps none of them. While one of them is still wanted, the request goes on.
 */
function everyStopped(items: BatchItem[]): AbortSignal {
  const stop = new AbortController();
  let left = items.length;
  const stopped = () => --left || stop.abort();
  for (const { upload } of items) {
    // One stopped already never fires 'abort' again: counted now, or the request would
    // go on whole after every file was stopped.
    const signal = upload.abort?.signal;
    if (!signal || signal.aborted) stopped();
    else signal.addEventListener('abort', stopped, { once: true });
  }
  return stop.signal;
}

/** Not stopped (removed, paused, cancelled) since its attempt began. */
function wanted({ upload }: BatchItem): boolean {
  return Boolean(upload.abort && !upload.abort.signal.aborted);
}
