import { en } from '../shared/en.js';
import type {
  EngineOnlyText,
  FailureTexts,
  MemoryText,
  TokenHintText,
  UploaderTexts,
} from '../shared/translation.js';

/**
 * The English words only the upload engine's files can show (statuses once Uppy holds a
 * file, pause and resume, a finished file's link, a file refused before it is sent, an
 * expired upload; a token's limits are worded with the token chunk, `en-refusals.ts`, and an
 * upload cut off by a reload with the memory's chunk, `en-memory.ts`), kept out of the
 * first load: `fillEnglish()`, called as the engine loads, adds them to the English
 * translation. Before the engine is in, the uploader lists only
 * files waiting for it (preparing, or failed to fetch it), whose words are in `en.ts`, so
 * English is whole whenever one of these is shown. Other languages ship whole.
 */
const uploader: Pick<UploaderTexts, Exclude<EngineOnlyText, TokenHintText | MemoryText>> = {
  queued: 'Waiting to upload',
  uploading: (percent) => `Uploading… ${percent}`,
  timeLeft: (duration) => `${duration} left`,
  finishing: 'Finishing…',
  done: 'Uploaded',
  retrying: (seconds) => `Trying again in ${seconds} s…`,
  paused: 'Paused',
  upload: 'Upload',
  pauseUpload: 'Pause',
  resumeUpload: 'Resume',
  pauseAllUploads: 'Pause all',
  resumeAllUploads: 'Resume all',
  pauseLabel: (name) => `Pause uploading ${name}`,
  resumeLabel: (name) => `Resume uploading ${name}`,
  openFile: (name) => `Open ${name} (opens in a new tab)`,
  announceAdded: (count, form) => `${count} ${form === 'one' ? 'file' : 'files'} added.`,
  announceDone: (name) => `${name} uploaded.`,
  announceAllDone: (succeeded, failed) =>
    failed === '0'
      ? `All uploads finished: ${succeeded} uploaded.`
      : `Uploads finished: ${succeeded} uploaded, ${failed} failed.`,
};

/**
 * The refusals of a file before it is sent (sync, as it is added). The service's refusals
 * of a file on its way arrive with the first of them (`en-refusals.ts`), and those only a
 * token can meet with the token code (`upload-tokens.ts`).
 */
const errors: Pick<FailureTexts, LocalRefusal> = {
  too_large: ({ limit }) => `This file is too large. The limit is ${limit}.`,
  empty_body: () => 'This file is empty, so there is nothing to upload.',
  type_not_allowed: ({ accept }) => `This type of file is not accepted here. Accepted: ${accept}.`,
  too_many_files: ({ max }) => `You can add at most ${max} files.`,
  duplicate_file: () => 'This file is already in the list.',
};

/** The refusals worded here. */
type LocalRefusal =
  | 'too_large'
  | 'empty_body'
  | 'type_not_allowed'
  | 'too_many_files'
  | 'duplicate_file';

export function fillEnglish(): void {
  Object.assign(en.uploader, uploader);
  Object.assign(en.errors, errors);
}
