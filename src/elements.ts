/**
 * The elements without side effects: importing this registers nothing. Call
 * `defineElements()` (or `customElements.define` with your own tag names) when you want them.
 */
import { FileListElement } from './elements/file-list/file-list.js';
import { FileUploaderElement } from './elements/file-uploader/file-uploader.js';
import { defineElement } from './elements/shared/define.js';

export type {
  FileListEventMap,
  FileListFailure,
  FileListOverrides,
  FileListStrings,
} from './elements/file-list/file-list.js';
export type {
  ChecksumChoice,
  FailureCode,
  FailureStep,
  FileSummary,
  FileUploaderEventMap,
  FileUploaderOverrides,
  FileUploaderStrings,
  FileView,
  UploadFailure,
  UploadTokenGrant,
  UploadTokenProvider,
} from './elements/file-uploader/file-uploader.js';
export { registerTranslation } from './elements/shared/localize.js';
export type {
  FailureContext,
  ListTexts,
  PluralForm,
  Translation,
  UploaderTexts,
} from './elements/shared/translation.js';
export { FileListElement, FileUploaderElement };

/** Registers `<file-uploader>` and `<file-list>` (a second call does nothing). */
export function defineElements(): void {
  defineElement('file-uploader', FileUploaderElement);
  defineElement('file-list', FileListElement);
}
