import { en } from '../shared/en.js';
import type {
  EngineOnlyText,
  FailureTexts,
  UploaderTexts,
  UploadOnlyFailure,
} from '../shared/translation.js';

/**
 * The English words only the upload engine's files can show (statuses once Uppy holds a
 * file, pause and resume, a finished file's link, a file refused before it is sent, an
 * expired upload), kept out of the first load: `fillEnglish()`, called as the engine loads,
 * adds them to the English translation. Before the engine is in, the uploader lists only
 * files waiting for it (preparing, or failed to fetch it), whose words are in `en.ts`, so
 * English is whole whenever one of these is shown. Other languages ship whole.
 */
const uploader: Pick<UploaderTexts, EngineOnlyText> = {
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
  announceDone: (name) => `${name} uploaded.`,
  announceAllDone: (succeeded, failed) =>
    failed === '0'
      ? `All uploads finished: ${succeeded} uploaded.`
      : `Uploads finished: ${succeeded} uploaded, ${failed} failed.`,
  interrupted: 'Interrupted. Choose this file again to carry on where it stopped.',
};

/** (`token_expired` and `token_exhausted` arrive with the token code: `upload-tokens.ts`.) */
const errors: Omit<Pick<FailureTexts, UploadOnlyFailure>, 'token_expired' | 'token_exhausted'> = {
  too_large: ({ limit }) => `This file is too large. The limit is ${limit}.`,
  empty_body: () => 'This file is empty, so there is nothing to upload.',
  type_not_allowed: ({ accept }) => `This type of file is not accepted here. Accepted: ${accept}.`,
  too_many_files: ({ max }) => `You can add at most ${max} files.`,
  duplicate_file: () => 'This file is already in the list.',
  upload_expired: () => 'This upload expired before it finished. Retry to start it again.',
  quota_exceeded: () =>
    "No room for this file: the site's storage is full, or has too many unfinished uploads. Try later, or tell the site's owner.",
  damaged: () =>
    'Part of the file arrived damaged or incomplete. Retry, or if the file changed, choose it again.',
  link_expired: () => "The upload's link is no longer valid. Retry to get a new one.",
  upload_conflict: () =>
    'This upload was already finished, perhaps in another tab. Choose the file again to upload anew.',
  insufficient_storage: () => 'The file service is out of room and kept nothing. Try again later.',
  upload_token_required: () =>
    "Uploads here need a permission this page did not get. Sign in, or tell the site's owner.",
  infected: () => 'A virus scan found malware in this file. Nothing was kept.',
};

export function fillEnglish(): void {
  Object.assign(en.uploader, uploader);
  Object.assign(en.errors, errors);
}
