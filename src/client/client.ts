import type {
  CreatedWebhook,
  EventListResponse,
  WebhookListResponse,
  WebhookRecord,
  WebhookRequest,
} from '../api/events.js';
import {
  backendRoutes,
  routes,
  type UPLOAD_TOKEN_HEADER,
  UPLOAD_TOKEN_PREFIX,
} from '../api/routes.js';
import type {
  CompleteBatchRequest,
  CompleteBatchResponse,
  CompleteBatchResult,
  CompleteRequest,
  FileListResponse,
  FileMetadata,
  FileRecord,
  ImportProgress,
  ImportRequest,
  ImportResponse,
  ImportState,
  PartUploadResponse,
  SignBatchResponse,
  SignedPart,
  SignedUrlRequest,
  SignedUrlResponse,
  SignRequest,
  SignResponse,
  UploadBatchEntry,
  UploadBatchResponse,
  UploadResponse,
  UploadState,
  UploadTokenRequest,
  UploadTokenResponse,
  Usage,
  Visibility,
} from '../api/types.js';
import { ApiError } from './api-error.js';
import { type ConcurrencyLimit, concurrencyLimit } from './concurrency-limit.js';
import {
  type CallOptions,
  type FilehostClientOptions,
  FilehostConnection,
  isStream,
  pageQuery,
} from './connection.js';
import { digestHeaders } from './part-digest.js';
import { partEtag, SentBytes } from './part-put.js';
import { partPutError } from './part-put-error.js';
import { type PartSending, retryTransientParts, sendParts } from './part-sender.js';
import { type RetryOptions, sleep, withRetry } from './retry.js';
import { tokensOnUse } from './tokens-on-use.js';
import type { UploadBody } from './upload-body.js';
import type { UploadPlan } from './upload-plan.js';
import {
  type Attempts,
  type RememberedUpload,
  runSequence,
  UploadSequence,
} from './upload-sequence.js';
import type { UploadSession } from './upload-session.js';
import type { TokenSource } from './upload-token.js';

export type { CallOptions, FilehostClientOptions };

/**
 * `FilehostApi`'s options: the client's, or, instead of `uploadToken` and `tokenProvider`,
 * where its upload calls get their token (`<file-uploader>` loads that code only when a
 * page sets a token).
 */
export interface FilehostApiOptions extends FilehostClientOptions {
  tokens?: TokenSource;
}

/** A call on one pending upload: its token, which its sign answered (needed with a publishable key). */
export interface UploadCallOptions extends CallOptions {
  uploadToken?: string | null;
}

export type { RememberedUpload, UploadBody };

/** `importFromUrl`'s options: the import's fields, how often to look, and what to tell. */
export interface ImportFromUrlOptions extends CallOptions {
  /** Default: the remote file name (`Content-Disposition`), else the URL's last segment. */
  name?: string;
  metadata?: FileMetadata;
  visibility?: Visibility;
  /** How often to ask how the import is going, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Told the bytes received (and the declared total, when known) while the import runs. */
  onProgress?: (progress: ImportProgress, record: FileRecord) => void;
}

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

/** Something a multi-step upload can read a byte range of, any number of times. */
export interface UploadSource {
  size: number;
  name?: string;
  type?: string;
  /** The bytes `[start, end)` as a body; called again when a part is retried. */
  slice(start: number, end: number): UploadBody | Promise<UploadBody>;
  /**
   * What tells these bytes apart from any others across runs (`fileSource` makes one from
   * the path, size, modification time and a hash of the first and last MiB): with a
   * `resume` store, an upload of the same fingerprint cut off before resumes. Asked only
   * when there is a store: it may read the file.
   */
  fingerprint?: () => Promise<string>;
}

/**
 * Where `uploadFile` remembers unfinished uploads, by the source's fingerprint and the
 * endpoint, so that a later run resumes them (`fileResumeStore` in `filehost/client/node`
 * keeps them in a file).
 */
export interface ResumeStore {
  get(key: string): Promise<RememberedUpload | undefined>;
  set(key: string, upload: RememberedUpload): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface UploadProgress {
  bytesUploaded: number;
  bytesTotal: number;
}

export interface UploadFileOptions extends CallOptions {
  name?: string;
  type?: string;
  metadata?: FileMetadata;
  /** Default `public`. A `private` file has no URL; a backend asks for a `signedUrl`. */
  visibility?: Visibility;
  /** Parts sent at once. Default 4: enough to fill a link, few enough to resume cheaply. */
  concurrency?: number;
  /** Retries of each part and call on transient failures (network, 408, 429, 5xx). Default 3. */
  retries?: number;
  /** Called as bytes go out: per chunk for streams (Node), per part for Blobs (browsers). */
  onProgress?: (progress: UploadProgress) => void;
  /** Resume an upload signed earlier (its id) instead of signing a new one. */
  resumeUploadId?: string;
  /** The token the sign of `resumeUploadId` answered (needed with a publishable key). */
  resumeUploadToken?: string;
  /**
   * Remember the upload while it runs (sources with a `fingerprint`), and resume one of the
   * same bytes to the same endpoint that was cut off: only the parts the service does not
   * hold are sent. One the service no longer knows (expired, deleted) starts afresh.
   */
  resume?: ResumeStore;
  /**
   * Default true: sign with `checksum: true` and send each part with the digest of its
   * bytes, so the storage refuses a part damaged on the way (it is sent again). Costs one
   * extra read of each part (browsers: the part in memory once); in a browser, parts
   * stored on S3 (MD5) go unchecked, as WebCrypto has no MD5.
   */
  checksum?: boolean;
}

/** One file of `uploadFiles`: its bytes, and what a single sign would be told of it. */
export interface UploadFilesItem extends UploadSource {
  metadata?: FileMetadata;
  /** This file's visibility; default the options' `visibility`, else `public`. */
  visibility?: Visibility;
}

export interface UploadFilesOptions extends CallOptions {
  /**
   * Part PUTs in flight at once, across all files. Default 6, the browser's connection
   * limit per host: more would only queue inside the browser.
   */
  concurrency?: number;
  /** Retries of each part and call on transient failures (network, 408, 429, 5xx). Default 3. */
  retries?: number;
  /** Bytes sent of all files together: per chunk for streams (Node), per part for Blobs. */
  onProgress?: (progress: UploadProgress) => void;
  /** Called once per file, as soon as its outcome is known (in the order they finish). */
  onFileDone?: (index: number, result: UploadFileResult) => void;
  /** Default true: see `UploadFileOptions.checksum`. */
  checksum?: boolean;
  /** Visibility of every file that does not say its own. Default `public`. */
  visibility?: Visibility;
  /** Remember each file while it runs, and resume it if cut off: see `UploadFileOptions.resume`. */
  resume?: ResumeStore;
}

/** What `#upload` takes of either upload call's options. */
type UploadCallsOptions = Pick<
  UploadFileOptions,
  'retries' | 'signal' | 'resume' | 'resumeUploadId' | 'resumeUploadToken'
>;

/** One upload's outcome in `completeMany`: the ready file, or the service's error for it. */
export type CompleteResult =
  | { file: FileRecord; error?: undefined }
  | { file?: undefined; error: ApiError };

/**
 * The outcome of one file of `uploadFiles`: the ready file, or why it is not: an `ApiError`
 * for anything the service or the network answered, or the error reading the source threw.
 */
export type UploadFileResult =
  | { file: FileRecord; error?: undefined }
  | { file?: undefined; error: Error };

/** One result of a batch call as the client gives it: the file, or an `ApiError`. */
function resultOf(result: CompleteBatchResult): CompleteResult {
  if (result.file) return { file: result.file };
  // Each result's error carries the status the single call would have answered.
  const { code, message, status, ...details } = result.error;
  return {
    error: new ApiError(typeof status === 'number' ? status : 500, code, message, {
      details,
      retryAfter: typeof details.retryAfter === 'number' ? details.retryAfter : null,
    }),
  };
}

/** `X-Upload-Token`, when there is a token to show. */
function uploadTokenHeader(token: string | null | undefined): Record<string, string> {
  // Spelled here, tied to the constant by type, so that the first-load chunk (which holds
  // routes.ts) does not carry a string only this chunk sends.
  return token ? { ['X-Upload-Token' satisfies typeof UPLOAD_TOKEN_HEADER]: token } : {};
}

/**
 * The calls of the multi-step upload, one method per endpoint (sign, complete, one or many
 * at once, and an upload's state), over the list of `FilehostConnection`: every method
 * takes an `AbortSignal`; every failure is an `ApiError`. Works in browsers and in Node 20.
 * It is what `<file-uploader>`'s engine uses (Uppy sends the bytes), so the script-tag
 * bundle carries no call an element never makes; `FilehostClient` adds the rest of the API
 * and the whole upload.
 */
export class FilehostApi extends FilehostConnection {
  /** Where upload calls get their token; none: they go with the key. */
  readonly #tokens: TokenSource | null;

  constructor(options: FilehostApiOptions) {
    super(options);
    this.#tokens = options.tokens ?? null;
  }

  sign(request: SignRequest, options: CallOptions = {}): Promise<SignResponse> {
    return this.uploadJson<SignResponse>('POST', routes.sign(), request, options);
  }

  /**
   * Batch sign: 1 to 100 files in one call (one request for the rate limit), answered in
   * the same order. All or nothing: if one is refused, none is signed and the `ApiError`'s
   * `details.index` says which.
   */
  async signMany(files: SignRequest[], options: CallOptions = {}): Promise<SignResponse[]> {
    const answer = await this.uploadJson<SignBatchResponse>(
      'POST',
      routes.sign(),
      { files },
      options,
    );
    return answer.uploads;
  }

  complete(
    id: string,
    request: CompleteRequest = {},
    options: UploadCallOptions = {},
  ): Promise<FileRecord> {
    return this.uploadJson<FileRecord>('POST', routes.complete(id), request, options);
  }

  /**
   * Batch complete: 1 to 100 uploads in one call, each completed on its own. Resolves with
   * one result per upload in the same order, the ready file or the `ApiError` it would have
   * had alone; rejects only when the call as a whole fails.
   */
  async completeMany(
    uploads: CompleteBatchRequest['uploads'],
    options: CallOptions = {},
  ): Promise<CompleteResult[]> {
    const answer = await this.uploadJson<CompleteBatchResponse>(
      'POST',
      routes.completeMany(),
      { uploads },
      options,
    );
    return answer.results.map(resultOf);
  }

  /**
   * `POST /v1/upload/batch`: 1 to 100 small files' bytes in one request, each described as
   * a sign entry (its `size` exactly the bytes given; with `sha256`, the service keeps it
   * only if its bytes have that digest). Resolves with one result per file in
   * the same order, the ready file or the `ApiError` it would have had alone; rejects when
   * the call as a whole fails (then none of its files was kept).
   */
  async uploadMany(
    files: { entry: UploadBatchEntry; body: Blob }[],
    options: CallOptions = {},
  ): Promise<CompleteResult[]> {
    const form = new FormData();
    form.append('files', JSON.stringify(files.map(({ entry }) => entry)));
    for (const { body } of files) form.append('file', body, 'file');
    const answer = await this.withUploadToken((auth) =>
      this.request<UploadBatchResponse>('POST', routes.uploadBatch(), {
        body: form,
        headers: auth,
        signal: options.signal,
      }),
    );
    return answer.results.map(resultOf);
  }

  /** The parts the service holds, with fresh URLs for the rest (resume). */
  getUpload(id: string, options: UploadCallOptions = {}): Promise<UploadState> {
    return this.withUploadToken((auth) =>
      this.request<UploadState>('GET', routes.uploadState(id), {
        signal: options.signal,
        headers: { ...uploadTokenHeader(options.uploadToken), ...auth },
      }),
    );
  }

  /** A call with a JSON body (and the upload's token, when there is one). */
  protected json<T>(
    method: string,
    path: string,
    payload: unknown,
    options: UploadCallOptions,
    auth?: Record<string, string>,
  ): Promise<T> {
    return this.request<T>(method, path, {
      body: JSON.stringify(payload),
      headers: {
        'Content-Type': 'application/json',
        ...uploadTokenHeader(options.uploadToken),
        ...auth,
      },
      signal: options.signal,
    });
  }

  /** An upload call with a JSON body (see `withUploadToken`). */
  protected uploadJson<T>(
    method: string,
    path: string,
    payload: unknown,
    options: UploadCallOptions,
  ): Promise<T> {
    return this.withUploadToken((auth) => this.json<T>(method, path, payload, options, auth));
  }

  /**
   * Makes an upload call with the client's upload token instead of its key, when it has
   * one (`auth` is the header to send; see `TokenSource.send`).
   */
  protected withUploadToken<T>(call: (auth: Record<string, string>) => Promise<T>): Promise<T> {
    return this.#tokens ? this.#tokens.send(call) : call({});
  }
}

/**
 * The typed client of the filehost API, every endpoint: `FilehostApi`'s calls, plus the
 * one-request upload (`upload`), `getFile`, `deleteFile`, the multi-step upload whole (`uploadFile`),
 * every file of a project (`iterateFiles`), and the calls only a secret key may make that no
 * page ever needs (usage, webhooks, the event log): here, not on `FilehostApi`, so the
 * upload engine of the script-tag bundle carries none of the calls it never makes (and a
 * page cannot hold a secret key anyway).
 */
export class FilehostClient extends FilehostApi {
  /** The upload sequence of `uploadFile` and `uploadFiles` (batched calls, the pending cap). */
  #sequence: UploadSequence | undefined;

  constructor(options: FilehostClientOptions) {
    const { uploadToken, tokenProvider } = options;
    super({
      ...options,
      // With a token alone the client makes upload calls only; anything else is sent with
      // the token too, and the service answers `token_scope`.
      apiKey: options.apiKey || uploadToken || (tokenProvider ? UPLOAD_TOKEN_PREFIX : undefined),
      tokens: uploadToken || tokenProvider ? tokensOnUse(uploadToken, tokenProvider) : undefined,
    });
  }

  /**
   * `POST /v1/upload-tokens` (secret key): a token a page or app uploads with instead of the
   * publishable key, within `policy` (how many files, how large, which types, metadata
   * that wins over the uploader's, visibility, when files delete themselves, how long the
   * token lasts). A backend mints one for its signed-in user and hands it to the page.
   */
  createUploadToken(
    policy: UploadTokenRequest = {},
    options: CallOptions = {},
  ): Promise<UploadTokenResponse> {
    return this.json<UploadTokenResponse>('POST', backendRoutes.uploadTokens(), policy, options);
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
  async importFromUrl(url: string, options: ImportFromUrlOptions = {}): Promise<FileRecord> {
    const { name, metadata, visibility, pollIntervalMs = 1000, onProgress, ...call } = options;
    const request: ImportRequest = { url, name, metadata, visibility };
    const { file, uploadToken } = await this.uploadJson<ImportResponse>(
      'POST',
      routes.import(),
      request,
      call,
    );
    let record = file;
    for (;;) {
      if (record.status === 'ready') return record;
      if (record.status === 'failed') throw importError(record);
      if (record.importProgress) onProgress?.(record.importProgress, record);
      await sleep(pollIntervalMs, call.signal);
      const state = await this.withUploadToken((auth) =>
        this.request<ImportState>('GET', routes.uploadState(file.id), {
          signal: call.signal,
          headers: { ...uploadTokenHeader(uploadToken), ...auth },
        }),
      );
      record = state.file;
    }
  }

  /** `POST /v1/upload`: one file in one request (at most 100 MiB), its URL live at once. */
  async upload(
    body: UploadBody,
    options: CallOptions & {
      name?: string;
      type?: string;
      metadata?: FileMetadata;
      /** Default `public`. A `private` file has no URL; a backend asks for a `signedUrl`. */
      visibility?: Visibility;
    } = {},
  ): Promise<UploadResponse> {
    const headers: Record<string, string> = {
      'Content-Type':
        options.type || (body instanceof Blob && body.type) || 'application/octet-stream',
    };
    const name =
      options.name ?? (typeof File !== 'undefined' && body instanceof File ? body.name : undefined);
    if (name) headers['X-Filename'] = encodeURIComponent(name);
    if (options.metadata) headers['X-Metadata'] = JSON.stringify(options.metadata);
    if (options.visibility) headers['X-Visibility'] = options.visibility;
    return this.withUploadToken((auth) =>
      this.request<UploadResponse>('POST', routes.upload(), {
        body,
        headers: { ...headers, ...auth },
        signal: options.signal,
      }),
    );
  }

  getFile(id: string, options: CallOptions = {}): Promise<FileRecord> {
    return this.request<FileRecord>('GET', routes.file(id), options);
  }

  /** Needs the secret key. On a pending upload it cancels it. */
  async deleteFile(id: string, options: CallOptions = {}): Promise<void> {
    await this.request<void>('DELETE', routes.file(id), options);
  }

  /** `GET /v1/usage` (secret key): what the project holds now, and its limits. */
  usage(options: CallOptions = {}): Promise<Usage> {
    return this.request<Usage>('GET', backendRoutes.usage(), options);
  }

  /**
   * A CDN link to a file that works for `expiresIn` seconds (default 3600, at most 7 days):
   * the only way a private file is served, and a public one answers it too. Needs the
   * secret key, so it is a backend's call: it signs a link when a user may see the file.
   */
  signedUrl(id: string, options: SignedUrlRequest & CallOptions = {}): Promise<SignedUrlResponse> {
    const { signal, ...request } = options;
    return this.json<SignedUrlResponse>('POST', backendRoutes.signedUrl(id), request, { signal });
  }

  /**
   * `POST /v1/webhooks` (secret key): an endpoint for some or all events. The answer's
   * `secret` is shown only now: keep it where the receiver verifies signatures.
   */
  createWebhook(request: WebhookRequest, options: CallOptions = {}): Promise<CreatedWebhook> {
    return this.json<CreatedWebhook>('POST', backendRoutes.webhooks(), request, options);
  }

  /** `GET /v1/webhooks` (secret key), without their secrets. */
  async listWebhooks(options: CallOptions = {}): Promise<WebhookRecord[]> {
    return (await this.request<WebhookListResponse>('GET', backendRoutes.webhooks(), options))
      .webhooks;
  }

  /** `DELETE /v1/webhooks/:id` (secret key). */
  async deleteWebhook(id: string, options: CallOptions = {}): Promise<void> {
    await this.request<void>('DELETE', backendRoutes.webhook(id), options);
  }

  /** `GET /v1/events` (secret key): a page of the last 30 days' events, newest first. */
  listEvents(
    query: { limit?: number; cursor?: string | null } = {},
    options: CallOptions = {},
  ): Promise<EventListResponse> {
    return this.request<EventListResponse>(
      'GET',
      `${backendRoutes.events()}${pageQuery(query)}`,
      options,
    );
  }

  /** `POST /v1/events/:id/redeliver` (secret key): sends the event again to its endpoints. */
  async redeliverEvent(id: string, options: CallOptions = {}): Promise<void> {
    await this.request<void>('POST', backendRoutes.redeliver(id), options);
  }

  /**
   * PUTs one part to its signed URL (no Authorization: the URL is the credential). Here and
   * not on \`FilehostApi\`: the elements' parts go through Uppy, so the upload engine,
   * which carries \`FilehostApi\`, need not carry this.
   */
  async uploadPart(
    part: Pick<SignedPart, 'url' | 'headers' | 'partNumber' | 'size'>,
    body: UploadBody,
    options: CallOptions = {},
  ): Promise<PartUploadResponse> {
    // A stream has no length of its own and would go out chunked; S3 signs the part's
    // length into its URL and refuses a body without it.
    const headers = isStream(body)
      ? { ...part.headers, 'Content-Length': String(part.size) }
      : (part.headers ?? {});
    const answer = await this.exchange<Partial<PartUploadResponse> | undefined>(
      part.url,
      'PUT',
      { body, headers, signal: options.signal },
      { lenient: true, describeError: partPutError },
    );
    const etag = partEtag(answer.response.headers.get('ETag'), answer.body);
    if (!etag) {
      throw new ApiError(200, 'unexpected_response', 'The part PUT answered without an ETag.');
    }
    return {
      partNumber: answer.body?.partNumber ?? part.partNumber,
      size: answer.body?.size ?? part.size,
      etag,
    };
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
