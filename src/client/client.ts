import { routes, SECRET_KEY_PREFIX } from '../api/routes.js';
import type {
  CompleteRequest,
  FileListResponse,
  FileMetadata,
  FileRecord,
  PartUploadResponse,
  SignedPart,
  SignRequest,
  SignResponse,
  UploadResponse,
  UploadState,
} from '../api/types.js';
import { ApiError, isTransient } from './api-error.js';
import { type RetryOptions, withRetry } from './retry.js';

export interface FilehostClientOptions {
  /** Base URL of the API, e.g. `http://localhost:8787`. */
  endpoint: string;
  /** A publishable key (`pk_live_…`) in browsers; either kind on servers. */
  apiKey: string;
  /** Injectable for tests and special runtimes; defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** A request body the runtime's fetch can send: streams need `duplex: 'half'` (added for you). */
export type UploadBody =
  | Blob
  | ArrayBuffer
  | Uint8Array<ArrayBuffer>
  | ReadableStream<Uint8Array>
  | string;

/** Something a multi-step upload can read a byte range of, any number of times. */
export interface UploadSource {
  size: number;
  name?: string;
  type?: string;
  /** The bytes `[start, end)` as a body; called again when a part is retried. */
  slice(start: number, end: number): UploadBody | Promise<UploadBody>;
}

export interface UploadProgress {
  bytesUploaded: number;
  bytesTotal: number;
}

export interface UploadFileOptions extends CallOptions {
  name?: string;
  type?: string;
  metadata?: FileMetadata;
  /** Parts sent at once. Default 4: enough to fill a link, few enough to resume cheaply. */
  concurrency?: number;
  /** Retries of each part and call on transient failures (network, 408, 429, 5xx). Default 3. */
  retries?: number;
  /** Called as bytes go out: per chunk for streams (Node), per part for Blobs (browsers). */
  onProgress?: (progress: UploadProgress) => void;
  /** Resume an upload signed earlier (its id) instead of signing a new one. */
  resumeUploadId?: string;
}

function isBrowser(): boolean {
  return typeof window !== 'undefined' && typeof document !== 'undefined';
}

/**
 * The filehost API, one method per endpoint: every method takes an `AbortSignal`; every
 * failure is an `ApiError`. Works in browsers and in Node 20. The elements use this alone
 * (Uppy runs their uploads), so the script-tag bundle carries no more than it needs;
 * `FilehostClient` adds the whole multi-step upload and paging on top.
 */
export class FilehostApi {
  readonly endpoint: string;
  readonly #apiKey: string;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: FilehostClientOptions) {
    if (typeof options?.endpoint !== 'string' || !/^https?:\/\//.test(options.endpoint)) {
      throw new TypeError('FilehostClient: `endpoint` must be the http(s) base URL of the API.');
    }
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('FilehostClient: `apiKey` is required.');
    }
    if (isBrowser() && options.apiKey.startsWith(SECRET_KEY_PREFIX)) {
      throw new TypeError(
        'FilehostClient: a secret key (sk_live_…) must never be used in a web page, where anyone can read it. Use the publishable key (pk_live_…).',
      );
    }
    this.endpoint = options.endpoint.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    // Bound: a bare `fetch` called as a method of another object throws "Illegal invocation".
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** `POST /v1/upload`: one file in one request (at most 100 MiB), its URL live at once. */
  async upload(
    body: UploadBody,
    options: CallOptions & { name?: string; type?: string; metadata?: FileMetadata } = {},
  ): Promise<UploadResponse> {
    const headers: Record<string, string> = {
      'Content-Type':
        options.type || (body instanceof Blob && body.type) || 'application/octet-stream',
    };
    const name =
      options.name ?? (typeof File !== 'undefined' && body instanceof File ? body.name : undefined);
    if (name) headers['X-Filename'] = encodeURIComponent(name);
    if (options.metadata) headers['X-Metadata'] = JSON.stringify(options.metadata);
    return this.#request<UploadResponse>('POST', routes.upload(), {
      body,
      headers,
      signal: options.signal,
    });
  }

  sign(request: SignRequest, options: CallOptions = {}): Promise<SignResponse> {
    return this.#json<SignResponse>('POST', routes.sign(), request, options);
  }

  /** PUTs one part to its signed URL (no Authorization: the URL is the credential). */
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
    const answer = await this.#exchange<Partial<PartUploadResponse> | undefined>(
      part.url,
      'PUT',
      { body, headers, signal: options.signal },
      { lenient: true },
    );
    // S3 answers a part PUT with an empty body: the ETag header is what every store sends.
    const etag = answer.response.headers.get('ETag') ?? answer.body?.etag;
    if (!etag) {
      throw new ApiError(200, 'unexpected_response', 'The part PUT answered without an ETag.');
    }
    return {
      partNumber: answer.body?.partNumber ?? part.partNumber,
      size: answer.body?.size ?? part.size,
      etag,
    };
  }

  complete(
    id: string,
    request: CompleteRequest = {},
    options: CallOptions = {},
  ): Promise<FileRecord> {
    return this.#json<FileRecord>('POST', routes.complete(id), request, options);
  }

  /** The parts the service holds, with fresh URLs for the rest (resume). */
  getUpload(id: string, options: CallOptions = {}): Promise<UploadState> {
    return this.#request<UploadState>('GET', routes.uploadState(id), options);
  }

  listFiles(
    query: { limit?: number; cursor?: string | null } = {},
    options: CallOptions = {},
  ): Promise<FileListResponse> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.cursor) params.set('cursor', query.cursor);
    const search = params.size > 0 ? `?${params}` : '';
    return this.#request<FileListResponse>('GET', `${routes.files()}${search}`, options);
  }

  getFile(id: string, options: CallOptions = {}): Promise<FileRecord> {
    return this.#request<FileRecord>('GET', routes.file(id), options);
  }

  /** Needs the secret key. On a pending upload it cancels it. */
  async deleteFile(id: string, options: CallOptions = {}): Promise<void> {
    await this.#request<void>('DELETE', routes.file(id), options);
  }

  #json<T>(method: string, path: string, payload: unknown, options: CallOptions): Promise<T> {
    return this.#request<T>(method, path, {
      body: JSON.stringify(payload),
      headers: { 'Content-Type': 'application/json' },
      signal: options.signal,
    });
  }

  #request<T>(
    method: string,
    path: string,
    init: { body?: UploadBody; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<T> {
    const url = `${this.endpoint}${path}`;
    const headers = { Authorization: `Bearer ${this.#apiKey}`, ...init.headers };
    return this.#exchange<T>(url, method, { ...init, headers }).then((answer) => answer.body);
  }

  /**
   * One request; an error answer becomes an `ApiError`. `lenient` reads a body that is not
   * JSON (S3's answers to part PUTs) as no body instead of refusing it.
   */
  async #exchange<T>(
    url: string,
    method: string,
    init: { body?: UploadBody; headers: Record<string, string>; signal?: AbortSignal },
    options: { lenient?: boolean } = {},
  ): Promise<{ body: T; response: Response }> {
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers: init.headers,
        body: init.body,
        signal: init.signal,
        // Node's fetch streams a ReadableStream body only in half-duplex mode.
        ...(isStream(init.body) ? ({ duplex: 'half' } as RequestInit) : {}),
      });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason ?? error;
      throw ApiError.network(error);
    }
    const text = await response.text();
    if (!response.ok) {
      throw ApiError.fromBody(response.status, text, response.headers.get('Retry-After'));
    }
    if (response.status === 204 || text === '') return { body: undefined as T, response };
    try {
      return { body: JSON.parse(text) as T, response };
    } catch (error) {
      if (options.lenient) return { body: undefined as T, response };
      throw new ApiError(
        response.status,
        'unexpected_response',
        'The service answered with a body that is not JSON.',
        {
          cause: error,
        },
      );
    }
  }
}

/**
 * The typed client of the filehost API: every endpoint (see `FilehostApi`), plus the
 * multi-step upload whole (`uploadFile`) and every file of a project (`iterateFiles`).
 */
export class FilehostClient extends FilehostApi {
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
   */
  async uploadFile(source: UploadSource, options: UploadFileOptions = {}): Promise<FileRecord> {
    const retry: RetryOptions = { retries: options.retries ?? 3, signal: options.signal };
    const call = { signal: options.signal };
    let parts: {
      partNumber: number;
      size: number;
      url: string;
      headers: Record<string, string>;
      etag: string | null;
    }[];
    let id: string;
    let partSize: number;
    if (options.resumeUploadId) {
      const state = await withRetry(
        () => this.getUpload(options.resumeUploadId as string, call),
        retry,
      );
      id = state.id;
      partSize = state.partSize;
      if (state.status === 'ready') return withRetry(() => this.complete(id, {}, call), retry);
      parts = state.parts.map((part) => ({
        partNumber: part.partNumber,
        size: part.size,
        url: part.url ?? '',
        headers: part.headers ?? {},
        etag: part.etag,
      }));
    } else {
      const signed = await withRetry(
        () =>
          this.sign(
            {
              name: options.name ?? source.name ?? 'upload',
              size: source.size,
              type: options.type ?? source.type,
              metadata: options.metadata,
            },
            call,
          ),
        retry,
      );
      id = signed.id;
      partSize = signed.partSize;
      parts = signed.parts.map((part) => ({ ...part, etag: null }));
    }

    const sent = new Map<number, number>();
    const report = () =>
      options.onProgress?.({
        bytesUploaded: [...sent.values()].reduce((sum, bytes) => sum + bytes, 0),
        bytesTotal: source.size,
      });
    for (const part of parts) if (part.etag) sent.set(part.partNumber, part.size);
    report();

    const queue = parts.filter((part) => part.etag === null);
    /** Fresh URLs for every part not yet sent (the upload state signs them anew). */
    const refreshUrls = async () => {
      const fresh = await this.getUpload(id, call);
      for (const latest of fresh.parts) {
        const known = parts.find((p) => p.partNumber === latest.partNumber);
        if (known && latest.url) {
          known.url = latest.url;
          known.headers = latest.headers ?? known.headers;
        }
      }
    };
    const sendPart = async (part: (typeof parts)[number]) => {
      const start = (part.partNumber - 1) * partSize;
      // Any 403 on a part PUT (an expired or refused URL: S3 words it its own way) and a
      // failed connection (an expired S3 URL answers without CORS headers, so a browser
      // sees only a network error) get fresh URLs once; a 403 after that is final.
      let refreshed = false;
      let retryFresh = false;
      const partRetry: RetryOptions = {
        ...retry,
        isRetryable: (error) => {
          const fresh = retryFresh;
          retryFresh = false;
          return isTransient(error) || (fresh && error instanceof ApiError && error.status === 403);
        },
      };
      part.etag = await withRetry(async (tryNumber) => {
        if (tryNumber > 0) sent.set(part.partNumber, 0);
        let body = await source.slice(start, start + part.size);
        if (isStream(body))
          body = countBytes(body, (bytes) => {
            sent.set(part.partNumber, (sent.get(part.partNumber) ?? 0) + bytes);
            report();
          });
        try {
          const answer = await this.uploadPart(part, body, call);
          return answer.etag;
        } catch (error) {
          const refusedUrl =
            error instanceof ApiError && (error.status === 403 || error.code === 'network_error');
          if (refusedUrl && !refreshed) {
            refreshed = true;
            retryFresh = true;
            await refreshUrls();
          }
          throw error;
        }
      }, partRetry);
      sent.set(part.partNumber, part.size);
      report();
    };
    const workers = Array.from({ length: Math.max(1, options.concurrency ?? 4) }, async () => {
      for (let part = queue.shift(); part; part = queue.shift()) await sendPart(part);
    });
    await Promise.all(workers);

    return withRetry(
      () =>
        this.complete(
          id,
          {
            parts: parts.map((part) => ({
              partNumber: part.partNumber,
              etag: part.etag as string,
            })),
          },
          call,
        ),
      retry,
    );
  }
}

function isStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

/** Counts bytes as the runtime reads them from a stream body: byte-level upload progress. */
function countBytes(
  stream: ReadableStream<Uint8Array>,
  onBytes: (bytes: number) => void,
): ReadableStream<Uint8Array> {
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onBytes(chunk.byteLength);
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
