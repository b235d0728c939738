import type { SequenceJob } from '../../client/upload-sequence.js';
import { signRequestFor } from './connections.js';
import { LocalFailure } from './failure-cause.js';
import { describeFailure } from './file-retries.js';
import type { FileUpload } from './file-state.js';
import type { ChecksumChoice } from './file-view.js';
import type { RememberedUploads } from './remembered-uploads.js';
import { forgetUpload } from './upload-memory.js';

/**
 * What an attempt's sign step goes by (`UploadSequence.prepare`): a new upload is signed
 * (with the files signed close to it, by the session); a retried one, or one remembered
 * from before a reload, learns which parts the service holds. Failures are thrown, and
 * retried a level up, where the user can see it happen.
 */
export async function signJob(
  upload: FileUpload,
  file: File,
  /** Uploads remembered before this page was loaded (null: none, or not looked at yet). */
  memory: RememberedUploads | null,
  checksum: ChecksumChoice,
  signal: AbortSignal,
): Promise<SequenceJob> {
  const { plan } = upload;
  return {
    request: () => signRequestFor(file, upload, checksum),
    known: plan
      ? { id: plan.uploadId, token: plan.uploadToken }
      : await memory?.recalled(upload, file),
    together: upload.signedTogether,
    forgotten: (error) => {
      // Remembered from before a reload, and expired or deleted since: said so, and
      // started afresh only if the user retries. Cancelled meanwhile: afresh at once.
      upload.plan = null;
      if (!upload.recalled) return;
      upload.recalled = false;
      forgetUpload(upload);
      // Said as what it is: its upload expired (a `not_found` at sign means no such address).
      throw new LocalFailure((strings, locale) =>
        describeFailure(error, 'sign', strings, { locale, origin: location.origin }, true),
      );
    },
    signal,
  };
}
