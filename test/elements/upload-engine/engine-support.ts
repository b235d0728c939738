import { textsWith, translationFor } from '../../../src/elements/shared/localize.js';
import type { FileUploaderStrings } from '../../../src/elements/shared/uploader-strings.js';
import { fillEnglish } from '../../../src/elements/upload-engine/en-engine.js';
import { fillRefusals } from '../../../src/elements/upload-engine/en-refusals.js';
import type { UploadTarget } from '../../../src/elements/upload-engine/file-state.js';
import type { UploaderSettings } from '../../../src/elements/upload-engine/file-view.js';

/**
 * The uploader's English texts, as the element makes them with no `strings` set, once the
 * engine's own English words are in (as its module adds them when it loads, and its
 * refusals' with the first failure).
 */
export function englishTexts(): FileUploaderStrings {
  fillEnglish();
  fillRefusals();
  return textsWith(translationFor('en'), 'uploader', {});
}

/** The element's settings as its attributes default them, pointed at `endpoint` with `apiKey`. */
export function settingsFor(
  endpoint: string,
  apiKey: string,
  changes: Partial<UploaderSettings> = {},
): UploaderSettings {
  return {
    endpoint,
    apiKey,
    metadata: {},
    visibility: undefined,
    maxFileSize: null,
    maxFiles: null,
    accept: null,
    autoUpload: true,
    image: null,
    rememberUploads: false,
    keepFilesUpTo: 0,
    checksum: 'small',
    ...changes,
  };
}

/** A file's target as the engine takes it from the settings. */
export function targetOf(settings: UploaderSettings): UploadTarget {
  return { ...settings };
}
