import type {
  FileListResponse,
  FileMetadata,
  FileRecord,
  SignRequest,
  Visibility,
} from '../api/types.js';
import { FilehostCalls } from './calls.js';
import { type ConcurrencyLimit, concurrencyLimit } from './concurrency-limit.js';
import {
  type CallOptions,
  type ExchangeInit,
  type ExchangeOptions,
  isStream,
} from './connection.js';
import { followImport } from './import-follow.js';
import type {
  ImportFromUrlOptions,
  UploadFileOptions,
  UploadFileResult,
  UploadFilesItem,
  UploadFilesOptions,
  UploadSource,
} from './options.js';
import { digestHeaders } from './part-digest.js';
import { SentBytes } from './part-put.js';
import { type PartSending, retryTransientParts, sendParts } from './part-sender.js';
import { type RetryOptions, withRetry } from './retry.js';
import type { UploadBody } from './upload-body.js';
import type { UploadPlan } from './upload-plan.js';
import { type Attempts, runSequence, UploadSequence } from './upload-sequence.js';
import type { UploadSession } from './upload-session.js';

/** What `#upload` takes of either upload call's options. */
type UploadCallsOptions = Pick<
  UploadFileOptions,
  'retries' | 'signal' | 'resume' | 'resumeUploadId' | 'resumeUploadToken'
>;

/**
 * The typed client of the filehost API: every call (`FilehostCalls`), and what runs several
 * of them in turn: the multi-step upload whole (`uploadFile`, `uploadFiles`, through the
 * `UploadSequence` the element's engine goes by too), an import followed to its end
 * (`importFromUrl`, as the element's Link source follows one), and every file of a project
 * (`iterateFiles`).
 */
export class FilehostClient extends FilehostCalls {
  /** The upload sequence of `uploadFile` and `uploadFiles` (batched calls, the pending cap). */
  #sequence: UploadSequence | undefined;

  /** A stream body (a file read as it is sent) goes out in half-duplex mode (`ExchangeInit`). */
  protected override exchange<T>(
    url: string,
    method: string,
    init: ExchangeInit,
    options?: ExchangeOptions,
  ): Promise<{ body: T; response: Response }> {
    return super.exchange<T>(
      url,
      method,
      isStream(init.body) ? { ...init, duplex: 'half' } : init,
      options,
    );
  }

  /**
   * `POST /v1/uploads/import`: the service fetches `url` and stores it as a file. Resolves
   * with the record once the file is ready; rejects with an `ApiError` whose `code` is the
   * import's (`import_refused_target`, `import_http_error` with `details.remoteStatus`,
   * `too_large`, `unsupported_type`, `import_timeout`, `import_failed`) when it failed, or
   * with the call's own error when the service refused to start it (`quota_exceeded`, …).
   * It is an upload call: made with the client's upload token when it has one. It follows
   * the import by `GET /v1/uploads/:id` with the import's own token every `pollIntervalMs`
   * (default 1000, the rate at which the service records progress), telling `onProgress`
   * what it sees: the one call on it that any caller may make, an upload token too.
   * Aborting `signal` stops waiting; the import itself goes on (a secret key may delete it).
   */
  importFromUrl(url: string, options: ImportFromUrlOptions = {}): Promise<FileRecord> {
    return followImport(this.imports, url, options);
  }

  /** Every file of the project, newest first, fetching pages as the loop asks for them. */
  async *iterateFiles(
    query: { pageSize?: number } = {},
    options: CallOptions = {},
  ): AsyncGenerator<FileRecord> {
    let cursor: string | null = null;
    do {
      const page: FileListResponse = await this.listFiles(
        { limit: query.pageSize, cursor },
        options,
      );
      yield* page.files;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /**
   * The multi-step upload, whole: sign, send the parts (several at once, each retried on
   * its own, only the missing ones when resuming), complete. Resolves with the ready file.
   * Signs and completes made close together (several `uploadFile` calls at once) go as one
   * batch call each (see `UploadSession`).
   */
  async uploadFile(source: UploadSource, options: UploadFileOptions = {}): Promise<FileRecord> {
    const sent = new SentBytes<number>();
    const limit = concurrencyLimit(Math.max(1, options.concurrency ?? 4));
    return this.#upload(source, signRequestOf(source, options), options, limit, (part, bytes) => {
      sent.set(part, bytes);
      options.onProgress?.({ bytesUploaded: sent.total, bytesTotal: source.size });
    });
  }

  /**
   * Many files at once, each its own upload, for pages of small files: signed and completed
   * together through the client's `UploadSession` (one call for many files, the first
   * files' PUTs starting while the rest are signed), their parts sent through one queue
   * (`concurrency` at once across files), each file completed as soon as its bytes land,
   * and (with `resume`) each resumed as `uploadFile` resumes one.
   * Resolves with one result per file, in order: the ready file, or the `ApiError` that
   * stopped it; one file's failure never loses the others. Rejects only when `signal`
   * aborts.
   */
  async uploadFiles(
    files: UploadFilesItem[],
    options: UploadFilesOptions = {},
  ): Promise<UploadFileResult[]> {
    const results: UploadFileResult[] = new Array(files.length);
    const bytesTotal = files.reduce((sum, file) => sum + file.size, 0);
    const sent = new SentBytes<string>();
    const inFlight = concurrencyLimit(Math.max(1, options.concurrency ?? 6));
    await Promise.all(
      files.map(async (source, index) => {
        let result: UploadFileResult;
        try {
          const request = signRequestOf(source, {
            ...source,
            checksum: options.checksum,
            visibility: source.visibility ?? options.visibility,
          });
          const file = await this.#upload(source, request, options, inFlight, (part, bytes) => {
            sent.set(`${index}:${part}`, bytes);
            options.onProgress?.({ bytesUploaded: sent.total, bytesTotal });
          });
          result = { file };
        } catch (error) {
          if (options.signal?.aborted) return;
          result = { error: error instanceof Error ? error : new Error(String(error)) };
        }
        results[index] = result;
        options.onFileDone?.(index, result);
      }),
    );
    if (options.signal?.aborted) throw options.signal.reason;
    return results;
  }

  /**
   * One file through the upload sequence (`runSequence`): resumed when the caller names an
   * upload or `resume` remembers one for the source's fingerprint, else signed (and then
   * remembered until it completes); its parts sent through `limit`.
   */
  async #upload(
    source: UploadSource,
    request: SignRequest,
    options: UploadCallsOptions,
    limit: ConcurrencyLimit,
    onBytes: (partNumber: number, bytes: number) => void,
  ): Promise<FileRecord> {
    const retry: RetryOptions = { retries: options.retries ?? 3, signal: options.signal };
    const attempts: Attempts = (call) => withRetry(call, retry);
    const fingerprint = options.resume ? await source.fingerprint?.() : undefined;
    const store = fingerprint ? options.resume : undefined;
    const key = `${this.endpoint} ${fingerprint}`;
    const remembered = options.resumeUploadId ? undefined : await store?.get(key);
    const record = await runSequence(
      this.sequence,
      {
        request: () => request,
        known: options.resumeUploadId
          ? { id: options.resumeUploadId, token: options.resumeUploadToken ?? null }
          : remembered,
        forgotten: async (error) => {
          // The upload the caller named must be that one; a remembered one the service no
          // longer knows (expired, deleted) is forgotten, and signed anew.
          if (!remembered) throw error;
          await store?.delete(key);
        },
        signed: (plan) => store?.set(key, { id: plan.uploadId, token: plan.uploadToken }),
        attempts,
        signal: options.signal,
      },
      (plan) => sendParts(plan, this.#partSending(source, plan, limit, retry, onBytes)),
    );
    await store?.delete(key);
    return record;
  }

  /** This client's upload sequence: its sign and complete calls batched, the pending cap. */
  get sequence(): UploadSequence {
    this.#sequence ??= new UploadSequence(this);
    return this.#sequence;
  }

  /** This client's sign and complete calls, batched (see `UploadSession`). */
  get session(): UploadSession {
    return this.sequence.session;
  }

  /**
   * How this client sends a file's parts (see `sendParts`): through its `fetch`, each
   * part read afresh from the source for each try, with byte-level progress for streams.
   */
  #partSending(
    source: UploadSource,
    plan: UploadPlan,
    limit: ConcurrencyLimit,
    retry: RetryOptions,
    onBytes: (partNumber: number, bytes: number) => void,
  ): PartSending<UploadBody> {
    return {
      transport: async ({ body, onProgress, signal, ...part }) => {
        const counted = isStream(body) ? countBytes(body, onProgress) : body;
        return (await this.uploadPart(part, counted, { signal })).etag;
      },
      digest: digestHeaders,
      read: (start, end) => source.slice(start, end),
      uploadState: (signal) =>
        this.getUpload(plan.uploadId, { signal, uploadToken: plan.uploadToken }),
      limit,
      retry: retryTransientParts(retry),
      signal: retry.signal,
      onBytes,
    };
  }
}

/** What a sign call is told of a file: its options first, then what the source knows. */
function signRequestOf(
  source: UploadSource,
  options: {
    name?: string;
    type?: string;
    metadata?: FileMetadata;
    checksum?: boolean;
    visibility?: Visibility;
  },
): SignRequest {
  return {
    name: options.name ?? source.name ?? 'upload',
    size: source.size,
    type: options.type ?? source.type,
    metadata: options.metadata,
    checksum: options.checksum ?? true,
    // Only when asked: a request that does not say is public, as before.
    ...(options.visibility ? { visibility: options.visibility } : {}),
  };
}

/**
 * Counts bytes as the runtime reads them from a stream body (byte-level upload progress):
 * `onBytes` hears the total so far.
 */
function countBytes(
  stream: ReadableStream<Uint8Array>,
  onBytes: (bytesSoFar: number) => void,
): ReadableStream<Uint8Array> {
  let total = 0;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        onBytes(total);
        controller.enqueue(chunk);
      },
    }),
  );
}

/** A browser `Blob`/`File` as an upload source. */
export function blobSource(blob: Blob): UploadSource {
  return {
    size: blob.size,
    name: typeof File !== 'undefined' && blob instanceof File ? blob.name : undefined,
    type: blob.type || undefined,
    slice: (start, end) => blob.slice(start, end),
  };
}
