import type { FileRecord } from '../api/types.js';
import { ApiError } from './api-error.js';
import type { ImportCalls } from './import-calls.js';
import type { ImportFromUrlOptions } from './options.js';

/** HTTP-like statuses for import codes, so an `ApiError` of an import reads like the others. */
const IMPORT_STATUS = {
  import_refused_target: 400,
  import_http_error: 502,
  too_large: 413,
  unsupported_type: 415,
  import_timeout: 504,
  import_failed: 502,
  metadata_unreadable: 422,
  infected: 422,
  unscannable: 422,
} as const;

/** The `ApiError` of a failed import, from its record's `importError`. */
function importError(record: FileRecord): ApiError {
  const failure = record.importError ?? {
    code: 'import_failed' as const,
    message: 'The import failed.',
  };
  return new ApiError(IMPORT_STATUS[failure.code] ?? 502, failure.code, failure.message, {
    details: {
      id: record.id,
      ...(failure.status === undefined ? {} : { remoteStatus: failure.status }),
      ...(failure.limit === undefined ? {} : { limit: failure.limit }),
    },
  });
}

/**
 * Starts an import of `url` and follows it to its end: the import's state every
 * `pollIntervalMs` (default 1000, the rate at which the service records progress), its
 * progress told to `onProgress`. Resolves with the ready file; rejects with the import's
 * `ApiError` when it failed (see `importError`), or the call's own. Aborting `signal` stops
 * waiting; the import itself goes on. Written once for `FilehostClient.importFromUrl` and
 * `<file-uploader>`'s Link source.
 */
export async function followImport(
  calls: Pick<ImportCalls, 'start' | 'state'>,
  url: string,
  options: ImportFromUrlOptions = {},
): Promise<FileRecord> {
  const { name, metadata, visibility, pollIntervalMs = 1000, onProgress, ...call } = options;
  const { file, uploadToken } = await calls.start({ url, name, metadata, visibility }, call);
  let record = file;
  for (;;) {
    if (record.status === 'ready') return record;
    if (record.status === 'failed') throw importError(record);
    if (record.importProgress) onProgress?.(record.importProgress, record);
    await nextLook(pollIntervalMs, call.signal);
    record = (await calls.state(file.id, uploadToken, call)).file;
  }
}

/**
 * Waits until it is time to look again, or until `signal` aborts (then throws its reason).
 * Not `retry.ts`'s `sleep`: the Link source's chunk carries this module, and a module it
 * shared with the upload engine's chunk would be split into a third file both must fetch.
 */
async function nextLook(ms: number, signal: AbortSignal | undefined): Promise<void> {
  // Aborted as the last answer came: a signal aborted already never fires 'abort' again.
  signal?.throwIfAborted();
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
  signal?.throwIfAborted();
}
