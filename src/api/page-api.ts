/**
 * What a page's first load needs of the API's names, apart from the route table in
 * `routes.ts` (which re-exports these): the key prefixes, to refuse a secret key, and the
 * one path a page calls before its first upload, `<file-list>`'s `GET /v1/files`. The
 * script-tag bundle keeps a module whole in one file, so the table (every upload call's
 * path) comes with the upload engine instead.
 */

/** A page's list of files (`FileListResponse`). */
export const FILES_PATH = '/v1/files';

export const SECRET_KEY_PREFIX = 'sk_live_';

/**
 * Whether a key as a page or a caller gave it is the secret key. Keys are used trimmed
 * (whitespace around one pasted from a terminal is not part of it), and so is this check:
 * `' sk_live_…'` is the secret key too.
 */
export function isSecretKey(key: string): boolean {
  return key.trim().startsWith(SECRET_KEY_PREFIX);
}
export const PUBLISHABLE_KEY_PREFIX = 'pk_live_';
/** An upload token a project's backend minted (`POST /v1/upload-tokens`). */
export const UPLOAD_TOKEN_PREFIX = 'upt_';
