import { UPLOAD_TOKEN_PREFIX } from '../../api/routes.js';
import { FilehostApi } from '../../client/client.js';
import type { UploadTokenProvider } from '../../client/upload-token.js';
import { UploadTokens } from '../../client/upload-tokens.js';
import { connect } from '../shared/connection.js';
import type { UploadTarget } from './file-state.js';

/**
 * The uploader's part of upload tokens, fetched only when a page sets `upload-token` or
 * `tokenProvider` (see `Connections.clientFor`): the clients that upload with a token.
 */

/** Each token provider a page gave, numbered: part of the key of its clients. */
const providers = new WeakMap<UploadTokenProvider, number>();
let provided = 0;

/** What tells the clients of targets with a token apart: endpoint, key, token, provider. */
export function keyOf({ endpoint, apiKey, uploadToken, tokenProvider }: UploadTarget): string {
  let provider = tokenProvider ? providers.get(tokenProvider) : 0;
  if (provider === undefined && tokenProvider) {
    provider = ++provided;
    providers.set(tokenProvider, provider);
  }
  return `${endpoint}\n${apiKey}\n${uploadToken ?? ''}\n${provider}\ntoken`;
}

/** A client whose upload calls go with the target's token (`UploadTokens`). */
export function connectWith({ endpoint, apiKey, uploadToken, tokenProvider }: UploadTarget) {
  const tokens = new UploadTokens(uploadToken, tokenProvider);
  // With a token the key may be left out: every call this client makes is an upload call.
  return connect(
    class extends FilehostApi {
      constructor(options: { endpoint: string; apiKey: string }) {
        super({ ...options, tokens });
      }
    },
    endpoint,
    apiKey || UPLOAD_TOKEN_PREFIX,
  );
}
