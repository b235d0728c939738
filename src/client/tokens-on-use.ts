import type { TokenSource, UploadTokenProvider } from './upload-token.js';

/**
 * A token source whose code (`UploadTokens`) is fetched on first use, so that a page that
 * uploads with the publishable key never loads it.
 */
export function tokensOnUse(
  token: string | undefined,
  provider: UploadTokenProvider | undefined,
  load: () => Promise<typeof import('./upload-tokens.js')> = () => import('./upload-tokens.js'),
): TokenSource {
  const tokens = load().then(({ UploadTokens }) => new UploadTokens(token, provider));
  return { send: (call) => tokens.then((source) => source.send(call)) };
}
