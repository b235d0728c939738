import type { TokenAllowance } from '../../client/upload-tokens.js';
import { formatBytes, formatCount, pluralForm } from '../shared/format.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import type { UploaderSettings } from './file-view.js';

/**
 * The drop zone's hint once the upload token's limits are known (its provider answered the
 * mint with them): the accepted types and the size per file, the page's own or else the
 * token's (the smaller size of the two), the page's most files, and what the token still
 * allows, in files and in bytes; so a person sees the limits before a file is refused.
 */
export function tokenHint(
  allowance: TokenAllowance,
  settings: Pick<UploaderSettings, 'accept' | 'maxFileSize' | 'maxFiles'>,
  t: FileUploaderStrings,
  locale: string,
): string {
  const parts: string[] = [];
  const types = settings.accept ?? allowance.types;
  if (types) parts.push(t.hintTypes(types.join(', ')));
  const sizes = [settings.maxFileSize, allowance.maxFileSize].filter((size) => !!size);
  if (sizes.length > 0)
    parts.push(t.hintMaxSize(formatBytes(Math.min(...(sizes as number[])), locale)));
  // One file at a time (no `multiple`) is 1, which the element's own hint does not say either.
  const { maxFiles } = settings;
  if (maxFiles && maxFiles > 1) {
    parts.push(t.hintMaxFiles(formatCount(maxFiles, locale), pluralForm(maxFiles, locale)));
  }
  const { filesLeft, bytesLeft } = allowance;
  if (filesLeft !== null) {
    parts.push(t.hintFilesLeft(formatCount(filesLeft, locale), pluralForm(filesLeft, locale)));
  }
  if (bytesLeft !== null) parts.push(t.hintBytesLeft(formatBytes(bytesLeft, locale)));
  parts.push(t.hintPaste);
  return parts.join(' ');
}
