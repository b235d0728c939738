import { en } from '../shared/en.js';
import type { FailureTexts, TokenHintText, UploaderTexts } from '../shared/translation.js';

/**
 * The English words of the service's refusals of a file on its way (an expired upload, a
 * full project, damaged bytes, a token required, spent or expired …; the scanner's are
 * the service's answers, `en-service.ts`), fetched
 * with the first failure that needs them (`UploadEngine`'s `#onFailure`, in the chunk of
 * `upload-tokens.ts`) rather than by every page that uploads: most pages never meet one.
 * Other languages ship whole.
 */
const errors: Partial<FailureTexts> = {
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
  token_expired: () => 'Your permission to upload ran out. Reload the page, then retry.',
  token_provider_failed: () =>
    "This page could not get permission to upload. Retry, or reload the page; if it keeps failing, tell the site's owner.",
  token_exhausted: () => 'You may not upload more here: your limit of files or bytes is reached.',
};

/**
 * The drop zone's words of a provided token's limits (`tokenHint`), which only the token
 * chunk words: they arrive with it, before the limits are known.
 */
const tokenLimits: Pick<UploaderTexts, TokenHintText> = {
  hintFilesLeft: (count, form) => `${count} more ${form === 'one' ? 'file' : 'files'} allowed.`,
  hintBytesLeft: (size) => `${size} left in all.`,
};

/**
 * Adds them (and the token limits' words) to the English translation (a call, not an
 * import's side effect: see `fillEnglish`).
 */
export function fillRefusals(): void {
  Object.assign(en.errors, errors);
  Object.assign(en.uploader, tokenLimits);
}
