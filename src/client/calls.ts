import type {
  CreatedWebhook,
  EventListResponse,
  WebhookListResponse,
  WebhookRecord,
  WebhookRequest,
} from '../api/events.js';
import { backendRoutes, routes, UPLOAD_TOKEN_PREFIX } from '../api/routes.js';
import type {
  FileMetadata,
  FileRecord,
  PartUploadResponse,
  SignedPart,
  SignedUrlRequest,
  SignedUrlResponse,
  UploadResponse,
  UploadTokenRequest,
  UploadTokenResponse,
  Usage,
  Visibility,
} from '../api/types.js';
import { FilehostApi } from './api.js';
import { ApiError } from './api-error.js';
import { type CallOptions, type FilehostClientOptions, isStream, pageQuery } from './connection.js';
import { ImportCalls } from './import-calls.js';
import { resendOnLostConnection } from './lost-connection.js';
import type { FilehostApiOptions } from './options.js';
import { partEtag } from './part-put.js';
import { partPutError } from './part-put-error.js';
import { tokensOnUse } from './tokens-on-use.js';
import type { UploadBody } from './upload-body.js';

/**
 * The options a client of `options` calls with: with a token alone it makes upload calls
 * only; anything else is sent with the token too, and the service answers `token_scope`.
 * Its fetch sends again a request a closing kept-alive connection lost (`lost-connection.ts`).
 */
function callOptionsOf(options: FilehostClientOptions): FilehostApiOptions {
  const { uploadToken, tokenProvider } = options;
  return {
    ...options,
    fetch: resendOnLostConnection(options.fetch),
    apiKey: options.apiKey || uploadToken || (tokenProvider ? UPLOAD_TOKEN_PREFIX : undefined),
    tokens: uploadToken || tokenProvider ? tokensOnUse(uploadToken, tokenProvider) : undefined,
  };
}

/**
 * Every call of the filehost API, one method per endpoint: `FilehostApi`'s upload calls,
 * plus the one-request upload (`upload`), `getFile`, `deleteFile`, a part's PUT, and the
 * calls only a secret key may make that no page ever needs (upload tokens, usage, signed
 * links, webhooks, the event log): here, not on `FilehostApi`, so the upload engine of the
 * script-tag bundle carries none of the calls it never makes (and a page cannot hold a
 * secret key anyway). What runs several calls in turn (a whole upload, an import followed
 * to its end, every page of files) is `FilehostClient`'s.
 */
export class FilehostCalls extends FilehostApi {
  /** The calls of an import (start it, see how it goes), with this client's key and token. */
  protected readonly imports: ImportCalls;

  constructor(options: FilehostClientOptions) {
    const calls = callOptionsOf(options);
    super(calls);
    this.imports = new ImportCalls(calls, routes);
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
}
