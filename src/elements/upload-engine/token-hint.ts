import type { TokenAllowance, UploadTokens } from '../../client/upload-tokens.js';
import { formatBytes, formatCount, pluralForm } from '../shared/format.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import { fillRefusals } from './en-refusals.js';
import type { UploaderSettings } from './file-view.js';

/** What the limits need of the provider's client (`TokenClient`): its tokens. */
interface WithTokens {
  readonly tokens?: UploadTokens;
}

/**
 * A page's `tokenProvider` asked for its token ahead of any file, so that the token's
 * limits show in the drop zone before a file is chosen (`UploadEngine.hint`); files that go
 * up with that token count against them as they finish.
 */
export class TokenLimits {
  /** The provider's client, once made (its token's limits once the provider answered). */
  #client: WithTokens | null = null;

  /** `changed`: the limits may have come (or the provider failed): the hint is drawn again. */
  constructor(client: Promise<WithTokens>, changed: () => void) {
    client
      .then((made) => {
        // The limits' English words are this chunk's (`fillRefusals`).
        fillRefusals();
        this.#client = made;
        return made.tokens?.current();
      })
      // No endpoint yet, or the provider failed (in the console): the first file says so.
      .catch(() => undefined)
      .finally(changed);
  }

  /** The drop zone's hint (`tokenHint`) once the token's limits are known; null before. */
  hint(settings: UploaderSettings, t: FileUploaderStrings, locale: string): string | null {
    const allowance = this.#client?.tokens?.allowance;
    return allowance ? tokenHint(allowance, settings, t, locale) : null;
  }

  /** A file of these bytes went up with the token. */
  count(bytes: number): void {
    this.#client?.tokens?.count(bytes);
  }
}

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
