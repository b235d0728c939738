import { FILES_PATH, isSecretKey } from '../api/page-api.js';
import type { FileListResponse } from '../api/types.js';
import { ApiError } from './api-error.js';
import type { UploadBody } from './upload-body.js';
import type { UploadTokenProvider } from './upload-token.js';

export interface FilehostClientOptions {
  /** Base URL of the API, e.g. `http://localhost:8787`. */
  endpoint: string;
  /**
   * A publishable key (`pk_live_…`) in browsers; either kind on servers. May be left out
   * with `uploadToken` or `tokenProvider`: the client then makes upload calls only.
   */
  apiKey?: string;
  /**
   * An upload token (`upt_…`) a backend minted (`createUploadToken`): sent instead of the
   * key on the upload calls (sign, complete, an upload's state, the one-request upload);
   * every other call still goes with `apiKey`.
   */
  uploadToken?: string;
  /**
   * Gets a token from the backend (see `UploadTokenProvider`): before the first upload call
   * when there is no `uploadToken`, and again when the service answers `token_expired`,
   * after which the refused call is made again with the new token.
   */
  tokenProvider?: UploadTokenProvider;
  /** Injectable for tests and special runtimes; defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** What one request sends. */
export interface ExchangeInit {
  body?: UploadBody | FormData;
  headers: Record<string, string>;
  signal?: AbortSignal;
  /**
   * `half` for a `ReadableStream` body, the only way Node's fetch streams one: set by
   * `FilehostClient`, the one that sends streams, so a page's first load need not carry it.
   */
  duplex?: 'half';
}

export interface ExchangeOptions {
  /** A store's answer (S3's is empty or XML): no JSON body is needed. */
  lenient?: boolean;
  /** Rewords a refusal (a part PUT's, in the words of the API). */
  describeError?: (error: ApiError, bodyText: string) => ApiError;
}

/**
 * A connection to the filehost API with one key: how every call is made (the key sent, an
 * error answer made an `ApiError`, a network failure `network_error`) and the one read a
 * page's `<file-list>` makes (`listFiles`). `FilehostApi` adds the calls that upload and
 * `FilehostClient` the rest; this layer is all of the client that a page loads before its
 * first upload, so the script-tag bundle's first load carries no call it does not make.
 */
export class FilehostConnection {
  readonly endpoint: string;
  readonly #apiKey: string;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: FilehostClientOptions) {
    if (typeof options?.endpoint !== 'string' || !/^https?:\/\//.test(options.endpoint)) {
      throw new TypeError('FilehostClient: `endpoint` must be the http(s) base URL of the API.');
    }
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('FilehostClient: `apiKey` is required.');
    }
    if (isBrowser() && isSecretKey(options.apiKey)) {
      // Short: every page's first load carries it. Anyone can read a page's script.
      throw new TypeError(
        'FilehostClient: a secret key (sk_live_…) must never be used in a web page; use the publishable key (pk_live_…).',
      );
    }
    this.endpoint = options.endpoint.replace(/\/+$/, '');
    // Sent trimmed: the service takes exactly `Bearer <key>`.
    this.#apiKey = options.apiKey.trim();
    // Bound: a bare `fetch` called as a method of another object throws "Illegal invocation".
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  listFiles(
    query: { limit?: number; cursor?: string | null } = {},
    options: CallOptions = {},
  ): Promise<FileListResponse> {
    return this.request<FileListResponse>('GET', `${FILES_PATH}${pageQuery(query)}`, options);
  }

  /** One call of the API with the client's key; the answer's body. */
  protected request<T>(
    method: string,
    path: string,
    init: {
      body?: UploadBody | FormData;
      headers?: Record<string, string>;
      signal?: AbortSignal;
    } = {},
  ): Promise<T> {
    const url = `${this.endpoint}${path}`;
    const headers = { Authorization: `Bearer ${this.#apiKey}`, ...init.headers };
    // Only these: the options a caller passed may hold more (a call's own settings).
    const { body, signal } = init;
    return this.exchange<T>(url, method, { body, headers, signal }).then((answer) => answer.body);
  }

  /**
   * One request; an error answer becomes an `ApiError` (reworded by `describeError` when
   * given). `lenient` reads a body that is not JSON (S3's answers to part PUTs) as no body
   * instead of refusing it.
   */
  protected async exchange<T>(
    url: string,
    method: string,
    init: ExchangeInit,
    options: ExchangeOptions = {},
  ): Promise<{ body: T; response: Response }> {
    let response: Response;
    try {
      response = await this.#fetch(url, { ...init, method } as RequestInit);
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason ?? error;
      throw ApiError.network(error);
    }
    const text = await response.text();
    if (!response.ok) {
      const error = ApiError.fromBody(response.status, text, response.headers.get('Retry-After'));
      throw options.describeError ? options.describeError(error, text) : error;
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

/** `?limit=&cursor=` of a paged list (files, events), or nothing when neither is set. */
export function pageQuery(query: { limit?: number; cursor?: string | null }): string {
  const params = new URLSearchParams();
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  if (query.cursor) params.set('cursor', query.cursor);
  return params.size > 0 ? `?${params}` : '';
}

export function isStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

function isBrowser(): boolean {
  return typeof window !== 'undefined' && typeof document !== 'undefined';
}
