import type { UPLOAD_TOKEN_HEADER } from '../api/routes.js';
import type {
  CompleteBatchRequest,
  CompleteBatchResponse,
  CompleteBatchResult,
  CompleteRequest,
  FileRecord,
  SignBatchResponse,
  SignRequest,
  SignResponse,
  UploadBatchEntry,
  UploadBatchResponse,
  UploadState,
} from '../api/types.js';
import { uploadRoutes } from '../api/upload-routes.js';
import { ApiError } from './api-error.js';
import { type CallOptions, FilehostConnection } from './connection.js';
import type { CompleteResult, FilehostApiOptions, UploadCallOptions } from './options.js';
import type { TokenSource } from './upload-token.js';

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
export function uploadTokenHeader(token: string | null | undefined): Record<string, string> {
  // Spelled here, tied to the constant by type, so that the first-load chunk (which holds
  // routes.ts) does not carry a string only this chunk sends.
  return token ? { ['X-Upload-Token' satisfies typeof UPLOAD_TOKEN_HEADER]: token } : {};
}

/**
 * The calls of the multi-step upload, one method per endpoint (sign, complete, one or many
 * at once, and an upload's state), over the list of `FilehostConnection`: every method
 * takes an `AbortSignal`; every failure is an `ApiError`. Works in browsers and in Node 20.
 * It is what `<file-uploader>`'s engine uses (Uppy sends the bytes), so the script-tag
 * bundle carries no call an element never makes; `FilehostCalls` (`calls.ts`) adds the rest
 * of the API, and `FilehostClient` (`client.ts`) the uploads and imports that run them.
 */
export class FilehostApi extends FilehostConnection {
  /** Where upload calls get their token; none: they go with the key. */
  readonly #tokens: TokenSource | null;

  constructor(options: FilehostApiOptions) {
    super(options);
    this.#tokens = options.tokens ?? null;
  }

  sign(request: SignRequest, options: CallOptions = {}): Promise<SignResponse> {
    return this.uploadJson<SignResponse>('POST', uploadRoutes.sign(), request, options);
  }

  /**
   * Batch sign: 1 to 100 files in one call (one request for the rate limit), answered in
   * the same order. All or nothing: if one is refused, none is signed and the `ApiError`'s
   * `details.index` says which.
   */
  async signMany(files: SignRequest[], options: CallOptions = {}): Promise<SignResponse[]> {
    const answer = await this.uploadJson<SignBatchResponse>(
      'POST',
      uploadRoutes.sign(),
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
    return this.uploadJson<FileRecord>('POST', uploadRoutes.complete(id), request, options);
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
      uploadRoutes.completeMany(),
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
      this.request<UploadBatchResponse>('POST', uploadRoutes.uploadBatch(), {
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
      this.request<UploadState>('GET', uploadRoutes.uploadState(id), {
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
