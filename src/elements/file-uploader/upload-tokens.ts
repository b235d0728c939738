import { en } from '../shared/en.js';

/**
 * The uploader's part of upload tokens, fetched with their code only when a page sets
 * `upload-token` or `tokenProvider`: the English words of what can go wrong only with a
 * token (other languages ship whole), in place before any call with a token is made.
 */
export { UploadTokens } from '../../client/upload-tokens.js';

Object.assign(en.errors, {
  token_expired: () => 'Your permission to upload ran out. Reload the page, then retry.',
  token_exhausted: () => 'You may not upload more here: your limit of files or bytes is reached.',
});
