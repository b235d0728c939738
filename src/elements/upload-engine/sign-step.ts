import type { UploadPlan } from '../../client/upload-plan.js';
import { type Connections, signRequestFor } from './connections.js';
import { LocalFailure } from './failure-cause.js';
import { describeFailure } from './file-retries.js';
import type { FileUpload } from './file-state.js';
import type { ChecksumChoice } from './file-view.js';
import type { RememberedUploads } from './remembered-uploads.js';
import { forgetUpload } from './upload-memory.js';

/** What the sign step of an attempt needs besides the file. */
export interface SignStepContext {
  connections: Connections;
  /** Uploads remembered before this page was loaded (null: none, or not looked at yet). */
  memory: RememberedUploads | null;
  checksum: ChecksumChoice;
  signal: AbortSignal;
}

/**
 * The sign step of a file's attempt: the plan it goes by. A new upload is signed (with the
 * files signed close to it, by the session); a retried one, or one remembered from before
 * a reload, learns which parts the service holds. `signed`: a new upload was signed now.
 * Failures are thrown, and retried a level up, where the user can see it happen.
 */
export async function signStep(
  upload: FileUpload,
  file: File,
  context: SignStepContext,
): Promise<{ plan: UploadPlan; signed: boolean }> {
  const { connections, memory, signal } = context;
  const known = upload.plan
    ? { id: upload.plan.uploadId, token: upload.plan.uploadToken }
    : await memory?.recalled(upload, file);
  const sequence = await connections.sequenceFor(upload.target);
  const { plan, state, together } = await sequence.prepare({
    request: () => signRequestFor(file, upload, context.checksum),
    known,
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
  });
  if (!state) upload.signedTogether = together;
  return { plan, signed: state === null };
}
