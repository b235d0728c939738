import type { UploadTokenResponse } from '../api/types.js';

/** An upload token's limits, as `POST /v1/upload-tokens` answers them (`null`: none). */
export type UploadTokenLimits = Pick<
  UploadTokenResponse,
  'maxFiles' | 'maxFileSize' | 'maxBytes' | 'types'
>;

/**
 * What a `tokenProvider` answers: the token (`upt_…`), or the answer of
 * `POST /v1/upload-tokens` as it is (a backend may pass it straight on), whose `expiresAt`
 * lets the token be renewed shortly before it runs out instead of after a refused call, and
 * whose limits `<file-uploader>` shows in its drop zone.
 */
export type UploadTokenGrant =
  | string
  | ({ token: string; expiresAt?: number | null } & Partial<UploadTokenLimits>);

/**
 * Asks the page's (or app's) backend for an upload token: called before the first upload
 * call, and again when the service answers `401 token_expired`. A failure (it throws, or
 * answers no token: the user signed out, the backend's route missing or unreachable) fails
 * the upload calls waiting on it as `token_provider_failed`, with its error as the `cause`;
 * it is not retried by itself.
 */
export type UploadTokenProvider = () => Promise<UploadTokenGrant>;

/** Where a client's upload calls get their token (`UploadTokens`, or one loaded on use). */
export interface TokenSource {
  /**
   * Makes an upload call with the token (`auth` is the header to send); when the service
   * answers `token_expired` and a provider can give a new token, once more with that.
   */
  send<T>(call: (auth: Record<string, string>) => Promise<T>): Promise<T>;
}
