import { UPLOAD_TOKEN_PREFIX } from '../../api/page-api.js';
import { FilehostApi } from '../../client/api.js';
import type { ApiError } from '../../client/api-error.js';
import type { UploadTokenProvider } from '../../client/upload-token.js';
import { UploadTokens } from '../../client/upload-tokens.js';
import { type ConnectionProblem, connect } from '../shared/connection.js';
import type { UploadTarget } from './file-state.js';
import { placeOf } from './file-state.js';

/**
 * What the upload engine fetches only when it needs it, in one chunk: the clients that
 * upload with a token (when a page sets `upload-token` or `tokenProvider`, see
 * `Connections.clientFor`), and the English words of the service's refusals (with the first
 * one, see `UploadRuns.failed`), and the drop zone's hint with a provided token's limits
 * (`TokenLimits`, once its provider answered). One chunk, not two: each dynamic import
 * costs the engine, which every page that uploads loads, its name.
 */
/**
 * The upload paths, for the Link source's import calls (`ImportCalls`): the engine's calls
 * carry them, and the Link source loads this chunk anyway (see `loadTokenChunk`).
 */
export { uploadRoutes as routes } from '../../api/upload-routes.js';
export { fillRefusals } from './en-refusals.js';
export { TokenLimits } from './token-hint.js';

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
  return `${placeOf(endpoint, apiKey)}\n${uploadToken ?? ''}\n${provider}\ntoken`;
}

/** A client that uploads with a token, and that token (whose limits the drop zone shows). */
export type TokenClient = FilehostApi & { readonly tokens?: UploadTokens };

/**
 * A client whose upload calls go with the target's token (`UploadTokens`); `granted` hears
 * of each token its provider gives.
 */
export function connectWith(
  { endpoint, apiKey, uploadToken, tokenProvider }: UploadTarget,
  granted?: () => void,
): TokenClient | ConnectionProblem {
  const tokens = tokensOf(uploadToken, tokenProvider, granted);
  // With a token the key may be left out: every call this client makes is an upload call.
  return connect(
    class extends FilehostApi {
      readonly tokens = tokens;
      constructor(options: { endpoint: string; apiKey: string }) {
        super({ ...options, tokens });
      }
    },
    endpoint,
    apiKey || UPLOAD_TOKEN_PREFIX,
  );
}

/** Each provider's token, shared by whoever uploads with that provider alone (see `tokensOf`). */
const shared = new WeakMap<UploadTokenProvider, { tokens: UploadTokens; heard: Set<() => void> }>();

/**
 * The element's upload token (`upload-token`, `tokenProvider`). A provider that fails is
 * the page author's to fix, and the person at the page cannot tell why: its error goes to
 * the console, once per failed call, beside the file's `token_provider_failed`. A provider
 * given alone has one token for the whole page, which its uploads, its imports (the Link
 * source) and the drop zone's limits share: one token asked for, not one each, and what is
 * left of it counted once. `granted` hears of each token it gives.
 */
export function tokensOf(
  uploadToken: string | undefined,
  tokenProvider: UploadTokenProvider | undefined,
  granted?: () => void,
): UploadTokens {
  const hooks = {
    failed: (error: ApiError) =>
      console.error('filehost: the tokenProvider gave no upload token:', error.cause),
  };
  if (uploadToken || !tokenProvider) {
    return new UploadTokens(uploadToken, tokenProvider, { ...hooks, granted });
  }
  let entry = shared.get(tokenProvider);
  if (!entry) {
    const heard = new Set<() => void>();
    const tokens = new UploadTokens(undefined, tokenProvider, {
      ...hooks,
      granted: () => {
        for (const hear of heard) hear();
      },
    });
    entry = { tokens, heard };
    shared.set(tokenProvider, entry);
  }
  if (granted) entry.heard.add(granted);
  return entry.tokens;
}
