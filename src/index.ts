/**
 * The script-tag entry: registers `<file-uploader>` and `<file-list>` and exports the
 * element classes, the typed client and the types of the API.
 */
import './elements/file-uploader/register.js';
import './elements/file-list/register.js';

export * from './client/index.js';
export type {
  FileListEventMap,
  FileListFailure,
  FileListStrings,
} from './elements/file-list/file-list.js';
export { FileListElement } from './elements/file-list/file-list.js';
export type {
  FailureCode,
  FailureStep,
  FileSummary,
  FileUploaderEventMap,
  FileUploaderStrings,
  FileView,
  UploadFailure,
} from './elements/file-uploader/file-uploader.js';
export { FileUploaderElement } from './elements/file-uploader/file-uploader.js';
