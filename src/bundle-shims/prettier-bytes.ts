import { formatBytes } from '../elements/shared/format.js';

/**
 * Stands in for `@transloadit/prettier-bytes` in the script-tag bundle only (see
 * vite.config.ts). Uppy's Restricter puts sizes into the errors it throws; the uploader
 * never shows those sentences (it writes its own, in the page's language), so the formatter
 * it already has serves.
 */
export function prettierBytes(bytes: number): string {
  return formatBytes(bytes, 'en');
}
